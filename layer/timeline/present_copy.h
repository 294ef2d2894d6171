// A vkQueuePresentKHR held behind parked work, copied: the application's structs are not
// its to read after the call returns. The pNext structs a present commonly carries are
// copied with their arrays (present regions, present ids, per-swapchain fences and
// present modes, display present info, present times, device-group masks), so the
// present the driver finally gets is the one the application made. A struct the layer
// does not know is dropped (named by dropped(): the caller logs it).
#pragma once

#include <vector>

#include <vulkan/vulkan.h>

#include "timeline/chain_store.h"

namespace bindery::timeline {

class PresentCopy {
 public:
  explicit PresentCopy(const VkPresentInfoKHR& info);
  PresentCopy(const PresentCopy&) = delete;
  PresentCopy& operator=(const PresentCopy&) = delete;

  const VkPresentInfoKHR& info() const { return info_; }
  const std::vector<VkSemaphore>& waits() const { return waits_; }
  // Fences the present signals (VkSwapchainPresentFenceInfoEXT): the layer answers for
  // them while the present is parked.
  const std::vector<VkFence>& fences() const { return fences_; }
  const std::vector<VkStructureType>& dropped() const { return dropped_; }

  // The application destroyed `fence` / `semaphore` while this present was parked
  // (invalid usage the layer survives): the present goes down without it. Return how many
  // entries named it.
  uint32_t ForgetFence(VkFence fence);
  uint32_t ForgetWait(VkSemaphore semaphore);

 private:
  VkPresentInfoKHR info_{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
  std::vector<VkSemaphore> waits_;
  std::vector<VkSwapchainKHR> swapchains_;
  std::vector<uint32_t> image_indices_;
  std::vector<VkFence> fences_;
  VkFence* present_fences_ = nullptr;  // the copied VkSwapchainPresentFenceInfoEXT array
  std::vector<VkStructureType> dropped_;
  ChainStore store_;  // the copied pNext structs
};

}  // namespace bindery::timeline
