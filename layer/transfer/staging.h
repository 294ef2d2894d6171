// Host-visible staging memory for data the layer must place on the GPU at record time:
// fill edge bytes and vkCmdUpdateBuffer payloads the native command cannot take, and the
// batch kernel's region tables.
//
// StagingPool (one per device) holds a few large blocks (one VkBuffer + VkDeviceMemory,
// persistently mapped, kBlockSize each) and lends them out in runs of kPageSize pages:
// a device with maxMemoryAllocationCount 4096 or a 256 MiB BAR heap must not pay one
// allocation per 64 KiB. A request larger than a block gets a block of its own, freed
// when it comes back. Empty blocks are trimmed (at most one spare is kept).
//
// Each command buffer bump-allocates from the runs it holds (StagingArena) and gives them
// back when it is reset, re-begun or freed — never while it may be pending, which the
// Vulkan spec already forbids. The content is written once at record time, so
// SIMULTANEOUS_USE resubmission is safe. Recording takes the pool's lock only when its
// current run is full (once per 64 KiB of staging, not per command), and allocates only
// when a new block is needed.
#pragma once

#include <cstdint>
#include <deque>
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

struct StagingBlock;

// A run of pages of one block, lent to one command buffer.
struct StagingChunk {
  StagingBlock* block = nullptr;
  VkBuffer buffer = VK_NULL_HANDLE;
  uint8_t* mapped = nullptr;      // of the run's first byte
  VkDeviceSize offset = 0;        // of the run in the block's buffer
  VkDeviceSize size = 0;
  VkDeviceAddress address = 0;    // of the run's first byte; 0 unless device addresses are on
  StagingChunk* next = nullptr;   // the arena's list / the pool's free nodes
};

struct StagingSlice {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize offset = 0;
  uint8_t* data = nullptr;
  VkDeviceAddress address = 0;  // of data, 0 if unavailable
};

// Which memory type staging uses, from the device's memory properties: host-visible and
// coherent, device-local where the host can write it (resizable BAR), never protected
// nor AMD device-coherent/uncached (those need features the application may not have
// enabled, and staging does not need them). UINT32_MAX if none fits.
uint32_t ChooseStagingMemoryType(const VkPhysicalDeviceMemoryProperties& props, uint32_t allowed_type_bits);

class StagingPool {
 public:
  static constexpr VkDeviceSize kPageSize = 64 * 1024;
  static constexpr VkDeviceSize kBlockSize = 4 * 1024 * 1024;
  static constexpr uint32_t kPagesPerBlock = static_cast<uint32_t>(kBlockSize / kPageSize);

  // `limit`: the most bytes of blocks this pool may hold (the staging_limit setting).
  StagingPool(DeviceState& device, const VkLayerDispatchTable& next, bool device_address,
              VkDeviceSize limit = ~VkDeviceSize{0});
  ~StagingPool();
  StagingPool(const StagingPool&) = delete;
  StagingPool& operator=(const StagingPool&) = delete;

  StagingChunk* Acquire(VkDeviceSize min_size);  // nullptr when no memory can be had
  void Release(StagingChunk* chunk);

  // For tests and the teardown log.
  std::size_t BlockCount();
  VkDeviceSize BytesHeld();

 private:
  StagingBlock* CreateBlock(VkDeviceSize size);  // under mutex_
  void DestroyBlock(StagingBlock* block);        // under mutex_
  StagingChunk* NewNode();                       // under mutex_
  void TrimEmptyBlocks();                        // under mutex_

  DeviceState& device_;
  const VkLayerDispatchTable& next_;
  const bool device_address_;
  const VkDeviceSize limit_;
  uint32_t memory_type_ = UINT32_MAX;
  bool probed_ = false;  // memory_type_ checked against a real buffer's requirements
  std::mutex mutex_;
  std::vector<std::unique_ptr<StagingBlock>> blocks_;
  VkDeviceSize bytes_held_ = 0;
  std::deque<StagingChunk> nodes_;  // stable addresses; reused through free_nodes_
  StagingChunk* free_nodes_ = nullptr;
};

class StagingArena {
 public:
  StagingArena() = default;
  StagingArena(const StagingArena&) = delete;
  StagingArena& operator=(const StagingArena&) = delete;

  // 16-byte aligned slice of `size` bytes; slice.data == nullptr when out of memory.
  StagingSlice Allocate(StagingPool& pool, VkDeviceSize size);
  void ReleaseAll(StagingPool& pool);

 private:
  StagingChunk* head_ = nullptr;  // the run being filled; older runs follow through `next`
  VkDeviceSize used_in_head_ = 0;
};

}  // namespace bindery::transfer
