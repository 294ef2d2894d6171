// One emulated timeline semaphore: its completed value and the time points that are
// pending on the device (signalled by a submission the driver has).
//
// Who owns what:
// - A Submission is one driver vkQueueSubmit call the timeline capability made with its own
//   fence; it is shared (reference-counted) by the time points it signals, by host waiters
//   blocked on its fence, and by its queue's in-flight list, which recycles the fence and
//   the binary semaphores the submission waited on once it is complete and unreferenced.
// - A TimePoint is a value some pending submission will signal. Its `direct` semaphore is
//   signalled by the point's own batch: the first device waiter consumes it (no extra
//   batch, no false dependency: it is signalled exactly when the point is reached).
// - Its `spare`, only on semaphores that have needed one (`relays`), is a second binary
//   semaphore signalled once the point is reached, that nobody has waited yet: a later
//   device wait on the point consumes the spare in a relay batch that signals a fresh spare
//   plus the waiter's own binary semaphore (binary semaphores are single-wait; the relay
//   lets any number of waiters use one point, each released as soon as the point is
//   reached). A point without a spare whose direct semaphore is taken can still be waited:
//   the waiter parks until the point's submission is known complete, then waits nothing
//   (see docs/timeline.md, "Spares on demand"). A signal costs the driver something per
//   binary semaphore, so the common chain (one device waiter per point) sends one.
// - The semaphore's mutex guards `value` and `points`; it is never held across a call
//   that blocks (host waits copy the Submission reference and wait without it).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include <vulkan/vulkan.h>

namespace bindery::timeline {

struct QueueTimelines;

// Queues a host signal can find without a lock (TimelineSemaphore::parked_queues is a mask).
constexpr uint32_t kIndexedQueues = 64;
constexpr uint32_t kUnindexedQueue = UINT32_MAX;

struct Submission {
  VkFence fence = VK_NULL_HANDLE;
  QueueTimelines* queue = nullptr;
  std::atomic<bool> submitted{false};  // the driver has it (its signals may be waited)
  std::atomic<bool> complete{false};
  // A host waiter needs to know when this completes: whoever sees it complete first wakes
  // the waiters (the queue's completion thread blocks on the fence for them).
  std::atomic<bool> wanted{false};
  // Binary semaphores this submission waited on: unsignalled again once it is complete.
  std::vector<VkSemaphore> waited;
  // A fence-only submission the layer makes right after an application fence went down on
  // the same queue (its "watch"): fences of one queue signal in submission order, so when
  // this one is complete the application's fence is signalled. Host waiters wake on it
  // through the completion thread, which never waits on the application's fence itself.
  // Read and written under the queue's mutex.
  VkFence watched = VK_NULL_HANDLE;
};
using SubmissionRef = std::shared_ptr<Submission>;

struct Spare {
  VkSemaphore semaphore = VK_NULL_HANDLE;
  SubmissionRef signaller;  // the submission whose batch signals it
};

struct TimePoint {
  uint64_t value = 0;
  SubmissionRef submission;  // signals the value
  Spare spare;  // null semaphore: none was signalled (the semaphore had never needed one)
  // A second binary semaphore the point's batch signals, for the first device waiter: it
  // waits it directly, with no relay batch (the common chain: each submission waits the
  // value the one before it signals). Null once taken; later waiters relay `spare`.
  VkSemaphore direct = VK_NULL_HANDLE;
};

struct TimelineSemaphore {
  explicit TimelineSemaphore(VkSemaphore h, uint64_t initial) : handle(h), value(initial) {}

  const VkSemaphore handle;  // the application's handle: a real binary semaphore at the driver
  std::mutex mutex;
  uint64_t value;                 // reached: retired device points and host signals
  std::vector<TimePoint> points;  // pending on the device, increasing values
  // A device wait found a point whose direct semaphore was taken (a second waiter): from
  // then on every point of this semaphore gets a spare too. Never cleared; set at creation
  // once any semaphore of the device has needed it (DeviceTimelines::NeedsRelays).
  bool relays = false;
  // Queues (bits by QueueTimelines::index) that parked work waiting on this semaphore:
  // a host signal or a submission signalling it releases that work on its own thread.
  // Set under the queue's mutex when work parks, cleared under it once nothing is parked
  // there; a stale bit costs one look at the queue.
  std::atomic<uint64_t> parked_queues{0};
};
using SemaphoreRef = std::shared_ptr<TimelineSemaphore>;

}  // namespace bindery::timeline
