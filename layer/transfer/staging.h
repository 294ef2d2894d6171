// Host-visible staging memory for data the layer must place on the GPU at record time:
// fill edge bytes and vkCmdUpdateBuffer payloads the native command cannot take.
//
// A StagingPool per device hands out chunks; each command buffer bump-allocates from its
// own chunks (StagingArena) and gives them back when it is reset, re-begun or freed —
// never while it may be pending, which the Vulkan spec already forbids. The content is
// written once at record time, so SIMULTANEOUS_USE resubmission is safe.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include <vulkan/vulkan.h>

#include <vulkan/vk_layer.h>
#include <vulkan/vk_layer_dispatch_table.h>

namespace bindery {
struct DeviceState;
}

namespace bindery::transfer {

struct StagingChunk {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  uint8_t* mapped = nullptr;
  VkDeviceSize size = 0;
  VkDeviceAddress address = 0;  // 0 unless device addresses are enabled
};

struct StagingSlice {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize offset = 0;
  uint8_t* data = nullptr;
  VkDeviceAddress address = 0;  // of data, 0 if unavailable
};

class StagingPool {
 public:
  static constexpr VkDeviceSize kChunkSize = 64 * 1024;
  static constexpr VkDeviceSize kKeepLimit = 1 << 20;  // larger chunks are freed, not kept

  StagingPool(DeviceState& device, const VkLayerDispatchTable& next, bool device_address);
  ~StagingPool();
  StagingPool(const StagingPool&) = delete;
  StagingPool& operator=(const StagingPool&) = delete;

  StagingChunk* Acquire(VkDeviceSize min_size);  // nullptr when out of memory
  void Release(StagingChunk* chunk);

 private:
  StagingChunk* Create(VkDeviceSize size);
  void Destroy(StagingChunk* chunk);

  DeviceState& device_;
  const VkLayerDispatchTable& next_;
  const bool device_address_;
  uint32_t memory_type_ = UINT32_MAX;
  std::mutex mutex_;
  std::vector<StagingChunk*> free_;
  std::vector<std::unique_ptr<StagingChunk>> owned_;
};

class StagingArena {
 public:
  // 16-byte aligned slice of `size` bytes; slice.data == nullptr when out of memory.
  StagingSlice Allocate(StagingPool& pool, VkDeviceSize size);
  void ReleaseAll(StagingPool& pool);

 private:
  std::vector<StagingChunk*> chunks_;
  VkDeviceSize used_in_last_ = 0;
};

}  // namespace bindery::transfer
