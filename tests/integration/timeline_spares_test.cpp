// Spares on demand (docs/timeline.md, "Spares on demand"), in both configurations: a point
// gets a spare binary semaphore only once its timeline semaphore has had a second device
// waiter of a point. The second waiter of a point that got none waits for the point's
// completion (no deadlock, no lost work, the data it reads is the signaller's), in the
// same driver call as the point's signal and across queues; later points relay as before.
#include <chrono>
#include <cstring>
#include <thread>

#include "integration/timeline_rig.h"

namespace bindery::test {
namespace {

constexpr uint64_t kSecond = 1'000'000'000ull;
constexpr VkBufferUsageFlags kUsage = VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;

class TimelineSpares : public ::testing::TestWithParam<TimelineConfig> {};

// One vkQueueSubmit of three batches: the first fills X and signals s = value, the next two
// each wait s = value and copy X into their own buffer, signalling d[i] = value.
VkResult SubmitSignalAndTwoWaiters(TimelineRig& rig, VkSemaphore s, uint64_t value, const VkSemaphore d[2],
                                   const HostBuffer& x, const HostBuffer* out[2], uint32_t pattern) {
  VkCommandBuffer fill = rig.Fill(x, pattern);
  VkCommandBuffer copy[2] = {rig.Copy(x, *out[0]), rig.Copy(x, *out[1])};
  const uint64_t values[3] = {value, value, value};
  const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  VkTimelineSemaphoreSubmitInfo tl[3];
  VkSubmitInfo si[3];
  for (int i = 0; i < 3; ++i) {
    tl[i] = {VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    si[i] = {VK_STRUCTURE_TYPE_SUBMIT_INFO, &tl[i]};
    si[i].commandBufferCount = 1;
  }
  si[0].pCommandBuffers = &fill;
  si[0].signalSemaphoreCount = 1;
  si[0].pSignalSemaphores = &s;
  tl[0].signalSemaphoreValueCount = 1;
  tl[0].pSignalSemaphoreValues = &values[0];
  for (int i = 0; i < 2; ++i) {
    VkSubmitInfo& b = si[i + 1];
    b.pCommandBuffers = &copy[i];
    b.waitSemaphoreCount = 1;
    b.pWaitSemaphores = &s;
    b.pWaitDstStageMask = &stage;
    b.signalSemaphoreCount = 1;
    b.pSignalSemaphores = &d[i];
    tl[i + 1].waitSemaphoreValueCount = 1;
    tl[i + 1].pWaitSemaphoreValues = &values[1];
    tl[i + 1].signalSemaphoreValueCount = 1;
    tl[i + 1].pSignalSemaphoreValues = &values[2];
  }
  return vkQueueSubmit(rig.queue, 3, si, VK_NULL_HANDLE);
}

// The point is staged by the same driver call as both of its waiters: the first takes its
// direct semaphore, the second finds no spare. The call is built again with a spare (the
// semaphore now relays) and goes down whole; both copies see the fill.
TEST_P(TimelineSpares, TwoWaitersInTheCallThatSignalsThePoint) {
  TimelineRig rig(GetParam());
  ASSERT_TRUE(rig.ok()) << rig.h->error();
  VkSemaphore s = rig.Timeline();
  VkSemaphore d[2] = {rig.Timeline(), rig.Timeline()};
  HostBuffer x = rig.h->CreateHostBuffer(4096, kUsage);
  HostBuffer y = rig.h->CreateHostBuffer(4096, kUsage);
  HostBuffer z = rig.h->CreateHostBuffer(4096, kUsage);
  const HostBuffer* out[2] = {&y, &z};
  for (uint64_t v = 1; v <= 3; ++v) {  // the first without a spare, the later ones with
    std::memset(y.mapped, 0, 4096);
    std::memset(z.mapped, 0, 4096);
    const uint32_t pattern = 0x5a5e0000u + static_cast<uint32_t>(v);
    ASSERT_EQ(SubmitSignalAndTwoWaiters(rig, s, v, d, x, out, pattern), VK_SUCCESS);
    ASSERT_EQ(rig.Wait({{d[0], v}, {d[1], v}}, 5 * kSecond), VK_SUCCESS) << "round " << v << ": work was lost";
    EXPECT_EQ(TimelineRig::Word(y, 1023), pattern) << "round " << v;
    EXPECT_EQ(TimelineRig::Word(z, 1023), pattern) << "round " << v;
  }
  EXPECT_EQ(vkQueueWaitIdle(rig.queue), VK_SUCCESS);
  rig.h->Destroy(x);
  rig.h->Destroy(y);
  rig.h->Destroy(z);
  if (!HasFailure()) rig.ExpectClean();
}

// The point is pending at the driver and not reached (the test layer reads fences as
// unsignalled) when a second queue waits it after the first took its direct semaphore: the
// second parks until the point is known complete, then goes down waiting nothing and reads
// the fill. Its own later submissions stay behind it. The next points of the semaphore
// have spares: two waiters on two queues relay.
TEST_P(TimelineSpares, ASecondQueueWaitsForThePointsCompletion) {
  RigOptions options;
  options.queue_count = 2;
  options.shared_queues = 2;
  TimelineRig rig(GetParam(), options);
  ASSERT_TRUE(rig.ok()) << rig.h->error();
  if (rig.h->queue_count() < 2) GTEST_SKIP() << "the device offers fewer than two queues";
  auto unsignalled = rig.Below<BinderyNoTimelineFencesUnsignalledFn>("bindery_no_timeline_fences_unsignalled");
  ASSERT_NE(unsignalled, nullptr);
  VkSemaphore s = rig.Timeline();
  VkSemaphore d[2] = {rig.Timeline(), rig.Timeline()};
  VkSemaphore after = rig.Timeline();
  HostBuffer x = rig.h->CreateHostBuffer(4096, kUsage);
  HostBuffer y = rig.h->CreateHostBuffer(4096, kUsage);
  HostBuffer z = rig.h->CreateHostBuffer(4096, kUsage);
  HostBuffer w = rig.h->CreateHostBuffer(4096, kUsage);
  for (uint64_t v = 1; v <= 3; ++v) {  // the first without a spare, the later ones with
    std::memset(y.mapped, 0, 4096);
    std::memset(z.mapped, 0, 4096);
    std::memset(w.mapped, 0, 4096);
    const uint32_t pattern = 0xc0de0000u + static_cast<uint32_t>(v);
    unsignalled(1);
    ASSERT_EQ(rig.Submit({}, {{s, v}}, rig.Fill(x, pattern, 0), VK_NULL_HANDLE, rig.h->queue_at(0)), VK_SUCCESS);
    ASSERT_EQ(rig.Submit({{s, v}}, {{d[0], v}}, rig.Copy(x, y, 0), VK_NULL_HANDLE, rig.h->queue_at(0)), VK_SUCCESS);
    ASSERT_EQ(rig.Submit({{s, v}}, {{d[1], v}}, rig.Copy(x, z, 1), VK_NULL_HANDLE, rig.h->queue_at(1)), VK_SUCCESS);
    // Behind it on its queue, waiting nothing itself: queue order holds.
    ASSERT_EQ(rig.Submit({{d[1], v}}, {{after, v}}, rig.Copy(z, w, 1), VK_NULL_HANDLE, rig.h->queue_at(1)),
              VK_SUCCESS);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    unsignalled(0);
    ASSERT_EQ(rig.Wait({{d[0], v}, {d[1], v}, {after, v}}, 5 * kSecond), VK_SUCCESS)
        << "round " << v << ": work was lost";
    EXPECT_EQ(TimelineRig::Word(y, 1023), pattern) << "round " << v;
    EXPECT_EQ(TimelineRig::Word(z, 1023), pattern) << "round " << v;
    EXPECT_EQ(TimelineRig::Word(w, 1023), pattern) << "round " << v;
  }
  EXPECT_EQ(vkDeviceWaitIdle(rig.device), VK_SUCCESS);
  rig.h->Destroy(x);
  rig.h->Destroy(y);
  rig.h->Destroy(z);
  rig.h->Destroy(w);
  if (!HasFailure()) rig.ExpectClean();
}

// Once a semaphore of the device has needed a relay, semaphores created after it start
// with spares: their second waiter relays at once (no wait for the point's completion,
// which would show as the completion thread's driver fence wait). One created before
// still waits for completion the first time (the control: that path does wait fences).
TEST_P(TimelineSpares, SemaphoresCreatedAfterARelayStartWithSpares) {
  RigOptions options;
  options.queue_count = 2;
  options.shared_queues = 2;
  TimelineRig rig(GetParam(), options);
  ASSERT_TRUE(rig.ok()) << rig.h->error();
  if (rig.h->queue_count() < 2) GTEST_SKIP() << "the device offers fewer than two queues";
  auto unsignalled = rig.Below<BinderyNoTimelineFencesUnsignalledFn>("bindery_no_timeline_fences_unsignalled");
  auto wait_calls = rig.Below<BinderyNoTimelineWaitForFencesCallsFn>("bindery_no_timeline_wait_for_fences_calls");
  ASSERT_TRUE(unsignalled != nullptr && wait_calls != nullptr);
  HostBuffer x = rig.h->CreateHostBuffer(4096, kUsage);
  HostBuffer y = rig.h->CreateHostBuffer(4096, kUsage);
  HostBuffer z = rig.h->CreateHostBuffer(4096, kUsage);
  VkSemaphore before = rig.Timeline();
  uint64_t round = 0;
  // s = 1 signalled and waited on queue 0, then waited on queue 1, the point held pending
  // (the layer's fence reads never answer "signalled"); returns the driver fence waits the
  // layer made meanwhile, after `settle`.
  auto second_waiter = [&](VkSemaphore s, std::chrono::milliseconds settle, bool until_a_wait) {
    ++round;
    const uint32_t pattern = 0x5ba40000u + static_cast<uint32_t>(round);
    VkSemaphore d[2] = {rig.Timeline(), rig.Timeline()};
    std::memset(y.mapped, 0, 4096);
    std::memset(z.mapped, 0, 4096);
    unsignalled(1);
    const uint32_t calls_before = wait_calls();
    EXPECT_EQ(rig.Submit({}, {{s, 1}}, rig.Fill(x, pattern, 0), VK_NULL_HANDLE, rig.h->queue_at(0)), VK_SUCCESS);
    EXPECT_EQ(rig.Submit({{s, 1}}, {{d[0], 1}}, rig.Copy(x, y, 0), VK_NULL_HANDLE, rig.h->queue_at(0)), VK_SUCCESS);
    EXPECT_EQ(rig.Submit({{s, 1}}, {{d[1], 1}}, rig.Copy(x, z, 1), VK_NULL_HANDLE, rig.h->queue_at(1)), VK_SUCCESS);
    const auto deadline = std::chrono::steady_clock::now() + settle;
    while (std::chrono::steady_clock::now() < deadline && !(until_a_wait && wait_calls() != calls_before)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    const uint32_t calls = wait_calls() - calls_before;
    unsignalled(0);
    EXPECT_EQ(rig.Wait({{d[0], 1}, {d[1], 1}}, 5 * kSecond), VK_SUCCESS) << "round " << round << ": work was lost";
    EXPECT_EQ(TimelineRig::Word(y, 1023), pattern) << "round " << round;
    EXPECT_EQ(TimelineRig::Word(z, 1023), pattern) << "round " << round;
    return calls;
  };
  VkSemaphore first = rig.Timeline();
  EXPECT_GE(second_waiter(first, std::chrono::seconds(5), true), 1u)
      << "the second waiter of a point without a spare did not wait for its completion";
  VkSemaphore after = rig.Timeline();
  EXPECT_EQ(second_waiter(after, std::chrono::milliseconds(20), false), 0u)
      << "a semaphore created after a relay was needed has no spare";
  EXPECT_GE(second_waiter(before, std::chrono::seconds(5), true), 1u)
      << "a semaphore created before any relay was needed got a spare";
  EXPECT_EQ(vkDeviceWaitIdle(rig.device), VK_SUCCESS);
  rig.h->Destroy(x);
  rig.h->Destroy(y);
  rig.h->Destroy(z);
  if (!HasFailure()) rig.ExpectClean();
}

INSTANTIATE_TEST_SUITE_P(Configs, TimelineSpares,
                         ::testing::Values(TimelineConfig::kForce, TimelineConfig::kNoTimelineDriver), ConfigName);

}  // namespace
}  // namespace bindery::test
