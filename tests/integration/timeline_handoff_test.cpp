// Wait-before-signal without thread hand-offs (docs/timeline.md, "Latency"): work parked
// behind an unsignalled timeline wait is released by the thread whose signal makes it ready
// (vkSignalSemaphore, or a submit on another queue), and the queue's submit thread is not
// woken to look at it, neither when it parks nor when it is released. Each such wake-up was
// a context switch in the emulated round trip, which on one core (the benchmark pinned)
// made it 1.5x native on the H100. The layer counts the submit thread's looks in its
// summary ("submit-thread looks"); before this, every park made one.
#include "integration/timeline_rig.h"

namespace bindery::test {
namespace {

constexpr uint64_t kSecond = 1'000'000'000ull;
constexpr uint64_t kRounds = 64;

class TimelineHandoff : public ::testing::TestWithParam<TimelineConfig> {};

uint64_t Looks(TimelineRig& rig) {
  const std::string summary = rig.DestroyDeviceForSummary();
  EXPECT_NE(summary.find("submit-thread looks"), std::string::npos) << summary;
  return SummaryCounter(summary, "submit-thread looks");
}

// The benchmark's round trip: a submit waiting a value of A (parked: nothing signals it
// yet), the host signal of that value, a host wait of the value the submit signals.
TEST_P(TimelineHandoff, AHostSignalReleasesParkedWorkWithoutTheSubmitThread) {
  TimelineRig rig(GetParam());
  ASSERT_TRUE(rig.ok()) << rig.h->error();
  VkSemaphore a = rig.Timeline();
  VkSemaphore done = rig.Timeline();
  for (uint64_t v = 1; v <= kRounds; ++v) {
    ASSERT_EQ(rig.Submit({{a, v}}, {{done, v}}), VK_SUCCESS);
    ASSERT_EQ(rig.Signal(a, v), VK_SUCCESS);
    ASSERT_EQ(rig.Wait({{done, v}}, 5 * kSecond), VK_SUCCESS) << "round " << v;
  }
  EXPECT_EQ(vkQueueWaitIdle(rig.queue), VK_SUCCESS);
  rig.ExpectClean();
  // The submit thread is started by the first park and looks once then; nothing after.
  EXPECT_LE(Looks(rig), 2u) << "the submit thread was woken to look at work the host signal released";
}

// The same released by a submit on a second queue that signals the value.
TEST_P(TimelineHandoff, ASubmitOnAnotherQueueReleasesParkedWorkWithoutTheSubmitThread) {
  RigOptions options;
  options.queue_count = 2;
  options.shared_queues = 2;
  TimelineRig rig(GetParam(), options);
  ASSERT_TRUE(rig.ok()) << rig.h->error();
  if (rig.h->queue_count() < 2) GTEST_SKIP() << "the device offers fewer than two queues";
  VkSemaphore a = rig.Timeline();
  VkSemaphore done = rig.Timeline();
  for (uint64_t v = 1; v <= kRounds; ++v) {
    ASSERT_EQ(rig.Submit({{a, v}}, {{done, v}}, VK_NULL_HANDLE, VK_NULL_HANDLE, rig.h->queue_at(0)), VK_SUCCESS);
    ASSERT_EQ(rig.Submit({}, {{a, v}}, VK_NULL_HANDLE, VK_NULL_HANDLE, rig.h->queue_at(1)), VK_SUCCESS);
    ASSERT_EQ(rig.Wait({{done, v}}, 5 * kSecond), VK_SUCCESS) << "round " << v;
  }
  EXPECT_EQ(vkDeviceWaitIdle(rig.device), VK_SUCCESS);
  rig.ExpectClean();
  EXPECT_LE(Looks(rig), 2u) << "the submit thread was woken to look at work another queue's submit released";
}

INSTANTIATE_TEST_SUITE_P(Configs, TimelineHandoff,
                         ::testing::Values(TimelineConfig::kForce, TimelineConfig::kNoTimelineDriver), ConfigName);

}  // namespace
}  // namespace bindery::test
