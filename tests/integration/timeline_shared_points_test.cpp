// Several queues waiting on the same timeline points from several threads: device points
// held back behind host gates (wait-before-signal), waited by every queue, released
// together when a gate opens; meanwhile threads open gates and read values. Many queues
// relay the same point at once: a queue that finds the point's spare being relayed
// by another queue's call that has not gone down yet must park, never fail, never drop.
// Checks every submission succeeds, values only rise, and every signal arrives.
// Over lavapipe (one queue) tests/no_timeline_layer stands in several queues backed by
// the driver's; the H100 has its own. Runs under ThreadSanitizer in CI (scripts/test).
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <random>
#include <thread>

#include "integration/timeline_rig.h"

namespace bindery::test {
namespace {

constexpr uint64_t kSecond = 1'000'000'000ull;

class TimelineSharedPoints : public ::testing::TestWithParam<TimelineConfig> {};

TEST_P(TimelineSharedPoints, QueuesOfSeveralThreadsWaitOnTheSamePoints) {
  constexpr uint32_t kThreads = 4;
  constexpr int kGates = 2;
  constexpr int kHubs = 2;
  constexpr uint64_t kWindow = 256;  // own submissions between backlog checks
  RigOptions options;
  options.queue_count = kThreads;
  options.shared_queues = kThreads;
  TimelineRig rig(GetParam(), options);
  ASSERT_TRUE(rig.ok()) << rig.h->error();
  const uint32_t queues = rig.h->queue_count();
  if (queues < 2) GTEST_SKIP() << "the device offers one queue: several queues are what this test is about";
  // Operations in all: BINDERY_STRESS_OPS (default 100000).
  const char* env = std::getenv("BINDERY_STRESS_OPS");
  const long total_ops = env != nullptr ? std::atol(env) : 100000;

  // Gates: host-signalled. Hubs: hub h is signalled by thread h's queue, by submissions
  // that wait a gate value not signalled yet (parked). Every thread's queue waits the
  // latest hub points: when a gate opens, a hub point goes down and every queue parked on
  // it is released at once, the first through the point's direct semaphore and the others
  // relaying its spare, concurrently.
  std::vector<VkSemaphore> gates, hubs, own;
  for (int g = 0; g < kGates; ++g) gates.push_back(rig.Timeline());
  for (int h = 0; h < kHubs; ++h) hubs.push_back(rig.Timeline());
  for (uint32_t t = 0; t < kThreads; ++t) own.push_back(rig.Timeline());
  std::vector<std::atomic<uint64_t>> gate_value(kGates), hub_value(kHubs), own_value(kThreads);
  for (auto& v : gate_value) v = 0;
  for (auto& v : hub_value) v = 0;
  for (auto& v : own_value) v = 0;
  std::vector<std::mutex> gate_mutex(kGates);   // one signaller per gate value
  std::vector<std::mutex> queue_mutex(queues);  // queues are externally synchronized
  std::atomic<long> ops{0};
  std::atomic<long> submits{0};
  std::atomic<int> failures{0};

  auto submit = [&](uint32_t q, const std::vector<TimelineRig::Op>& waits, VkSemaphore signal,
                    std::atomic<uint64_t>& value) {
    std::lock_guard<std::mutex> lock(queue_mutex[q]);
    const uint64_t v = value.load() + 1;
    const VkResult r = rig.Submit(waits, {{signal, v}}, VK_NULL_HANDLE, VK_NULL_HANDLE, rig.h->queue_at(q));
    if (r != VK_SUCCESS) {
      ADD_FAILURE() << "vkQueueSubmit on queue " << q << " failed: " << r;
      failures++;
    }
    value = v;
    submits++;
  };
  auto worker = [&](uint32_t t) {
    std::mt19937 rng(4321 + t);
    const uint32_t q = t % queues;
    uint64_t last_seen[kHubs] = {};
    while (ops.fetch_add(1) < total_ops && failures.load() == 0) {
      const int kind = static_cast<int>(rng() % 10);
      const int g = static_cast<int>(rng() % kGates);
      const int h = static_cast<int>(rng() % kHubs);
      if (kind < 2 && t < static_cast<uint32_t>(kHubs)) {  // a hub point behind a closed gate
        submit(q, {{gates[g], gate_value[g].load() + 1}}, hubs[t], hub_value[t]);
      } else if (kind < 6) {  // wait the latest point of a hub (often parked), signal the own semaphore
        std::vector<TimelineRig::Op> waits;
        if (hub_value[h].load() > 0) waits.push_back({hubs[h], hub_value[h].load()});
        submit(q, waits, own[t], own_value[t]);
        if (own_value[t].load() % kWindow == 0) {
          // Bound the backlog as an application would: open every gate, then wait for
          // the own work of one window ago (it waits only points behind those gates).
          for (int i = 0; i < kGates; ++i) {
            std::lock_guard<std::mutex> lock(gate_mutex[i]);
            const uint64_t v = gate_value[i].load() + 1;
            if (rig.Signal(gates[i], v) != VK_SUCCESS) failures++;
            gate_value[i] = v;
          }
          if (rig.Wait({{own[t], own_value[t].load() - kWindow / 2}}, 60 * kSecond) != VK_SUCCESS) {
            ADD_FAILURE() << "thread " << t << ": its own work of a window ago never completed";
            failures++;
          }
        }
      } else if (kind < 8) {  // open a gate
        std::lock_guard<std::mutex> lock(gate_mutex[g]);
        const uint64_t v = gate_value[g].load() + 1;
        if (rig.Signal(gates[g], v) != VK_SUCCESS) failures++;
        gate_value[g] = v;
      } else {  // host read: values never go down
        uint64_t v = 0;
        if (vkGetSemaphoreCounterValue(rig.device, hubs[h], &v) != VK_SUCCESS) failures++;
        if (v < last_seen[h]) {
          ADD_FAILURE() << "value went down: " << v << " after " << last_seen[h];
          failures++;
        }
        last_seen[h] = v;
      }
    }
  };
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < kThreads; ++t) threads.emplace_back(worker, t);
  for (auto& th : threads) th.join();
  ASSERT_EQ(failures.load(), 0);
  // Open every gate past every value waited: all parked work must go down and signal.
  for (int g = 0; g < kGates; ++g) ASSERT_EQ(rig.Signal(gates[g], gate_value[g].load() + 1), VK_SUCCESS);
  for (uint32_t t = 0; t < kThreads; ++t) {
    EXPECT_EQ(rig.Wait({{own[t], own_value[t].load()}}, 60 * kSecond), VK_SUCCESS)
        << "thread " << t << ": parked work was lost (its signal never came)";
    EXPECT_EQ(rig.Value(own[t]), own_value[t].load());
  }
  for (int h = 0; h < kHubs; ++h) EXPECT_EQ(rig.Value(hubs[h]), hub_value[h].load());
  EXPECT_EQ(vkDeviceWaitIdle(rig.device), VK_SUCCESS);
  std::printf("[ shared points ] %u queues, %u threads, %ld operations, %ld submissions\n", queues, kThreads,
              total_ops, submits.load());
  if (!HasFailure()) rig.ExpectClean();
}

// The window itself, forced: queue B finds a point ready, then stops in its release
// (tests/no_timeline_layer holds the vkCreateFence of B's first release); queue A relays
// the same point's spare and stops in its driver submit (held too), so the spare is
// signalled by a call the driver does not have yet; B goes on. B must park (its
// vkQueueSubmit succeeds) and go down once A's call does. The point stays pending (not
// reached) throughout: the test layer answers "not ready" for every fence meanwhile.
TEST_P(TimelineSharedPoints, AQueueThatFindsThePointBeingRelayedByAnotherParks) {
  RigOptions options;
  options.queue_count = 3;
  options.shared_queues = 3;
  TimelineRig rig(GetParam(), options);
  ASSERT_TRUE(rig.ok()) << rig.h->error();
  if (rig.h->queue_count() < 3) GTEST_SKIP() << "the device offers fewer than three queues";
  auto hold = rig.Below<BinderyNoTimelineHoldFn>("bindery_no_timeline_hold");
  auto holding = rig.Below<BinderyNoTimelineHoldingFn>("bindery_no_timeline_holding");
  auto let_go = rig.Below<BinderyNoTimelineHoldFn>("bindery_no_timeline_let_go");
  ASSERT_TRUE(hold != nullptr && holding != nullptr && let_go != nullptr);
  auto wait_held = [&](int kind) {
    for (int i = 0; i < 5000 && (holding() & kind) == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return (holding() & kind) != 0;
  };
  VkSemaphore s = rig.Timeline();
  VkSemaphore done[3] = {rig.Timeline(), rig.Timeline(), rig.Timeline()};
  auto unsignalled = rig.Below<BinderyNoTimelineFencesUnsignalledFn>("bindery_no_timeline_fences_unsignalled");
  ASSERT_NE(unsignalled, nullptr);
  // Points get spares only on a semaphore that has had a second device waiter of a point:
  // s = 1, held pending, waited on queues 0 and 1 (the second waits for the point's
  // completion), so the point below has a spare to relay. Queue 2 stays unused (its first
  // release creates its fence, where the test holds it).
  VkSemaphore warm[2] = {rig.Timeline(), rig.Timeline()};
  unsignalled(1);
  ASSERT_EQ(rig.Submit({}, {{s, 1}}, VK_NULL_HANDLE, VK_NULL_HANDLE, rig.h->queue_at(0)), VK_SUCCESS);
  ASSERT_EQ(rig.Submit({{s, 1}}, {{warm[0], 1}}, VK_NULL_HANDLE, VK_NULL_HANDLE, rig.h->queue_at(0)), VK_SUCCESS);
  ASSERT_EQ(rig.Submit({{s, 1}}, {{warm[1], 1}}, VK_NULL_HANDLE, VK_NULL_HANDLE, rig.h->queue_at(1)), VK_SUCCESS);
  unsignalled(0);
  ASSERT_EQ(rig.Wait({{warm[0], 1}, {warm[1], 1}}, 5 * kSecond), VK_SUCCESS);
  // The layer's fences read as unsignalled: s = 2 stays pending, never reached.
  unsignalled(1);
  // s = 2 pending at the driver, not reached; queue 0 takes its direct semaphore.
  ASSERT_EQ(rig.Submit({}, {{s, 2}}, VK_NULL_HANDLE, VK_NULL_HANDLE, rig.h->queue_at(0)), VK_SUCCESS);
  ASSERT_EQ(rig.Submit({{s, 2}}, {{done[0], 1}}, VK_NULL_HANDLE, VK_NULL_HANDLE, rig.h->queue_at(0)), VK_SUCCESS);

  hold(kHoldCreateFence);
  std::atomic<int> b_result{1};
  std::thread b([&] {
    b_result = rig.Submit({{s, 2}}, {{done[2], 1}}, VK_NULL_HANDLE, VK_NULL_HANDLE, rig.h->queue_at(2));
  });
  ASSERT_TRUE(wait_held(kHoldCreateFence)) << "queue 2's release never asked for its fence";
  hold(kHoldQueueSubmit);
  std::atomic<int> a_result{1};
  std::thread a([&] {
    a_result = rig.Submit({{s, 2}}, {{done[1], 1}}, VK_NULL_HANDLE, VK_NULL_HANDLE, rig.h->queue_at(1));
  });
  const bool a_held = wait_held(kHoldQueueSubmit);
  let_go(kHoldCreateFence);
  b.join();
  EXPECT_TRUE(a_held) << "queue 1's relay never reached the driver";
  EXPECT_EQ(b_result.load(), VK_SUCCESS) << "a queue that found the point being relayed failed instead of parking";
  let_go(kHoldQueueSubmit);
  a.join();
  EXPECT_EQ(a_result.load(), VK_SUCCESS);
  unsignalled(0);
  for (VkSemaphore d : done) {
    EXPECT_EQ(rig.Wait({{d, 1}}, 5 * kSecond), VK_SUCCESS) << "parked work was lost";
  }
  EXPECT_EQ(vkDeviceWaitIdle(rig.device), VK_SUCCESS);
  if (!HasFailure()) rig.ExpectClean();
}

INSTANTIATE_TEST_SUITE_P(Configs, TimelineSharedPoints,
                         ::testing::Values(TimelineConfig::kForce, TimelineConfig::kNoTimelineDriver), ConfigName);

}  // namespace
}  // namespace bindery::test
