// The reserved-set ring (docs/indirect-bindings.md, "The root"). The application's push-constant range fills all
// of maxPushConstantsSize, so the root of its converted sets (set 0: two storage buffers;
// set 1: a dynamic storage buffer, whose offset travels in the root) cannot go after it:
// the pipeline must still be rewritten, its shader reading the root from a reserved set
// bound with a dynamic offset into the command buffer's ring. Two dispatches with
// different sets, dynamic offsets and push constants in one command buffer each see their
// own root (a slot is never rewritten once a dispatch may read it). Forced vs off:
// byte-identical, validation with sync validation silent.
//
// Second case: a pipeline using only set 0 of that layout, whose second dispatch finds set
// 0 bound through a smaller layout (set 0 only, the same push-constant range: compatible
// for set 0, so valid for the application) — whose own reserved set sits at index 1. The
// draw must put the pipeline's reserved set (index 2) back, with the new set 0's root.
// (Lavapipe maps both reserved sets to the same storage-buffer slot and validation 1.3.239
// does not flag the disturbed set, so there this checks the re-bind's result and its
// validity; a driver that honours the disturbance reads a stale root without it.)
#include <gtest/gtest.h>

#include <cstring>

#include "integration/test_env.h"
#include "ring_root_comp.h"
#include "ring_root_set0_comp.h"
#include "support/vk_objects.h"

namespace bindery::test {
namespace {

constexpr uint32_t kWords = 256;

struct Output : ModeRunResult {
  uint32_t push_bytes = 0;
  std::vector<uint32_t> out_a, out_b;
};

Output RunInMode(const char* mode, bool through_smaller_layout) {
  return RunWithBindings<Output>(mode, HarnessOptions{}, [&](VkHarness& h, Output& o) {
    VkDevice d = h.device();
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(h.physical_device(), &props);
    o.push_bytes = props.limits.maxPushConstantsSize;
    const uint32_t dyn_align = static_cast<uint32_t>(std::max<VkDeviceSize>(4, props.limits.minStorageBufferOffsetAlignment));
    const uint32_t dyn_second = ((kWords * 4 + dyn_align - 1) / dyn_align) * dyn_align;  // the second dynamic offset

    HostBuffer in_a = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer in_b = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer out_a = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer out_b = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer dyn = h.CreateHostBuffer(dyn_second + kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer ubo = h.CreateHostBuffer(16, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT);
    for (uint32_t i = 0; i < kWords; ++i) {
      static_cast<uint32_t*>(in_a.mapped)[i] = i + 3;
      static_cast<uint32_t*>(in_b.mapped)[i] = 9000 + 11 * i;
      static_cast<uint32_t*>(dyn.mapped)[i] = 1000000 + i;
      static_cast<uint32_t*>(dyn.mapped)[dyn_second / 4 + i] = 2000000 + 5 * i;
    }
    std::memset(out_a.mapped, 0, kWords * 4);
    std::memset(out_b.mapped, 0, kWords * 4);

    ObjectBag bag(d);
    const std::vector<VkDescriptorSetLayout> set_layouts = {
        bag.Keep(CreateSetLayout(d, {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                                     {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}})),
        // Set 1 also holds a native dynamic uniform buffer (unused by the shaders): the bind
        // splits its dynamic offsets between the root and the native bind.
        bag.Keep(CreateSetLayout(
            d, {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                {1, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}}))};
    const VkPipelineLayout layout = bag.Keep(CreatePipelineLayout(d, set_layouts, o.push_bytes));  // all of it
    // Compatible with `layout` for set 0.
    const VkPipelineLayout smaller = bag.Keep(CreatePipelineLayout(d, {set_layouts[0]}, o.push_bytes));
    const VkPipeline pipeline = bag.Keep(
        through_smaller_layout ? CreateComputePipeline(d, layout, ring_root_set0_comp, sizeof(ring_root_set0_comp))
                               : CreateComputePipeline(d, layout, ring_root_comp, sizeof(ring_root_comp)));
    if (pipeline == VK_NULL_HANDLE) o.error = "pipeline creation failed";

    const VkDescriptorPool pool = bag.Keep(CreateDescriptorPool(d, 3, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 4},
                                                                       {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, 1},
                                                                       {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, 1}}));
    VkDescriptorSetLayout alloc_layouts[3] = {set_layouts[0], set_layouts[0], set_layouts[1]};
    const VkDescriptorSetAllocateInfo dsai = SetAllocateInfo(pool, 3, alloc_layouts);
    VkDescriptorSet sets[3] = {};
    vkAllocateDescriptorSets(d, &dsai, sets);
    const VkDescriptorBufferInfo ubo_info{ubo.buffer, 0, 16};
    const VkDescriptorBufferInfo infos[5] = {{in_a.buffer, 0, VK_WHOLE_SIZE}, {out_a.buffer, 0, VK_WHOLE_SIZE},
                                             {in_b.buffer, 0, VK_WHOLE_SIZE}, {out_b.buffer, 0, kWords * 4},
                                             {dyn.buffer, 0, kWords * 4}};
    VkWriteDescriptorSet w[4] = {{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET}, {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET},
                                 {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET}, {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET}};
    for (uint32_t i = 0; i < 2; ++i) {
      w[i].dstSet = sets[i];
      w[i].descriptorCount = 2;
      w[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      w[i].pBufferInfo = &infos[2 * i];
    }
    w[2].dstSet = sets[2];
    w[2].descriptorCount = 1;
    w[2].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC;
    w[2].pBufferInfo = &infos[4];
    w[3] = w[2];
    w[3].dstBinding = 1;
    w[3].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC;
    w[3].pBufferInfo = &ubo_info;
    vkUpdateDescriptorSets(d, 4, w, 0, nullptr);

    if (o.error.empty()) {
      std::vector<uint32_t> push(o.push_bytes / 4);
      VkCommandBuffer cb = h.BeginCommands();
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
      for (uint32_t i = 0; i < push.size(); ++i) push[i] = i % 32 + 2;
      vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, o.push_bytes, push.data());
      const uint32_t first[2] = {0, 0};
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &sets[0], 0, nullptr);
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 1, 1, &sets[2], 2, first);
      vkCmdDispatch(cb, kWords / 64, 1, 1);  // out_a = in_a * (i % 32 + 2) + dyn[i]
      // New sets 0 and 1 in one bind (set 1 at the second dynamic offset), new constants.
      for (uint32_t i = 0; i < push.size(); ++i) push[i] = 3 * (i % 32) + 1;
      vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, o.push_bytes, push.data());
      if (through_smaller_layout) {
        vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, smaller, 0, 1, &sets[1], 0, nullptr);
      } else {
        const VkDescriptorSet both[2] = {sets[1], sets[2]};
        const uint32_t offsets[2] = {dyn_second, 0};
        vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 2, both, 2, offsets);
      }
      vkCmdDispatch(cb, kWords / 64, 1, 1);  // out_b = in_b * (3 (i % 32) + 1) + dyn[second + i] (or + 7)
      BarrierToHost(cb);
      if (h.SubmitAndWait(cb) != VK_SUCCESS) o.error = "submit failed";
      const uint32_t* a = static_cast<const uint32_t*>(out_a.mapped);
      const uint32_t* b = static_cast<const uint32_t*>(out_b.mapped);
      o.out_a.assign(a, a + kWords);
      o.out_b.assign(b, b + kWords);
    }
    bag.DestroyAll();
    for (HostBuffer* x : {&in_a, &in_b, &out_a, &out_b, &dyn, &ubo}) h.Destroy(*x);
  });
}

TEST(BindingsRingRoot, FullPushConstantsPutTheRootInTheReservedSet) {
  const Output native = RunInMode("off", false);
  const Output forced = RunInMode("force", false);
  ASSERT_BOTH_RAN_SILENTLY(native, forced);
  ASSERT_EQ(native.out_a.size(), kWords);
  for (uint32_t i = 0; i < kWords; ++i) {
    ASSERT_EQ(native.out_a[i], (i + 3) * (i % 32 + 2) + 1000000 + i) << i;
    ASSERT_EQ(native.out_b[i], (9000 + 11 * i) * (3 * (i % 32) + 1) + 2000000 + 5 * i) << i;
  }
  EXPECT_EQ(native.out_a, forced.out_a);
  EXPECT_EQ(native.out_b, forced.out_b);
  // Rewritten (not fallen back), with the root in the ring.
  EXPECT_EQ(SummaryCounter(forced.summary, "pipelines rewritten"), 1u) << forced.summary;
  EXPECT_EQ(SummaryCounter(forced.summary, "fallen back"), 0u) << forced.summary;
  EXPECT_GT(SummaryCounter(forced.summary, "root ring bytes"), 0u) << forced.summary;
  EXPECT_NE(SummaryCounter(forced.summary, "root ring bytes"), ~0ull) << forced.summary;
}

TEST(BindingsRingRoot, ABindThroughASmallerCompatibleLayoutReachesThePipeline) {
  const Output native = RunInMode("off", true);
  const Output forced = RunInMode("force", true);
  ASSERT_BOTH_RAN_SILENTLY(native, forced);
  ASSERT_EQ(native.out_a.size(), kWords);
  for (uint32_t i = 0; i < kWords; ++i) {
    ASSERT_EQ(native.out_a[i], (i + 3) * (i % 32 + 2) + 7) << i;
    ASSERT_EQ(native.out_b[i], (9000 + 11 * i) * (3 * (i % 32) + 1) + 7) << i;
  }
  EXPECT_EQ(native.out_a, forced.out_a);
  EXPECT_EQ(native.out_b, forced.out_b);
  EXPECT_EQ(SummaryCounter(forced.summary, "pipelines rewritten"), 1u) << forced.summary;
}

}  // namespace
}  // namespace bindery::test
