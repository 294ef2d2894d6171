// The binds of one VkBindSparseInfo, copied: a vkQueueBindSparse parked behind a wait that
// is not pending yet outlives the application's arrays, so the layer keeps its own.
#pragma once

#include <vector>

#include <vulkan/vulkan.h>

namespace bindery::timeline {

class SparseBinds {
 public:
  // Copies the bind arrays of `info` (its semaphores and pNext are not copied: the
  // caller converts those).
  explicit SparseBinds(const VkBindSparseInfo& info);
  SparseBinds(const SparseBinds&) = delete;
  SparseBinds& operator=(const SparseBinds&) = delete;

  // Binds only (no semaphores, no pNext), pointing into this object.
  const VkBindSparseInfo& info() const { return info_; }

 private:
  std::vector<VkSparseMemoryBind> memory_binds_;      // of buffers and opaque image binds
  std::vector<VkSparseImageMemoryBind> image_binds_;  // of image binds
  std::vector<VkSparseBufferMemoryBindInfo> buffers_;
  std::vector<VkSparseImageOpaqueMemoryBindInfo> opaque_;
  std::vector<VkSparseImageMemoryBindInfo> images_;
  VkBindSparseInfo info_{VK_STRUCTURE_TYPE_BIND_SPARSE_INFO};
};

}  // namespace bindery::timeline
