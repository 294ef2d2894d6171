// DeviceTimelines, fences: the application's fences whose submission (or present) is
// parked. The layer answers for them until the submit thread hands them to the driver (so
// the driver never sees a fence used by two threads at once: the submit thread's
// vkQueueSubmit and an application wait), and host waits on them never block in a layer
// thread. A wait-any over parked and driver fences still waits the driver fences in
// slices: see docs/timeline_parked_work.md for why no valid wake-up of a blocked driver wait
// exists without a queue stall.
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
    if (parked == 0 || (!all && parked < count)) {
      // Every fence (or, for wait-any, at least one) is the driver's now. For wait-any the
      // parked ones are left out: they cannot signal before they are submitted.
      if (parked == 0) return next.WaitForFences(device.handle, count, fences, all, left);
      std::vector<VkFence> ready;
      for (uint32_t i = 0; i < count; ++i) {
        if (!FenceParked(fences[i])) ready.push_back(fences[i]);
      }
      const VkResult r = next.WaitForFences(device.handle, static_cast<uint32_t>(ready.size()), ready.data(), VK_FALSE,
                                            std::min<uint64_t>(left, 2'000'000));
      if (r != VK_TIMEOUT || left <= 2'000'000) return r;
      continue;
    }
    if (left == 0) return VK_TIMEOUT;
    WaitChange(seen, std::min<uint64_t>(left, 50'000'000));
  }
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
  next.DestroyFence(device.handle, fence, alloc);
}

}  // namespace bindery::timeline
