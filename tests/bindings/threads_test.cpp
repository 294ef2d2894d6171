// Many threads creating pipelines (one shared rewrite cache) and
// recording converted binds and dispatches at once, each into its own command buffer
// from its own pools. Every thread's results are checked word by word; validation
// (synchronization validation on) silent.
#include <gtest/gtest.h>

#include <cstring>
#include <thread>

#include "support/vk_objects.h"
#include "compute_run.h"
#include "integration/test_env.h"

namespace bindery::test {
namespace {

constexpr uint32_t kThreads = 4;
constexpr uint32_t kDispatches = 16;
constexpr uint32_t kWords = 256;  // ssbo_copy.comp: dst[i] = src[i] * 3 + 1, 4 groups of 64

struct Worker {
  HostBuffer src, dst;
  VkCommandPool command_pool = VK_NULL_HANDLE;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  std::string error;
};

void Record(VkHarness& h, const std::vector<uint32_t>& code, Worker& w) {
  VkDevice d = h.device();
  w.set_layout = CreateSetLayout(d, {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                                     {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}});
  w.layout = CreatePipelineLayout(d, {w.set_layout});
  if (w.set_layout == VK_NULL_HANDLE || w.layout == VK_NULL_HANDLE) {
    w.error = "layout creation failed";
    return;
  }
  w.pipeline = CreateComputePipeline(d, w.layout, code.data(), code.size() * 4);
  if (w.pipeline == VK_NULL_HANDLE) {
    w.error = "pipeline creation failed";
    return;
  }
  w.pool = CreateDescriptorPool(d, kDispatches, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2 * kDispatches}});
  VkCommandPoolCreateInfo cpi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  cpi.queueFamilyIndex = h.queue_family();
  if (w.pool == VK_NULL_HANDLE || vkCreateCommandPool(d, &cpi, nullptr, &w.command_pool) != VK_SUCCESS) {
    w.error = "pool creation failed";
    return;
  }
  VkCommandBufferAllocateInfo cbai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cbai.commandPool = w.command_pool;
  cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cbai.commandBufferCount = 1;
  vkAllocateCommandBuffers(d, &cbai, &w.cb);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  vkBeginCommandBuffer(w.cb, &begin);
  vkCmdBindPipeline(w.cb, VK_PIPELINE_BIND_POINT_COMPUTE, w.pipeline);
  for (uint32_t j = 0; j < kDispatches; ++j) {
    const VkDescriptorSet set = AllocateSet(d, w.pool, w.set_layout);
    if (set == VK_NULL_HANDLE) {
      w.error = "set allocation failed";
      return;
    }
    const VkDescriptorBufferInfo infos[2] = {{w.src.buffer, 0, VK_WHOLE_SIZE},
                                             {w.dst.buffer, j * kWords * 4, kWords * 4}};
    const VkWriteDescriptorSet write = BufferWrite(set, 0, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, infos, 2);
    vkUpdateDescriptorSets(d, 1, &write, 0, nullptr);
    vkCmdBindDescriptorSets(w.cb, VK_PIPELINE_BIND_POINT_COMPUTE, w.layout, 0, 1, &set, 0, nullptr);
    vkCmdDispatch(w.cb, kWords / 64, 1, 1);
  }
  BarrierToHost(w.cb);
  if (vkEndCommandBuffer(w.cb) != VK_SUCCESS) w.error = "vkEndCommandBuffer failed";
}

TEST(BindingsThreads, ManyThreadsCreateAndRecordAtOnce) {
  ScopedEnv bindings("BINDERY_INDIRECT_BINDINGS", "force");
  ScopedEnv level("BINDERY_LOG_LEVEL", "info");
  VkHarness h;
  ASSERT_TRUE(h.ok()) << h.error();
  std::string error;
  const std::vector<uint32_t> code =
      spirv_exec::LoadSpirv(std::string(BINDERY_SPIRV_CORPUS_DIR) + "/ssbo_copy.comp.spv", error);
  ASSERT_TRUE(error.empty()) << error;
  std::vector<Worker> workers(kThreads);
  for (uint32_t t = 0; t < kThreads; ++t) {
    workers[t].src = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    workers[t].dst = h.CreateHostBuffer(kDispatches * kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    for (uint32_t i = 0; i < kWords; ++i) static_cast<uint32_t*>(workers[t].src.mapped)[i] = t * 100000 + i;
    std::memset(workers[t].dst.mapped, 0, kDispatches * kWords * 4);
  }
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < kThreads; ++t) threads.emplace_back([&, t] { Record(h, code, workers[t]); });
  for (std::thread& t : threads) t.join();
  for (const Worker& w : workers) ASSERT_TRUE(w.error.empty()) << w.error;
  std::vector<VkCommandBuffer> cbs;
  for (const Worker& w : workers) cbs.push_back(w.cb);
  ASSERT_EQ(cbs.size(), kThreads);
  ASSERT_EQ(SubmitAndWaitIdle(h.queue(), cbs), VK_SUCCESS);
  for (uint32_t t = 0; t < kThreads; ++t) {
    const uint32_t* dst = static_cast<const uint32_t*>(workers[t].dst.mapped);
    for (uint32_t j = 0; j < kDispatches; ++j) {
      for (uint32_t i = 0; i < kWords; ++i) {
        ASSERT_EQ(dst[j * kWords + i], (t * 100000 + i) * 3 + 1) << "thread " << t << " dispatch " << j << " word " << i;
      }
    }
  }
  VkDevice d = h.device();
  for (Worker& w : workers) {
    vkDestroyCommandPool(d, w.command_pool, nullptr);
    vkDestroyDescriptorPool(d, w.pool, nullptr);
    vkDestroyPipeline(d, w.pipeline, nullptr);
    vkDestroyPipelineLayout(d, w.layout, nullptr);
    vkDestroyDescriptorSetLayout(d, w.set_layout, nullptr);
    h.Destroy(w.src);
    h.Destroy(w.dst);
  }
  h.DestroyDevice();
  EXPECT_VALIDATION_SILENT(h);
  std::string summary;
  for (const Message& m : h.BinderyMessages()) {
    if (m.id == "BINDERY-summary") summary = m.text;
  }
  EXPECT_NE(summary.find("pipelines rewritten 4,"), std::string::npos) << summary;
  EXPECT_NE(summary.find("descriptor sets converted 64"), std::string::npos) << summary;
}

}  // namespace
}  // namespace bindery::test
