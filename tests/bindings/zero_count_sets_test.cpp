// A set layout whose bindings left native all hold no descriptors (descriptorCount 0, as the
// conformance suite's random descriptor-set tests declare unused types) is root-only: it frees
// its set number like a layout of converted bindings alone. With every set of the driver in
// use (lavapipe binds 8) and push constants over the device's whole space, the root can then
// still go to the reserved set, and the pipeline is rewritten instead of falling back (or, for
// a layout beyond the driver's limits, failing to be created: seen as VK_ERROR_OUT_OF_DEVICE_MEMORY
// in dEQP-VK.binding_model.descriptorset_random.sets8.unifindexed.*.sbolimithigh.*).
// Forced vs off: byte-identical, validation with sync validation silent.
#include <gtest/gtest.h>

#include <cstring>

#include "integration/test_env.h"
#include "support/vk_objects.h"
#include "zero_count_sets_comp.h"

namespace bindery::test {
namespace {

constexpr uint32_t kWords = 256;
constexpr uint32_t kSets = 8;

struct Output : ModeRunResult {
  uint32_t bound_sets = 0;
  std::vector<uint32_t> out;
};

Output RunInMode(const char* mode) {
  return RunWithBindings<Output>(mode, HarnessOptions{}, [&](VkHarness& h, Output& o) {
    VkDevice d = h.device();
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(h.physical_device(), &props);
    o.bound_sets = props.limits.maxBoundDescriptorSets;
    const uint32_t push_bytes = props.limits.maxPushConstantsSize;
    std::vector<HostBuffer> buffers;
    for (uint32_t s = 0; s < kSets; ++s) {
      buffers.push_back(h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT));
      for (uint32_t i = 0; i < kWords; ++i) static_cast<uint32_t*>(buffers[s].mapped)[i] = s == kSets - 1 ? 0 : 100 * s + i;
    }
    ObjectBag bag(d);
    // Binding 1: a storage image binding of no descriptors, never read.
    const VkDescriptorSetLayout set_layout =
        bag.Keep(CreateSetLayout(d, {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                                     {1, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 0, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}}));
    const std::vector<VkDescriptorSetLayout> set_layouts(kSets, set_layout);
    const VkPipelineLayout layout = bag.Keep(CreatePipelineLayout(d, set_layouts, push_bytes));
    const VkPipeline pipeline = bag.Keep(CreateComputePipeline(d, layout, zero_count_sets_comp, sizeof(zero_count_sets_comp)));
    if (pipeline == VK_NULL_HANDLE) o.error = "pipeline creation failed";
    const VkDescriptorPool pool = bag.Keep(CreateDescriptorPool(d, kSets, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kSets}}));
    std::vector<VkDescriptorSet> sets(kSets);
    const VkDescriptorSetAllocateInfo dsai = SetAllocateInfo(pool, kSets, set_layouts.data());
    if (vkAllocateDescriptorSets(d, &dsai, sets.data()) != VK_SUCCESS) o.error = "set allocation failed";
    std::vector<VkDescriptorBufferInfo> infos(kSets);
    std::vector<VkWriteDescriptorSet> writes(kSets, {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET});
    for (uint32_t s = 0; s < kSets; ++s) {
      infos[s] = {buffers[s].buffer, 0, VK_WHOLE_SIZE};
      writes[s].dstSet = sets[s];
      writes[s].descriptorCount = 1;
      writes[s].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      writes[s].pBufferInfo = &infos[s];
    }
    if (o.error.empty()) {
      vkUpdateDescriptorSets(d, kSets, writes.data(), 0, nullptr);
      std::vector<uint32_t> push(push_bytes / 4);
      for (uint32_t i = 0; i < push.size(); ++i) push[i] = i % 32 + 1;
      VkCommandBuffer cb = h.BeginCommands();
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
      vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes, push.data());
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, kSets, sets.data(), 0, nullptr);
      vkCmdDispatch(cb, kWords / 64, 1, 1);
      BarrierToHost(cb);
      if (h.SubmitAndWait(cb) != VK_SUCCESS) o.error = "submit failed";
      const uint32_t* out = static_cast<const uint32_t*>(buffers[kSets - 1].mapped);
      o.out.assign(out, out + kWords);
    }
    bag.DestroyAll();
    for (HostBuffer& b : buffers) h.Destroy(b);
  });
}

TEST(BindingsZeroCountBindings, ASetOfEmptyNativeBindingsIsRootOnly) {
  const Output native = RunInMode("off");
  if (native.bound_sets < kSets) GTEST_SKIP() << "the driver binds " << native.bound_sets << " sets, the test needs 8";
  const Output forced = RunInMode("force");
  ASSERT_BOTH_RAN_SILENTLY(native, forced);
  ASSERT_EQ(native.out.size(), kWords);
  for (uint32_t i = 0; i < kWords; ++i) {
    uint32_t sum = 0;
    const uint32_t weights[7] = {1, 2, 3, 5, 7, 11, 13};
    for (uint32_t s = 0; s < 7; ++s) sum += weights[s] * (100 * s + i);
    ASSERT_EQ(native.out[i], sum * (i % 32 + 1)) << i;
  }
  EXPECT_EQ(native.out, forced.out);
  // Rewritten: where the driver binds exactly 8 sets, only because the empty bindings left
  // every set root-only, so the reserved set could take the root.
  EXPECT_EQ(SummaryCounter(forced.summary, "pipelines rewritten"), 1u) << forced.summary;
  EXPECT_EQ(SummaryCounter(forced.summary, "fallen back"), 0u) << forced.summary;
}

}  // namespace
}  // namespace bindery::test
