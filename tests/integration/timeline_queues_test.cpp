// Wait-before-signal across queues (docs/timeline.md), in both configurations: a queue parks a
// submission waiting a value that another queue's later submission signals, the reverse,
// and a chain that goes A -> B -> A. Data written on one queue is read on the other
// (the timeline's dependency orders memory, not just execution). Needs a device with two
// queues (two of one family, else two families with compute): the H100 has them; over
// lavapipe, which has one, tests/no_timeline_layer stands in a second backed by it.
#include <chrono>
#include <cstring>
#include <thread>

#include "integration/timeline_rig.h"

namespace bindery::test {
namespace {

constexpr uint64_t kSecond = 1'000'000'000ull;

class TimelineQueues : public ::testing::TestWithParam<TimelineConfig> {
 protected:
  void SetUp() override {
    RigOptions options;
    options.queue_count = 2;
    options.shared_queues = 2;  // over lavapipe, tests/no_timeline_layer stands in the second
    rig = std::make_unique<TimelineRig>(GetParam(), options);
    ASSERT_TRUE(rig->ok()) << rig->h->error();
    if (rig->h->queue_count() < 2) {
      GTEST_SKIP() << "the device has one queue with compute (lavapipe): wait-before-signal across queues needs two";
    }
  }
  void TearDown() override {
    if (rig != nullptr && rig->ok() && !HasFailure() && !IsSkipped()) rig->ExpectClean();
  }
  VkQueue Q(uint32_t i) const { return rig->h->queue_at(i); }

  // The queue `waiter` parks a copy that waits s = 1; the queue `signaller` later fills
  // the source and signals s = 1, which releases the copy.
  void WaiterParksUntilTheOtherQueueSignals(uint32_t waiter, uint32_t signaller) {
    VkSemaphore s = rig->Timeline();
    VkSemaphore done = rig->Timeline();
    HostBuffer src = rig->h->CreateHostBuffer(4096, VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
    HostBuffer dst = rig->h->CreateHostBuffer(4096, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    std::memset(dst.mapped, 0, 4096);
    ASSERT_EQ(rig->Submit({{s, 1}}, {{done, 1}}, rig->Copy(src, dst, waiter), VK_NULL_HANDLE, Q(waiter)), VK_SUCCESS);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(rig->Value(done), 0u) << "the parked copy ran before its wait was signalled";
    ASSERT_EQ(rig->Submit({}, {{s, 1}}, rig->Fill(src, 0x600d0000u + signaller, signaller), VK_NULL_HANDLE,
                          Q(signaller)),
              VK_SUCCESS);
    ASSERT_EQ(rig->Wait({{done, 1}}, 5 * kSecond), VK_SUCCESS);
    EXPECT_EQ(TimelineRig::Word(dst, 1023), 0x600d0000u + signaller);
    EXPECT_EQ(vkQueueWaitIdle(Q(0)), VK_SUCCESS);
    EXPECT_EQ(vkQueueWaitIdle(Q(1)), VK_SUCCESS);
    rig->h->Destroy(src);
    rig->h->Destroy(dst);
  }

  std::unique_ptr<TimelineRig> rig;
};

TEST_P(TimelineQueues, SecondQueueParksUntilALaterSubmissionOfTheFirstSignals) {
  WaiterParksUntilTheOtherQueueSignals(1, 0);
}

TEST_P(TimelineQueues, FirstQueueParksUntilALaterSubmissionOfTheSecondSignals) {
  WaiterParksUntilTheOtherQueueSignals(0, 1);
}

// A1 (parked behind a host gate) fills X and signals s = 1; B waits s = 1, copies X to Y,
// signals s = 2; A2 (behind A1 on queue A) waits s = 2, copies Y to Z, signals s = 3. All
// three are submitted before the gate opens: each waits a value not pending yet.
TEST_P(TimelineQueues, ChainFromTheFirstQueueToTheSecondAndBack) {
  VkSemaphore gate = rig->Timeline();
  VkSemaphore s = rig->Timeline();
  const VkBufferUsageFlags usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
  HostBuffer x = rig->h->CreateHostBuffer(4096, usage);
  HostBuffer y = rig->h->CreateHostBuffer(4096, usage);
  HostBuffer z = rig->h->CreateHostBuffer(4096, usage);
  std::memset(z.mapped, 0, 4096);
  ASSERT_EQ(rig->Submit({{gate, 1}}, {{s, 1}}, rig->Fill(x, 0xa1b2c3d4u, 0), VK_NULL_HANDLE, Q(0)), VK_SUCCESS);
  ASSERT_EQ(rig->Submit({{s, 1}}, {{s, 2}}, rig->Copy(x, y, 1), VK_NULL_HANDLE, Q(1)), VK_SUCCESS);
  ASSERT_EQ(rig->Submit({{s, 2}}, {{s, 3}}, rig->Copy(y, z, 0), VK_NULL_HANDLE, Q(0)), VK_SUCCESS);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(rig->Value(s), 0u);
  EXPECT_EQ(rig->Wait({{s, 1}}, 10'000'000), VK_TIMEOUT);
  ASSERT_EQ(rig->Signal(gate, 1), VK_SUCCESS);
  ASSERT_EQ(rig->Wait({{s, 3}}, 5 * kSecond), VK_SUCCESS);
  EXPECT_EQ(TimelineRig::Word(z, 0), 0xa1b2c3d4u);
  EXPECT_EQ(TimelineRig::Word(z, 1023), 0xa1b2c3d4u);
  EXPECT_EQ(vkDeviceWaitIdle(rig->device), VK_SUCCESS);
  rig->h->Destroy(x);
  rig->h->Destroy(y);
  rig->h->Destroy(z);
}

INSTANTIATE_TEST_SUITE_P(Configs, TimelineQueues,
                         ::testing::Values(TimelineConfig::kForce, TimelineConfig::kNoTimelineDriver), ConfigName);

}  // namespace
}  // namespace bindery::test
