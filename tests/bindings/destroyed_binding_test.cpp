// A set keeps a binding whose buffer the application destroyed (as inference runtimes do:
// valid while no bound pipeline statically uses that binding). A pipeline that runs
// natively (a fallback here; a native twin in unaddressable_test.cpp) has the set
// materialised as a full native set: only the bindings it uses are written there, so the
// driver never receives the freed handle. Under auto, a layout beyond the driver's limits
// converts and the rewritten pipeline never looks at the dead binding. Results as without
// the layer, validation below it silent.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "dead_binding_refused_comp.h"
#include "integration/test_env.h"
#include "many_buffers_comp.h"

namespace bindery::test {
namespace {

constexpr uint32_t kWords = 256;
constexpr VkDeviceSize kBytes = kWords * 4;

void HostBarrier(VkCommandBuffer cb) {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0,
                       nullptr, 0, nullptr);
}

std::string Summary(const VkHarness& h) {
  std::string summary;
  for (const Message& m : h.BinderyMessages()) {
    if (m.text.find("device summary") != std::string::npos) summary = m.text;
  }
  return summary;
}

struct FallbackRun {
  std::string error, validation, summary;
  std::vector<uint32_t> out;
};

// Set 0: src, dst, and a third storage buffer written and then destroyed; the shader (one
// the rewrite refuses) names only the first two.
FallbackRun RunFallback(const char* mode) {
  ScopedEnv bindings("BINDERY_INDIRECT_BINDINGS", mode);
  ScopedEnv level("BINDERY_LOG_LEVEL", "info");
  auto owned = std::make_unique<VkHarness>();
  VkHarness& h = *owned;
  FallbackRun run;
  if (!h.ok()) {
    run.error = h.error();
    return run;
  }
  ComputeKernel k = h.CreateKernel(dead_binding_refused_comp, sizeof(dead_binding_refused_comp), 3);
  HostBuffer src = h.CreateHostBuffer(kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  HostBuffer dst = h.CreateHostBuffer(kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  HostBuffer dead = h.CreateHostBuffer(kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  for (uint32_t i = 0; i < kWords; ++i) static_cast<uint32_t*>(src.mapped)[i] = 7 * i + 3;
  std::memset(dst.mapped, 0, kBytes);
  VkDescriptorSet set = h.AllocateStorageSet(k, {src.buffer, dst.buffer, dead.buffer});
  h.Destroy(dead);
  if (k.pipeline == VK_NULL_HANDLE || set == VK_NULL_HANDLE) run.error = "pipeline or set not created";
  if (run.error.empty()) {
    VkCommandBuffer cb = h.BeginCommands();
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.pipeline);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.layout, 0, 1, &set, 0, nullptr);
    vkCmdDispatch(cb, kWords / 64, 1, 1);
    HostBarrier(cb);
    if (h.SubmitAndWait(cb) != VK_SUCCESS) run.error = "submit failed";
    const uint32_t* p = static_cast<const uint32_t*>(dst.mapped);
    run.out.assign(p, p + kWords);
  }
  h.Destroy(src);
  h.Destroy(dst);
  h.Destroy(k);
  h.DestroyDevice();
  run.validation = VkHarness::Format(h.ValidationProblems());
  run.summary = Summary(h);
  return run;
}

TEST(BindingsDestroyedBinding, AFallbackPipelineNeverGetsTheDestroyedBuffer) {
  const FallbackRun native = RunFallback("off");
  const FallbackRun forced = RunFallback("force");
  ASSERT_TRUE(native.error.empty()) << native.error;
  ASSERT_TRUE(forced.error.empty()) << forced.error;
  EXPECT_TRUE(native.validation.empty()) << native.validation;
  EXPECT_TRUE(forced.validation.empty()) << forced.validation;
  EXPECT_NE(forced.summary.find("fallen back 1"), std::string::npos) << forced.summary;
  ASSERT_EQ(native.out.size(), kWords);
  for (uint32_t i = 0; i < kWords; ++i) ASSERT_EQ(native.out[i], (7 * i + 3) * 2 + 1) << i;
  EXPECT_EQ(native.out, forced.out);
}

// 40 storage buffers in binding 0 (beyond lavapipe's 32 per stage: the layout converts
// under auto), the output in binding 1, and binding 2 written then destroyed.
uint32_t RunOverLimit(VkHarness& h, bool* ok) {
  VkDevice d = h.device();
  *ok = false;
  std::vector<HostBuffer> buffers;
  std::vector<VkDescriptorBufferInfo> infos;
  for (uint32_t i = 0; i < 40; ++i) {
    buffers.push_back(h.CreateHostBuffer(16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT));
    static_cast<uint32_t*>(buffers.back().mapped)[0] = 3 * i + 1;
    infos.push_back({buffers.back().buffer, 0, VK_WHOLE_SIZE});
  }
  HostBuffer out = h.CreateHostBuffer(16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  std::memset(out.mapped, 0, 16);
  HostBuffer dead = h.CreateHostBuffer(16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  infos.push_back({out.buffer, 0, VK_WHOLE_SIZE});
  infos.push_back({dead.buffer, 0, VK_WHOLE_SIZE});

  VkDescriptorSetLayoutBinding b[3] = {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 40, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                                       {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                                       {2, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}};
  VkDescriptorSetLayoutCreateInfo dslci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  dslci.bindingCount = 3;
  dslci.pBindings = b;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  vkCreateDescriptorSetLayout(d, &dslci, nullptr, &set_layout);
  VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  plci.setLayoutCount = 1;
  plci.pSetLayouts = &set_layout;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  vkCreatePipelineLayout(d, &plci, nullptr, &layout);
  VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  smci.codeSize = sizeof(many_buffers_comp);
  smci.pCode = many_buffers_comp;
  VkShaderModule module = VK_NULL_HANDLE;
  vkCreateShaderModule(d, &smci, nullptr, &module);
  VkComputePipelineCreateInfo cpci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  cpci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpci.stage.module = module;
  cpci.stage.pName = "main";
  cpci.layout = layout;
  VkPipeline pipeline = VK_NULL_HANDLE;
  const bool created = vkCreateComputePipelines(d, VK_NULL_HANDLE, 1, &cpci, nullptr, &pipeline) == VK_SUCCESS;
  VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 42};
  VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dpci.maxSets = 1;
  dpci.poolSizeCount = 1;
  dpci.pPoolSizes = &size;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  vkCreateDescriptorPool(d, &dpci, nullptr, &pool);
  VkDescriptorSetAllocateInfo dsai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  dsai.descriptorPool = pool;
  dsai.descriptorSetCount = 1;
  dsai.pSetLayouts = &set_layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  vkAllocateDescriptorSets(d, &dsai, &set);
  VkWriteDescriptorSet w[3] = {{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET}, {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET},
                               {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET}};
  for (uint32_t i = 0; i < 3; ++i) {
    w[i].dstSet = set;
    w[i].dstBinding = i;
    w[i].descriptorCount = i == 0 ? 40 : 1;
    w[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    w[i].pBufferInfo = &infos[i == 0 ? 0 : 39 + i];
  }
  vkUpdateDescriptorSets(d, 3, w, 0, nullptr);
  h.Destroy(dead);
  if (created) {
    VkCommandBuffer cb = h.BeginCommands();
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, nullptr);
    vkCmdDispatch(cb, 1, 1, 1);
    HostBarrier(cb);
    *ok = h.SubmitAndWait(cb) == VK_SUCCESS;
  }
  const uint32_t got = static_cast<const uint32_t*>(out.mapped)[0];
  vkDestroyPipeline(d, pipeline, nullptr);
  vkDestroyShaderModule(d, module, nullptr);
  vkDestroyDescriptorPool(d, pool, nullptr);
  vkDestroyPipelineLayout(d, layout, nullptr);
  vkDestroyDescriptorSetLayout(d, set_layout, nullptr);
  for (HostBuffer& x : buffers) h.Destroy(x);
  h.Destroy(out);
  return got;
}

class DestroyedBindingOverLimit : public testing::TestWithParam<const char*> {};

TEST_P(DestroyedBindingOverLimit, TheRewrittenPipelineIgnoresTheDeadBinding) {
  if (std::string(GetParam()) == "auto") {
    ScopedEnv off("BINDERY_INDIRECT_BINDINGS", "off");
    VkHarness probe;
    ASSERT_TRUE(probe.ok()) << probe.error();
    VkPhysicalDeviceProperties props{};
    vkGetPhysicalDeviceProperties(probe.physical_device(), &props);
    if (props.limits.maxPerStageDescriptorStorageBuffers >= 42) {
      GTEST_SKIP() << "the driver allows " << props.limits.maxPerStageDescriptorStorageBuffers
                   << " storage buffers per stage: 42 is within its limits";
    }
  }
  ScopedEnv bindings("BINDERY_INDIRECT_BINDINGS", GetParam());
  ScopedEnv level("BINDERY_LOG_LEVEL", "info");
  auto owned = std::make_unique<VkHarness>();
  VkHarness& h = *owned;
  ASSERT_TRUE(h.ok()) << h.error();
  uint32_t expected = 0;
  for (uint32_t i = 0; i < 40; ++i) expected += (3 * i + 1) * (i + 1);
  bool ok = false;
  EXPECT_EQ(RunOverLimit(h, &ok), expected);
  EXPECT_TRUE(ok);
  h.DestroyDevice();
  EXPECT_VALIDATION_SILENT(h);
  EXPECT_NE(Summary(h).find("pipelines rewritten 1, fallen back 0"), std::string::npos) << Summary(h);
}

INSTANTIATE_TEST_SUITE_P(Modes, DestroyedBindingOverLimit, testing::Values("force", "auto"),
                         [](const testing::TestParamInfo<const char*>& i) { return std::string(i.param); });

}  // namespace
}  // namespace bindery::test
