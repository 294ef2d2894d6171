// DeviceTimelines, fences: the application's fences whose submission (or present) is
// parked. The layer answers for them until the submit thread hands them to the driver (so
// the driver never sees a fence used by two threads at once: the submit thread's
// vkQueueSubmit and an application wait), and host waits on them never block in a layer
// thread. A wait-any over parked and driver fences sleeps on the change signal: each
// driver fence that went down through the layer is followed by a layer fence on its queue
// (its watch), whose completion the queue's completion thread reports. No layer thread
// ever waits on an application fence (docs/timeline_parked_work.md).
#include <algorithm>
#include <chrono>

#include "timeline/timeline_device.h"

namespace bindery::timeline {

void DeviceTimelines::ParkFence(VkFence fence, int delta) {
  if (fence == VK_NULL_HANDLE) return;
  std::lock_guard<std::mutex> lock(parked_fence_mutex_);
  uint32_t& n = parked_fences_[fence];
  n = static_cast<uint32_t>(static_cast<int>(n) + delta);
  if (n == 0) parked_fences_.erase(fence);
  parked_fence_count_.store(static_cast<uint32_t>(parked_fences_.size()), std::memory_order_release);
}

bool DeviceTimelines::FenceParked(VkFence fence) {
  if (parked_fence_count_.load(std::memory_order_acquire) == 0) return false;
  std::lock_guard<std::mutex> lock(parked_fence_mutex_);
  return parked_fences_.count(fence) != 0;
}

void DeviceTimelines::FenceSentDown(VkFence fence) {
  ParkFence(fence, -1);
  NotifyChange();  // fence waiters: it is the driver's now
}

VkResult DeviceTimelines::FenceStatus(VkFence fence) {
  // After a loss the fences of dropped parked work never reach the driver: lost, not "not ready".
  if (lost()) return VK_ERROR_DEVICE_LOST;
  if (FenceParked(fence)) return VK_NOT_READY;
  return next.GetFenceStatus(device.handle, fence);
}

VkResult DeviceTimelines::WaitForFences(uint32_t count, const VkFence* fences, VkBool32 all, uint64_t timeout) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    const uint64_t seen = Generation();
    uint32_t parked = 0;
    for (uint32_t i = 0; i < count; ++i) parked += FenceParked(fences[i]) ? 1 : 0;
    if (lost()) return VK_ERROR_DEVICE_LOST;
    const uint64_t spent = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
    const uint64_t left = timeout == UINT64_MAX ? UINT64_MAX : (spent >= timeout ? 0 : timeout - spent);
    // Every fence is the driver's now: the driver waits.
    if (parked == 0) return next.WaitForFences(device.handle, count, fences, all, left);
    if (!all && parked < count) {
      const VkResult r = WaitAnyMixed(count, fences, seen, left);
      if (r != VK_NOT_READY) return r;
      continue;
    }
    if (left == 0) return VK_TIMEOUT;
    WaitChange(seen, std::min<uint64_t>(left, 50'000'000));
  }
}

VkResult DeviceTimelines::WaitAnyMixed(uint32_t count, const VkFence* fences, uint64_t seen, uint64_t left) {
  // The parked fences cannot signal before they are sent down (which bumps the change
  // signal). A driver fence with a watch wakes the waiter when its watch completes. A
  // driver fence no submission of the layer carries (never submitted yet, acquired,
  // imported) can only be watched by the driver: those are waited there in short slices.
  constexpr uint64_t kUnwatchedSliceNs = 2'000'000;
  std::vector<VkFence> unwatched;
  for (uint32_t i = 0; i < count; ++i) {
    if (FenceParked(fences[i])) continue;
    VkResult r = next.GetFenceStatus(device.handle, fences[i]);
    if (r == VK_SUCCESS) return VK_SUCCESS;
    if (r != VK_NOT_READY) {
      if (r == VK_ERROR_DEVICE_LOST) MarkLost();
      return r;
    }
    SubmissionRef watch = FindWatch(fences[i]);
    if (watch != nullptr) {
      WantCompletion(watch);  // before looking at `complete`: one of the two sees the other
      if (!SubmissionComplete(*watch)) continue;
      // Complete: the fence signalled before it (queue order), unless it was reset since.
      r = next.GetFenceStatus(device.handle, fences[i]);
      if (r == VK_SUCCESS) return VK_SUCCESS;
    }
    unwatched.push_back(fences[i]);
  }
  if (left == 0) return VK_TIMEOUT;
  if (unwatched.empty()) {
    WaitChange(seen, left);
    return VK_NOT_READY;
  }
  const VkResult r = next.WaitForFences(device.handle, static_cast<uint32_t>(unwatched.size()), unwatched.data(),
                                        VK_FALSE, std::min<uint64_t>(left, kUnwatchedSliceNs));
  if (r != VK_TIMEOUT || left <= kUnwatchedSliceNs) return r;
  return VK_NOT_READY;
}

void DeviceTimelines::PassedThrough(QueueTimelines& q, VkFence fence, Route route) {
  if (fence != VK_NULL_HANDLE && watch_fences_.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(q.mutex);
    Sweep(q);
    q.last_fence.store(VK_NULL_HANDLE, std::memory_order_relaxed);
    WatchFenceLocked(q, fence, route);
    return;
  }
  // No watch yet (and none at all on a device that never parks fenced work): a plain fenced
  // submit stays one driver call. The fence is remembered until work follows it.
  if (fence != VK_NULL_HANDLE) q.last_fence_route.store(route, std::memory_order_relaxed);
  q.last_fence.store(fence, std::memory_order_release);
}

void DeviceTimelines::FenceAfterRelease(QueueTimelines& q, VkFence fence, Route route) {
  if (fence != VK_NULL_HANDLE && watch_fences_.load(std::memory_order_acquire)) {
    q.last_fence.store(VK_NULL_HANDLE, std::memory_order_relaxed);
    WatchFenceLocked(q, fence, route);
    return;
  }
  if (fence != VK_NULL_HANDLE) q.last_fence_route.store(route, std::memory_order_relaxed);
  q.last_fence.store(fence, std::memory_order_release);
}

void DeviceTimelines::StartWatchingFences(QueueTimelines& q) {
  watch_fences_.store(true, std::memory_order_release);
  // The queue's last fence has nothing after it: a watch sent now signals when it would
  // have at the fence's own submit. (Last fences of other queues stay unwatched: this
  // thread does not hold those queues; a wait-any waits them in slices.)
  const VkFence last = q.last_fence.exchange(VK_NULL_HANDLE, std::memory_order_acq_rel);
  if (last != VK_NULL_HANDLE) WatchFenceLocked(q, last, q.last_fence_route.load(std::memory_order_relaxed));
}

void DeviceTimelines::WatchFenceLocked(QueueTimelines& q, VkFence fence, Route route) {
  VkFence mine = TakeFence(q);
  if (mine == VK_NULL_HANDLE) return;  // no watch: a waiter on `fence` uses driver slices
  if (SubmitFence(q, mine, route) != VK_SUCCESS) {
    q.free_fences.push_back(mine);
    return;
  }
  SubmissionRef watch = TakeSubmission(q);
  watch->fence = mine;
  watch->watched = fence;
  watch->submitted.store(true, std::memory_order_release);
  q.in_flight.push_back(std::move(watch));
  counters.fence_watches->Add();
}

// Calls `fn(queue)` with each queue's mutex held, one at a time, until it returns true.
template <typename Fn>
static void EachQueueLocked(std::mutex& queues_mutex, const std::vector<QueueTimelines*>& queue_list, Fn fn) {
  std::vector<QueueTimelines*> queues;
  {
    std::lock_guard<std::mutex> lock(queues_mutex);
    queues = queue_list;
  }
  for (QueueTimelines* q : queues) {
    std::lock_guard<std::mutex> lock(q->mutex);
    if (fn(*q)) return;
  }
}

SubmissionRef DeviceTimelines::FindWatch(VkFence fence) {
  SubmissionRef found;
  EachQueueLocked(queues_mutex_, queue_list_, [&](QueueTimelines& q) {
    for (auto it = q.in_flight.rbegin(); it != q.in_flight.rend() && found == nullptr; ++it) {
      if ((*it)->watched == fence) found = *it;
    }
    return found != nullptr;
  });
  return found;
}

void DeviceTimelines::ForgetParkedFence(VkFence fence) {
  // Invalid usage (the fence's submission is still pending for the application): the
  // layer survives it. The parked work goes down without the fence.
  std::vector<QueueTimelines*> queues;
  {
    std::lock_guard<std::mutex> lock(queues_mutex_);
    queues = queue_list_;
  }
  for (QueueTimelines* q : queues) {
    std::lock_guard<std::mutex> lock(q->mutex);
    for (ParkedWork& w : q->parked) {
      if (w.fence == fence) {
        w.fence = VK_NULL_HANDLE;
        ParkFence(fence, -1);
      }
      if (w.present != nullptr) {
        for (uint32_t n = w.present->ForgetFence(fence); n > 0; --n) ParkFence(fence, -1);
      }
    }
  }
  BINDERY_LOG(device.log(), kError, "timeline-destroy",
              "vkDestroyFence: the fence belongs to a submission still parked behind an unsignalled timeline wait "
              "(VUID-vkDestroyFence-fence-01120); that work goes down without it");
  NotifyChange();
}

void DeviceTimelines::DestroyFence(VkFence fence, const VkAllocationCallbacks* alloc) {
  if (FenceParked(fence)) ForgetParkedFence(fence);
  if (fence != VK_NULL_HANDLE) {
    // A later fence may get the same handle: its waiters must not find this one's watches.
    EachQueueLocked(queues_mutex_, queue_list_, [&](QueueTimelines& q) {
      VkFence last = fence;  // a later fence with this handle is not the one that went down
      q.last_fence.compare_exchange_strong(last, VK_NULL_HANDLE, std::memory_order_acq_rel);
      for (const SubmissionRef& sub : q.in_flight) {
        if (sub->watched == fence) sub->watched = VK_NULL_HANDLE;
      }
      return false;
    });
  }
  next.DestroyFence(device.handle, fence, alloc);
}

}  // namespace bindery::timeline
