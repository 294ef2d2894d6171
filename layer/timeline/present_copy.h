// A vkQueuePresentKHR held behind parked work, copied: the application's structs are not
// its to read after the call returns. The pNext structs a present commonly carries are
// copied with their arrays (present regions, present ids, per-swapchain fences and
// present modes, display present info, present times, device-group masks), so the
// present the driver finally gets is the one the application made. A struct the layer
// does not know is dropped (named by dropped(): the caller logs it).
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include <vulkan/vulkan.h>

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

 private:
  // A copy of `size` bytes of `s`, linked at the end of the copied chain.
  void* Append(const void* s, std::size_t size);
  template <typename T>
  T* Append(const T& s) {
    return static_cast<T*>(Append(&s, sizeof(T)));
  }
  template <typename T>
  const T* Keep(const T* data, uint32_t count) {  // an array a copied struct points to
    if (data == nullptr || count == 0) return data;
    auto copy = std::make_unique<unsigned char[]>(sizeof(T) * count);
    std::memcpy(copy.get(), data, sizeof(T) * count);
    arrays_.push_back(std::move(copy));
    return reinterpret_cast<const T*>(arrays_.back().get());
  }

  VkPresentInfoKHR info_{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
  std::vector<VkSemaphore> waits_;
  std::vector<VkSwapchainKHR> swapchains_;
  std::vector<uint32_t> image_indices_;
  std::vector<VkFence> fences_;
  std::vector<VkStructureType> dropped_;
  std::vector<std::unique_ptr<unsigned char[]>> structs_;
  std::vector<std::unique_ptr<unsigned char[]>> arrays_;
  VkBaseOutStructure* tail_ = nullptr;
};

}  // namespace bindery::timeline
