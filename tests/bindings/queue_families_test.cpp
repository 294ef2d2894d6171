// The layer's own buffers (argument blocks, the ring, staging) are read from whatever queue
// the application submits to: one converted set dispatched on queues of two families, one
// after the other, gives the same results as without the layer, validation silent (the
// layer creates those buffers with concurrent sharing, so no ownership transfer is due).
// Skips on devices with one queue family with compute (lavapipe).
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "integration/test_env.h"
#include "twin_copy_comp.h"
#include "support/vk_objects.h"

namespace bindery::test {
namespace {

constexpr uint32_t kWords = 256;
constexpr VkDeviceSize kBytes = kWords * 4;

// Two families with compute: {first, second}; second == UINT32_MAX when there is one.
std::pair<uint32_t, uint32_t> ComputeFamilies(VkPhysicalDevice physical) {
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, families.data());
  std::pair<uint32_t, uint32_t> found{UINT32_MAX, UINT32_MAX};
  for (uint32_t i = 0; i < count; ++i) {
    if ((families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) == 0) continue;
    if (found.first == UINT32_MAX) {
      found.first = i;
    } else if (found.second == UINT32_MAX) {
      found.second = i;
    }
  }
  return found;
}

struct FamiliesRun : ModeRunResult {
  std::vector<uint32_t> out;  // the second dispatch's destination after both queues ran
};

FamiliesRun RunOnTwoFamilies(const char* mode, uint32_t first_family, uint32_t queues_in_first) {
  HarnessOptions options;
  options.queue_family = first_family;
  options.queue_count = queues_in_first + 1;  // all of the first family, then one of another
  return RunWithBindings<FamiliesRun>(mode, options, [&](VkHarness& h, FamiliesRun& run) {
    uint32_t other = 0;
    for (uint32_t i = 1; i < h.queue_count() && other == 0; ++i) {
      if (h.queue_family_at(i) != h.queue_family()) other = i;
    }
    EXPECT_NE(other, 0u) << "no queue of a second family";
    if (other == 0) return;
    ComputeKernel k = h.CreateKernel(twin_copy_comp, sizeof(twin_copy_comp), 2);
    HostBuffer src = h.CreateHostBuffer(kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer mid = h.CreateHostBuffer(kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer dst = h.CreateHostBuffer(kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    for (uint32_t i = 0; i < kWords; ++i) static_cast<uint32_t*>(src.mapped)[i] = 11 * i + 5;
    std::memset(mid.mapped, 0, kBytes);
    std::memset(dst.mapped, 0, kBytes);
    VkDescriptorSet first = h.AllocateStorageSet(k, {src.buffer, mid.buffer});
    VkDescriptorSet second = h.AllocateStorageSet(k, {mid.buffer, dst.buffer});
    // The same two sets on each family: first on queue 0's family, then on the other's.
    for (uint32_t q : {0u, other}) {
      VkCommandBuffer cb = h.BeginCommands(q);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.pipeline);
      for (VkDescriptorSet set : {first, second}) {
        vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.layout, 0, 1, &set, 0, nullptr);
        vkCmdDispatch(cb, kWords / 64, 1, 1);
        RecordMemoryBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_HOST_READ_BIT);
      }
      EXPECT_EQ(h.SubmitAndWait(cb, q), VK_SUCCESS);
    }
    const uint32_t* p = static_cast<const uint32_t*>(dst.mapped);
    run.out.assign(p, p + kWords);
    for (HostBuffer* b : {&src, &mid, &dst}) h.Destroy(*b);
    h.Destroy(k);
  });
}

TEST(BindingsQueueFamilies, OneSetOnQueuesOfTwoFamilies) {
  uint32_t first = UINT32_MAX, second = UINT32_MAX, queues_in_first = 0;
  {
    VkHarness probe;
    ASSERT_TRUE(probe.ok()) << probe.error();
    std::tie(first, second) = ComputeFamilies(probe.physical_device());
    uint32_t count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(probe.physical_device(), &count, nullptr);
    std::vector<VkQueueFamilyProperties> families(count);
    vkGetPhysicalDeviceQueueFamilyProperties(probe.physical_device(), &count, families.data());
    if (first != UINT32_MAX) queues_in_first = families[first].queueCount;
  }
  if (second == UINT32_MAX) GTEST_SKIP() << "the device has one queue family with compute";
  const FamiliesRun native = RunOnTwoFamilies("off", first, queues_in_first);
  const FamiliesRun forced = RunOnTwoFamilies("force", first, queues_in_first);
  ASSERT_TRUE(native.error.empty()) << native.error;
  ASSERT_TRUE(forced.error.empty()) << forced.error;
  EXPECT_TRUE(native.validation.empty()) << native.validation;
  EXPECT_TRUE(forced.validation.empty()) << forced.validation;
  ASSERT_EQ(native.out.size(), kWords);
  for (uint32_t i = 0; i < kWords; ++i) ASSERT_EQ(native.out[i], ((11 * i + 5) * 2 + 1) * 2 + 1) << i;
  EXPECT_EQ(native.out, forced.out);
}

}  // namespace
}  // namespace bindery::test
