// Randomized stress of the timeline emulation: threads x semaphores, random orders of host
// and device signals and waits (device waits often before their signal exists). Checks
// that values only rise, that nothing deadlocks (every wait has a deadline) and that no
// signal is lost (each semaphore ends at the last value signalled). Runs under
// ThreadSanitizer in CI (scripts/test).
#include <atomic>
#include <cstdlib>
#include <random>
#include <thread>

#include "integration/timeline_rig.h"

namespace bindery::test {
namespace {

class TimelineStress : public ::testing::TestWithParam<TimelineConfig> {};

TEST_P(TimelineStress, RandomHostAndDeviceSignalsAndWaits) {
  TimelineRig rig(GetParam());
  ASSERT_TRUE(rig.ok()) << rig.h->error();
  constexpr int kThreads = 4;
  constexpr int kSemaphores = 8;
  // Operations in all: BINDERY_STRESS_OPS (default 100000).
  const char* env = std::getenv("BINDERY_STRESS_OPS");
  const long total_ops = env != nullptr ? std::atol(env) : 100000;
  std::vector<VkSemaphore> sems;
  for (int i = 0; i < kSemaphores; ++i) sems.push_back(rig.Timeline());
  // Semaphores 0..3 are signalled only by the host, 4..7 only by the device (a host
  // signal may not pass a pending device signal of the same semaphore); each has one
  // owning thread, so values rise. Every thread waits on any semaphore, on the host or on
  // the device; device waits on host semaphores are often one ahead (wait-before-signal).
  constexpr int kHostSemaphores = kSemaphores / 2;
  std::vector<std::atomic<uint64_t>> signalled(kSemaphores);
  for (auto& s : signalled) s = 0;
  std::mutex queue_mutex;  // the queue is externally synchronized
  std::atomic<long> ops{0};
  std::atomic<int> failures{0};
  auto worker = [&](int t) {
    std::mt19937 rng(1234 + t);
    const int host_own = t % kHostSemaphores;
    const int device_own = kHostSemaphores + t % (kSemaphores - kHostSemaphores);
    uint64_t last_seen[kSemaphores] = {};
    while (ops.fetch_add(1) < total_ops && failures.load() == 0) {
      const int kind = static_cast<int>(rng() % 10);
      const int any = static_cast<int>(rng() % kSemaphores);
      if (kind < 3) {  // host signal
        std::lock_guard<std::mutex> lock(queue_mutex);  // one signaller per value
        const uint64_t v = signalled[host_own].load() + 1;
        if (rig.Signal(sems[host_own], v) != VK_SUCCESS) failures++;
        signalled[host_own] = v;
      } else if (kind < 6) {  // device: wait a value of any semaphore, signal own
        std::lock_guard<std::mutex> lock(queue_mutex);
        const bool host_sem = any < kHostSemaphores;
        const uint64_t wait = signalled[any].load() + (host_sem ? rng() % 2 : 0);
        const uint64_t v = signalled[device_own].load() + 1;
        std::vector<TimelineRig::Op> waits;
        if (any != device_own && wait > 0) waits.push_back({sems[any], wait});
        if (rig.Submit(waits, {{sems[device_own], v}}) != VK_SUCCESS) failures++;
        signalled[device_own] = v;
      } else if (kind < 9) {  // host read and zero-timeout wait: values never go down
        uint64_t v = 0;
        if (vkGetSemaphoreCounterValue(rig.device, sems[any], &v) != VK_SUCCESS) failures++;
        if (v < last_seen[any]) {
          ADD_FAILURE() << "value went down: " << v << " after " << last_seen[any];
          failures++;
        }
        last_seen[any] = v;
        if (rig.Wait({{sems[any], v}}, 0) != VK_SUCCESS) failures++;
      } else {  // wait-any over a host semaphore and any other, for values already signalled
        const int host = static_cast<int>(rng() % kHostSemaphores);
        const VkResult r = rig.Wait({{sems[host], signalled[host].load()}, {sems[any], signalled[any].load()}},
                                    20ull * 1'000'000'000, true);
        if (r != VK_SUCCESS) {
          ADD_FAILURE() << "wait-any failed: " << r;
          failures++;
        }
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(worker, t);
  for (auto& th : threads) th.join();
  ASSERT_EQ(failures.load(), 0);
  // One-ahead device waits may still be parked: the host semaphores go one past the end
  // (above every value waited), then everything must drain.
  for (int i = 0; i < kHostSemaphores; ++i) {
    ASSERT_EQ(rig.Signal(sems[i], signalled[i].load() + 1), VK_SUCCESS);
    signalled[i] = signalled[i].load() + 1;
  }
  EXPECT_EQ(vkQueueWaitIdle(rig.queue), VK_SUCCESS);
  for (int i = 0; i < kSemaphores; ++i) {
    EXPECT_EQ(rig.Value(sems[i]), signalled[i].load()) << "semaphore " << i << ": a signal was lost";
  }
  if (!HasFailure()) rig.ExpectClean();
}

INSTANTIATE_TEST_SUITE_P(Configs, TimelineStress,
                         ::testing::Values(TimelineConfig::kForce, TimelineConfig::kNoTimelineDriver), ConfigName);

}  // namespace
}  // namespace bindery::test
