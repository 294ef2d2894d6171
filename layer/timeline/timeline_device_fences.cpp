// DeviceTimelines, fences: the application's fences whose submission (or present) is
// parked. The layer answers for them until the submit thread hands them to the driver,
// and host waits on them never block in a layer thread: a wait-any over parked and driver
// fences blocks in the driver on the driver fences plus a fence of the layer's (a wake
// fence), which the submit thread sends down in a fence-only call right after it hands
// one of the watched parked fences to the driver; the waiter then looks again. No slices,
// and no layer thread ever waits on a fence the application may reset or destroy.
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

void DeviceTimelines::FenceSentDown(QueueTimelines& q, VkFence fence, Route route) {
  if (fence == VK_NULL_HANDLE) return;
  ParkFence(fence, -1);
  // Wake the wait-any waiters that watch it (q.mutex is held: the queue is ours to use).
  std::vector<VkFence> wakes;
  {
    std::lock_guard<std::mutex> lock(parked_fence_mutex_);
    for (auto it = fence_wakes_.begin(); it != fence_wakes_.end();) {
      FenceWake& w = **it;
      if (std::find(w.watched.begin(), w.watched.end(), fence) == w.watched.end()) {
        ++it;
        continue;
      }
      w.sent = true;
      wakes.push_back(w.fence);
      it = fence_wakes_.erase(it);
    }
  }
  for (VkFence f : wakes) SubmitFence(q, f, route == Route::kBindSparse ? route : Route::kSubmit);
}

VkResult DeviceTimelines::FenceStatus(VkFence fence) {
  // After a loss the fences of dropped parked work never reach the driver: lost, not "not ready".
  if (lost()) return VK_ERROR_DEVICE_LOST;
  if (FenceParked(fence)) return VK_NOT_READY;
  return next.GetFenceStatus(device.handle, fence);
}

std::shared_ptr<DeviceTimelines::FenceWake> DeviceTimelines::WatchParked(uint32_t count, const VkFence* fences,
                                                                         std::vector<VkFence>& driver_fences) {
  std::lock_guard<std::mutex> lock(parked_fence_mutex_);
  // Wake fences sent down earlier come back to the pool once they have signalled.
  for (auto it = spent_wake_fences_.begin(); it != spent_wake_fences_.end();) {
    if (next.GetFenceStatus(device.handle, *it) == VK_SUCCESS) {
      next.ResetFences(device.handle, 1, &*it);
      wake_fence_pool_.push_back(*it);
      it = spent_wake_fences_.erase(it);
    } else {
      ++it;
    }
  }
  auto wake = std::make_shared<FenceWake>();
  driver_fences.clear();
  for (uint32_t i = 0; i < count; ++i) {
    if (parked_fences_.count(fences[i]) != 0) wake->watched.push_back(fences[i]);
    else driver_fences.push_back(fences[i]);
  }
  if (wake->watched.empty()) return nullptr;  // every fence went down meanwhile
  if (!wake_fence_pool_.empty()) {
    wake->fence = wake_fence_pool_.back();
    wake_fence_pool_.pop_back();
  } else {
    VkFenceCreateInfo info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    if (next.CreateFence(device.handle, &info, nullptr, &wake->fence) != VK_SUCCESS) return nullptr;
  }
  fence_wakes_.push_back(wake);
  driver_fences.push_back(wake->fence);
  return wake;
}

void DeviceTimelines::Unwatch(const std::shared_ptr<FenceWake>& wake) {
  std::lock_guard<std::mutex> lock(parked_fence_mutex_);
  if (wake->sent) {
    spent_wake_fences_.push_back(wake->fence);  // in flight: reused once it has signalled
    return;
  }
  fence_wakes_.erase(std::remove(fence_wakes_.begin(), fence_wakes_.end(), wake), fence_wakes_.end());
  wake_fence_pool_.push_back(wake->fence);
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

void DeviceTimelines::DestroyWakeFences() {
  std::lock_guard<std::mutex> lock(parked_fence_mutex_);
  for (VkFence f : wake_fence_pool_) next.DestroyFence(device.handle, f, nullptr);
  for (VkFence f : spent_wake_fences_) next.DestroyFence(device.handle, f, nullptr);
  for (const std::shared_ptr<FenceWake>& w : fence_wakes_) next.DestroyFence(device.handle, w->fence, nullptr);
  wake_fence_pool_.clear();
  spent_wake_fences_.clear();
  fence_wakes_.clear();
}

}  // namespace bindery::timeline
