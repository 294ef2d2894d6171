// What a bind leaves in the command buffer. Binding sets with one pipeline
// layout and dispatching with another layout compatible for those sets must find the
// sets' roots where the pipeline reads them; a transfer kernel recorded between the bind
// and the dispatch (the transfers capability, below the tracking stage) must put the
// rewritten pipeline and the root back. Each test checks the dispatch's result, that the
// pipeline was really rewritten (and the kernel really ran), and that validation is silent.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "compute_run.h"
#include "integration/test_env.h"
#include "support/vk_objects.h"

namespace bindery::test {
namespace {

// ssbo_copy.comp: dst[i] = src[i] * 3 + 1 for 256 uints (set 0: binding 0 src, 1 dst).
constexpr uint32_t kWords = 256;

struct Rig {
  std::unique_ptr<VkHarness> h;
  std::vector<uint32_t> module;
  VkDescriptorSetLayout set0 = VK_NULL_HANDLE, set1 = VK_NULL_HANDLE;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  std::string summary;

  explicit Rig(bool transfer_kernels) {
    ScopedEnv bindings("BINDERY_INDIRECT_BINDINGS", "force");
    ScopedEnv level("BINDERY_LOG_LEVEL", "info");
    ScopedEnv transfers("BINDERY_TRANSFERS", transfer_kernels ? "force" : "auto");
    ScopedEnv strategy("BINDERY_TRANSFER_STRATEGY", transfer_kernels ? "compute" : "auto");
    h = std::make_unique<VkHarness>();
    std::string error;
    module = spirv_exec::LoadSpirv(std::string(BINDERY_SPIRV_CORPUS_DIR) + "/ssbo_copy.comp.spv", error);
  }
  ~Rig() { Release(); }
  void Release() {
    if (h->device() == VK_NULL_HANDLE) return;
    vkDestroyDescriptorPool(h->device(), pool, nullptr);
    vkDestroyDescriptorSetLayout(h->device(), set0, nullptr);
    vkDestroyDescriptorSetLayout(h->device(), set1, nullptr);
    pool = VK_NULL_HANDLE;
    set0 = set1 = VK_NULL_HANDLE;
  }

  VkDescriptorSetLayout StorageLayout(uint32_t bindings) {
    std::vector<VkDescriptorSetLayoutBinding> b;
    for (uint32_t i = 0; i < bindings; ++i) {
      b.push_back({i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
    }
    const VkDescriptorSetLayout l = CreateSetLayout(h->device(), b);
    EXPECT_NE(l, VK_NULL_HANDLE);
    return l;
  }
  VkPipelineLayout PipelineLayout(std::vector<VkDescriptorSetLayout> sets) {
    const VkPipelineLayout l = CreatePipelineLayout(h->device(), sets);
    EXPECT_NE(l, VK_NULL_HANDLE);
    return l;
  }
  VkPipeline Pipeline(VkPipelineLayout layout) {
    const VkPipeline p = CreateComputePipeline(h->device(), layout, module.data(), module.size() * 4);
    EXPECT_NE(p, VK_NULL_HANDLE);
    return p;
  }
  VkDescriptorSet Set(VkDescriptorSetLayout layout, const std::vector<VkBuffer>& buffers) {
    if (pool == VK_NULL_HANDLE) {
      pool = CreateDescriptorPool(h->device(), 8, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 16}});
      EXPECT_NE(pool, VK_NULL_HANDLE);
    }
    const VkDescriptorSet set = AllocateSet(h->device(), pool, layout);
    EXPECT_NE(set, VK_NULL_HANDLE);
    std::vector<VkDescriptorBufferInfo> infos;
    for (VkBuffer b : buffers) infos.push_back({b, 0, VK_WHOLE_SIZE});
    for (uint32_t i = 0; i < buffers.size(); ++i) {
      const VkWriteDescriptorSet w = BufferWrite(set, i, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &infos[i]);
      vkUpdateDescriptorSets(h->device(), 1, &w, 0, nullptr);
    }
    return set;
  }
  // Frees what the rig owns, destroys the device and keeps its summary line.
  void Finish() {
    Release();
    h->DestroyDevice();
    summary = h->BinderySummary();
  }
};

void Barrier(VkCommandBuffer cb) {
  BarrierToHost(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
}

void ExpectCopied(const HostBuffer& src, const HostBuffer& dst) {
  const uint32_t* s = static_cast<const uint32_t*>(src.mapped);
  const uint32_t* d = static_cast<const uint32_t*>(dst.mapped);
  for (uint32_t i = 0; i < kWords; ++i) ASSERT_EQ(d[i], s[i] * 3 + 1) << "word " << i;
}

HostBuffer Filled(VkHarness& h, uint32_t seed) {
  HostBuffer b = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                                    VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  for (uint32_t i = 0; i < kWords; ++i) static_cast<uint32_t*>(b.mapped)[i] = i * seed + 7;
  return b;
}

TEST(BindingsBindState, SetsBoundWithACompatibleLayoutReachTheDispatch) {
  Rig rig(false);
  ASSERT_TRUE(rig.h->ok()) << rig.h->error();
  ASSERT_FALSE(rig.module.empty());
  VkHarness& h = *rig.h;
  rig.set0 = rig.StorageLayout(2);
  rig.set1 = rig.StorageLayout(3);
  // Bound through `narrow` (set 0 only), dispatched with a pipeline of `wide` (sets 0, 1):
  // compatible for set 0, so set 0's root must lie where the pipeline reads it.
  VkPipelineLayout narrow = rig.PipelineLayout({rig.set0});
  VkPipelineLayout wide = rig.PipelineLayout({rig.set0, rig.set1});
  VkPipeline pipeline = rig.Pipeline(wide);
  HostBuffer src = Filled(h, 3), dst = Filled(h, 0), spare = Filled(h, 5);
  VkDescriptorSet s0 = rig.Set(rig.set0, {src.buffer, dst.buffer});
  VkDescriptorSet s1 = rig.Set(rig.set1, {spare.buffer, spare.buffer, spare.buffer});
  VkCommandBuffer cb = h.BeginCommands();
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, narrow, 0, 1, &s0, 0, nullptr);
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, wide, 1, 1, &s1, 0, nullptr);
  vkCmdDispatch(cb, kWords / 64, 1, 1);
  Barrier(cb);
  ASSERT_EQ(h.SubmitAndWait(cb), VK_SUCCESS);
  ExpectCopied(src, dst);
  vkDestroyPipeline(h.device(), pipeline, nullptr);
  vkDestroyPipelineLayout(h.device(), narrow, nullptr);
  vkDestroyPipelineLayout(h.device(), wide, nullptr);
  h.Destroy(src);
  h.Destroy(dst);
  h.Destroy(spare);
  rig.Finish();
  EXPECT_VALIDATION_SILENT(h);
  EXPECT_EQ(SummaryCounter(rig.summary, "pipelines rewritten"), 1u) << rig.summary;
}

TEST(BindingsBindState, TransferKernelBetweenBindAndDispatchLeavesTheRootIntact) {
  Rig rig(true);
  ASSERT_TRUE(rig.h->ok()) << rig.h->error();
  ASSERT_FALSE(rig.module.empty());
  VkHarness& h = *rig.h;
  rig.set0 = rig.StorageLayout(2);
  VkPipelineLayout layout = rig.PipelineLayout({rig.set0});
  VkPipeline pipeline = rig.Pipeline(layout);
  HostBuffer src = Filled(h, 3), dst = Filled(h, 0), a = Filled(h, 11), b = Filled(h, 0);
  VkDescriptorSet s0 = rig.Set(rig.set0, {src.buffer, dst.buffer});
  VkCommandBuffer cb = h.BeginCommands();
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &s0, 0, nullptr);
  // Unaligned: the transfers capability runs its copy kernel here (strategy compute).
  VkBufferCopy region{1, 3, kWords * 4 - 8};
  vkCmdCopyBuffer(cb, a.buffer, b.buffer, 1, &region);
  vkCmdDispatch(cb, kWords / 64, 1, 1);
  Barrier(cb);
  ASSERT_EQ(h.SubmitAndWait(cb), VK_SUCCESS);
  ExpectCopied(src, dst);
  EXPECT_EQ(std::memcmp(static_cast<uint8_t*>(b.mapped) + 3, static_cast<uint8_t*>(a.mapped) + 1, region.size), 0);
  vkDestroyPipeline(h.device(), pipeline, nullptr);
  vkDestroyPipelineLayout(h.device(), layout, nullptr);
  for (HostBuffer* x : {&src, &dst, &a, &b}) h.Destroy(*x);
  rig.Finish();
  EXPECT_VALIDATION_SILENT(h);
  EXPECT_EQ(SummaryCounter(rig.summary, "pipelines rewritten"), 1u) << rig.summary;
  EXPECT_GE(SummaryCounter(rig.summary, "transfer kernels"), 1u) << rig.summary;
}

}  // namespace
}  // namespace bindery::test
