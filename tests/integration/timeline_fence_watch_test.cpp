// Fence watches on demand (docs/timeline.md, "Fences"): an application fence the layer sends
// down gets a watch (a fence-only submission of the layer's own, which the queue's
// completion thread reports to a wait-any over parked and driver fences) only once the
// device has parked work with a fence. Before, every fenced submit under emulation paid that
// second vkQueueSubmit (~7 us per submit on the H100: the driver-floor rows with fences read
// 1.65x native).
#include "integration/timeline_rig.h"

namespace bindery::test {
namespace {

constexpr uint64_t kSecond = 1'000'000'000ull;
constexpr int kSubmits = 8;

class TimelineFenceWatch : public ::testing::TestWithParam<TimelineConfig> {};

uint64_t Watches(TimelineRig& rig) {
  const std::string summary = rig.DestroyDeviceForSummary();
  EXPECT_NE(summary.find("fence watches"), std::string::npos) << summary;
  return SummaryCounter(summary, "fence watches");
}

VkFence NewFence(TimelineRig& rig) {
  VkFenceCreateInfo info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence f = VK_NULL_HANDLE;
  EXPECT_EQ(vkCreateFence(rig.device, &info, nullptr, &f), VK_SUCCESS);
  return f;
}

void WaitAndReset(TimelineRig& rig, VkFence f) {
  ASSERT_EQ(vkWaitForFences(rig.device, 1, &f, VK_TRUE, 5 * kSecond), VK_SUCCESS);
  ASSERT_EQ(vkResetFences(rig.device, 1, &f), VK_SUCCESS);
}

// Plain fenced submits, fenced submits that signal a timeline, and round trips that park
// work without a fence: nothing the device has parked carries a fence, so no watch.
TEST_P(TimelineFenceWatch, FencedSubmitsGetNoWatchWhileNoFencedWorkWasParked) {
  TimelineRig rig(GetParam());
  ASSERT_TRUE(rig.ok()) << rig.h->error();
  VkFence fence = NewFence(rig);
  VkSemaphore a = rig.Timeline();
  VkSemaphore done = rig.Timeline();
  VkSemaphore binary = rig.Binary();
  for (int i = 0; i < kSubmits; ++i) {
    ASSERT_EQ(rig.Submit({}, {{binary, 0}}, VK_NULL_HANDLE, fence), VK_SUCCESS);  // pass-through
    WaitAndReset(rig, fence);
    ASSERT_EQ(rig.Submit({{binary, 0}}, {}, VK_NULL_HANDLE, fence), VK_SUCCESS);
    WaitAndReset(rig, fence);
  }
  for (uint64_t v = 1; v <= kSubmits; ++v) {
    ASSERT_EQ(rig.Submit({}, {{done, v}}, VK_NULL_HANDLE, fence), VK_SUCCESS);  // emulated, with a fence
    WaitAndReset(rig, fence);
  }
  for (uint64_t v = 1; v <= kSubmits; ++v) {  // parked, without a fence
    ASSERT_EQ(rig.Submit({{a, v}}, {{done, kSubmits + v}}), VK_SUCCESS);
    ASSERT_EQ(rig.Signal(a, v), VK_SUCCESS);
    ASSERT_EQ(rig.Wait({{done, kSubmits + v}}, 5 * kSecond), VK_SUCCESS);
  }
  EXPECT_EQ(vkQueueWaitIdle(rig.queue), VK_SUCCESS);
  vkDestroyFence(rig.device, fence, nullptr);
  rig.ExpectClean();
  EXPECT_EQ(Watches(rig), 0u) << "a fenced submit was followed by a watch on a device that never parked fenced work";
}

// Once fenced work is parked, a wait-any may mix its fence with driver fences: the queue's
// last fence is watched at the park, the parked fence when it goes down, and every fenced
// submit after.
TEST_P(TimelineFenceWatch, FencedWorkParkedStartsTheWatches) {
  TimelineRig rig(GetParam());
  ASSERT_TRUE(rig.ok()) << rig.h->error();
  VkFence before = NewFence(rig);
  VkFence parked = NewFence(rig);
  VkFence after = NewFence(rig);
  VkSemaphore gate = rig.Timeline();
  ASSERT_EQ(rig.Submit({}, {}, VK_NULL_HANDLE, before), VK_SUCCESS);  // the queue's last fence
  ASSERT_EQ(rig.Submit({{gate, 1}}, {}, VK_NULL_HANDLE, parked), VK_SUCCESS);
  EXPECT_EQ(vkGetFenceStatus(rig.device, parked), VK_NOT_READY);
  ASSERT_EQ(rig.Signal(gate, 1), VK_SUCCESS);
  const VkFence both[2] = {before, parked};
  ASSERT_EQ(vkWaitForFences(rig.device, 2, both, VK_TRUE, 5 * kSecond), VK_SUCCESS);
  for (int i = 0; i < kSubmits; ++i) {
    ASSERT_EQ(rig.Submit({}, {}, VK_NULL_HANDLE, after), VK_SUCCESS);
    WaitAndReset(rig, after);
  }
  EXPECT_EQ(vkQueueWaitIdle(rig.queue), VK_SUCCESS);
  for (VkFence f : {before, parked, after}) vkDestroyFence(rig.device, f, nullptr);
  rig.ExpectClean();
  EXPECT_EQ(Watches(rig), 2u + kSubmits) << "the last fence at the park, the parked fence, each fenced submit after";
}

INSTANTIATE_TEST_SUITE_P(Configs, TimelineFenceWatch,
                         ::testing::Values(TimelineConfig::kForce, TimelineConfig::kNoTimelineDriver), ConfigName);

}  // namespace
}  // namespace bindery::test
