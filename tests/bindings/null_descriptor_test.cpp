// robustness2.nullDescriptor without robustBufferAccess2: a null storage-buffer descriptor
// reads 0 (its length too) and drops writes, as natively. The rewritten shader would
// otherwise follow address 0. Forced vs off: identical results, validation silent.
//
// Second case: a pipeline running natively statically uses a partially bound dynamic
// storage buffer the application never wrote, bound with a nonzero dynamic offset (valid:
// only a range set with VK_WHOLE_SIZE needs offset 0, VUID-vkCmdBindDescriptorSets-
// pDescriptorSets-06715). The layer's full set holds a null descriptor there (range
// VK_WHOLE_SIZE), so that offset must go down as 0 — until the application writes the
// binding: then its offset again.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "integration/test_env.h"
#include "null_dynamic_refused_comp.h"
#include "robust_probe_comp.h"
#include "support/vk_objects.h"

namespace bindery::test {
namespace {

struct Output : ModeRunResult {
  std::vector<uint32_t> res;
};

// robust_probe.comp with its input and output descriptors null: res = {len_in, len_out,
// reads[64]}.
Output RunNull(const char* mode) {
  VkPhysicalDeviceRobustness2FeaturesEXT robustness2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT};
  robustness2.nullDescriptor = VK_TRUE;
  HarnessOptions options;
  options.device_pnext = &robustness2;
  options.device_extensions = {VK_EXT_ROBUSTNESS_2_EXTENSION_NAME};
  return RunWithBindings<Output>(mode, options, [&](VkHarness& h, Output& o) {
    ComputeKernel k = h.CreateKernel(robust_probe_comp, sizeof(robust_probe_comp), 3);
    HostBuffer res = h.CreateHostBuffer((2 + 64) * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    std::memset(res.mapped, 0xff, (2 + 64) * 4);
    VkDescriptorSet set = h.AllocateStorageSet(k, {VK_NULL_HANDLE, VK_NULL_HANDLE, res.buffer});
    if (k.pipeline == VK_NULL_HANDLE || set == VK_NULL_HANDLE) o.error = "kernel or set not created";
    if (o.error.empty()) {
      VkCommandBuffer cb = h.BeginCommands();
      RecordDispatch(cb, k.pipeline, k.layout, {set});
      BarrierToHost(cb);
      if (h.SubmitAndWait(cb) != VK_SUCCESS) o.error = "submit failed";
      const uint32_t* p = static_cast<const uint32_t*>(res.mapped);
      o.res.assign(p, p + 2 + 64);
    }
    h.Destroy(res);
    h.Destroy(k);
  });
}

TEST(BindingsNullDescriptor, ANullStorageBufferReadsZeroAndDropsWrites) {
  const Output native = RunNull("off");
  if (native.error.find("vkCreateDevice") != std::string::npos) {
    GTEST_SKIP() << "no VK_EXT_robustness2 nullDescriptor: " << native.error;
  }
  const Output forced = RunNull("force");
  ASSERT_TRUE(native.error.empty()) << native.error;
  ASSERT_TRUE(forced.error.empty()) << forced.error;
  EXPECT_TRUE(native.validation.empty()) << native.validation;
  EXPECT_TRUE(forced.validation.empty()) << forced.validation;
  EXPECT_NE(forced.summary.find("pipelines rewritten 1"), std::string::npos) << forced.summary;
  ASSERT_EQ(native.res.size(), 66u);
  for (uint32_t i = 0; i < 66; ++i) EXPECT_EQ(native.res[i], 0u) << "word " << i;
  EXPECT_EQ(forced.res, native.res);
}

struct DynamicOutput {
  std::string error, validation, summary;
  std::vector<uint32_t> out;
};

DynamicOutput RunUnwrittenDynamic(const char* mode) {
  ScopedEnv bindings("BINDERY_INDIRECT_BINDINGS", mode);
  ScopedEnv level("BINDERY_LOG_LEVEL", "info");
  DynamicOutput o;
  VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  v12.descriptorBindingPartiallyBound = VK_TRUE;
  VkPhysicalDeviceRobustness2FeaturesEXT robustness2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT, &v12};
  robustness2.nullDescriptor = VK_TRUE;
  HarnessOptions options;
  options.device_pnext = &robustness2;
  options.device_extensions = {VK_EXT_ROBUSTNESS_2_EXTENSION_NAME};
  auto owned = std::make_unique<VkHarness>(options);
  VkHarness& h = *owned;
  if (!h.ok()) {
    o.error = h.error();
    return o;
  }
  const VkDevice d = h.device();
  constexpr uint32_t kWords = 64;
  constexpr uint32_t kDynamicOffset = 256;
  const VkDescriptorSetLayoutBinding bindings_info[3] = {
      {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
      {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
      {2, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}};
  const VkDescriptorBindingFlags flags[3] = {0, 0, VK_DESCRIPTOR_BINDING_PARTIALLY_BOUND_BIT};
  VkDescriptorSetLayoutBindingFlagsCreateInfo flags_info{
      VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_BINDING_FLAGS_CREATE_INFO};
  flags_info.bindingCount = 3;
  flags_info.pBindingFlags = flags;
  VkDescriptorSetLayoutCreateInfo slci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, &flags_info};
  slci.bindingCount = 3;
  slci.pBindings = bindings_info;
  ObjectBag bag(d);
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  vkCreateDescriptorSetLayout(d, &slci, nullptr, &set_layout);
  bag.Keep(set_layout);
  const VkPipelineLayout layout = bag.Keep(CreatePipelineLayout(d, {set_layout}));
  const VkPipeline pipeline =
      bag.Keep(CreateComputePipeline(d, layout, null_dynamic_refused_comp, sizeof(null_dynamic_refused_comp)));
  const VkDescriptorPool pool = bag.Keep(CreateDescriptorPool(
      d, 1, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3}, {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, 1}}));
  const VkDescriptorSet set = AllocateSet(d, pool, set_layout);
  HostBuffer in = h.CreateHostBuffer(2 * kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  HostBuffer out = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  HostBuffer dyn = h.CreateHostBuffer(kDynamicOffset + kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  for (uint32_t i = 0; i < kWords; ++i) {
    static_cast<uint32_t*>(dyn.mapped)[i] = 5000 + i;  // what offset 0 would read
    static_cast<uint32_t*>(dyn.mapped)[kDynamicOffset / 4 + i] = 1000 + i;
  }
  for (uint32_t i = 0; i < 2 * kWords; ++i) static_cast<uint32_t*>(in.mapped)[i] = 3 * i + 1;
  std::memset(out.mapped, 0, kWords * 4);
  if (pipeline == VK_NULL_HANDLE || set == VK_NULL_HANDLE) o.error = "pipeline or set not created";
  if (o.error.empty()) {
    // Binding 2 stays unwritten.
    const VkDescriptorBufferInfo infos[3] = {
        {in.buffer, 0, kWords * 4}, {in.buffer, kWords * 4, kWords * 4}, {out.buffer, 0, VK_WHOLE_SIZE}};
    const VkWriteDescriptorSet w[2] = {BufferWrite(set, 0, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, infos, 2),
                                       BufferWrite(set, 1, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &infos[2])};
    vkUpdateDescriptorSets(d, 2, w, 0, nullptr);
    VkCommandBuffer cb = h.BeginCommands();
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 1, &kDynamicOffset);
    vkCmdDispatch(cb, kWords / 64, 1, 1);
    BarrierToHost(cb);
    if (h.SubmitAndWait(cb) != VK_SUCCESS) o.error = "submit failed";
    const uint32_t* p = static_cast<const uint32_t*>(out.mapped);
    o.out.assign(p, p + kWords);
    // Then the application writes binding 2 and the even words take the branch that reads
    // it: the offset must now reach the driver as the application gave it.
    for (uint32_t i = 0; i < kWords; i += 2) static_cast<uint32_t*>(in.mapped)[i] = 0xdeadbeefu;
    const VkDescriptorBufferInfo dyn_info{dyn.buffer, 0, kWords * 4};
    VkWriteDescriptorSet dw{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    dw.dstSet = set;
    dw.dstBinding = 2;
    dw.descriptorCount = 1;
    dw.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC;
    dw.pBufferInfo = &dyn_info;
    vkUpdateDescriptorSets(d, 1, &dw, 0, nullptr);
    cb = h.BeginCommands();
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 1, &kDynamicOffset);
    vkCmdDispatch(cb, kWords / 64, 1, 1);
    BarrierToHost(cb);
    if (h.SubmitAndWait(cb) != VK_SUCCESS) o.error = "second submit failed";
    o.out.insert(o.out.end(), p, p + kWords);
  }
  h.Destroy(dyn);
  h.Destroy(in);
  h.Destroy(out);
  bag.DestroyAll();
  h.DestroyDevice();
  o.validation = VkHarness::Format(h.ValidationProblems());
  for (const Message& m : h.BinderyMessages()) {
    if (m.id == "BINDERY-summary") o.summary = m.text;
  }
  return o;
}

TEST(BindingsNullDescriptor, AnUnwrittenDynamicBufferOfAPipelineRunningNativelyKeepsAnyOffsetValid) {
  const DynamicOutput native = RunUnwrittenDynamic("off");
  if (native.error.find("vkCreateDevice") != std::string::npos) {
    GTEST_SKIP() << "no nullDescriptor or descriptorBindingPartiallyBound: " << native.error;
  }
  const DynamicOutput forced = RunUnwrittenDynamic("force");
  ASSERT_TRUE(native.error.empty()) << native.error;
  ASSERT_TRUE(forced.error.empty()) << forced.error;
  EXPECT_TRUE(native.validation.empty()) << native.validation;
  EXPECT_TRUE(forced.validation.empty()) << forced.validation;
  EXPECT_NE(forced.summary.find("fallen back 1"), std::string::npos) << forced.summary;
  ASSERT_EQ(native.out.size(), 128u);
  for (uint32_t i = 0; i < 64; ++i) {
    const uint32_t in1 = 3 * (i + 64) + 1;
    EXPECT_EQ(native.out[i], (3 * i + 1) + 2 * in1) << "word " << i;
    const uint32_t second = i % 2 == 0 ? 0xdeadbeefu + 2 * in1 + (1000 + i) : (3 * i + 1) + 2 * in1;
    EXPECT_EQ(native.out[64 + i], second) << "second dispatch, word " << i;
  }
  EXPECT_EQ(forced.out, native.out);
}

}  // namespace
}  // namespace bindery::test
