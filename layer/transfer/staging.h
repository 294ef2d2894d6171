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
// Where kernels run, every block has an index below kMaxBlocks and the pool keeps a block
// directory: a small addressable buffer holding each block's device address at its index,
// written when the block is made. A kernel finds its parameter record (written into
// staging at record time) from a block index and an offset (transfer_common.glsl).
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
  uint32_t block_index = 0;       // the block's entry in the directory
  StagingChunk* next = nullptr;   // the arena's list / the pool's free nodes
};

struct StagingSlice {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize offset = 0;
  uint8_t* data = nullptr;
  VkDeviceAddress address = 0;  // of data, 0 if unavailable
  uint32_t block_index = 0;     // the block's entry in the pool's directory; `offset` is within that block
};

// Which memory type staging uses, from the device's memory properties: host-visible and
// coherent, device-local where the host can write it (resizable BAR), never protected
// nor AMD device-coherent/uncached (those need features the application may not have
// enabled, and staging does not need them). UINT32_MAX if none fits.
// `one_instance`: the device is a group of several physical devices, where an allocation
// from a MULTI_INSTANCE heap has one instance per physical device and cannot be mapped
// (VUID-vkMapMemory-memory-00683): only heaps with one instance then.
uint32_t ChooseStagingMemoryType(const VkPhysicalDeviceMemoryProperties& props, uint32_t allowed_type_bits,
                                 bool one_instance = false);

class StagingPool {
 public:
  static constexpr VkDeviceSize kPageSize = 64 * 1024;
  static constexpr VkDeviceSize kBlockSize = 4 * 1024 * 1024;
  static constexpr uint32_t kPagesPerBlock = static_cast<uint32_t>(kBlockSize / kPageSize);
  // Block indexes a kernel can name (12 bits; 16 GiB of shared blocks).
  static constexpr uint32_t kMaxBlocks = 4096;

  // `limit`: the most bytes of blocks this pool may hold (the staging_limit setting);
  // `device_group`: the device is made of several physical devices (ChooseStagingMemoryType).
  StagingPool(DeviceState& device, const VkLayerDispatchTable& next, bool device_address,
              VkDeviceSize limit = ~VkDeviceSize{0}, bool device_group = false);
  ~StagingPool();
  StagingPool(const StagingPool&) = delete;
  StagingPool& operator=(const StagingPool&) = delete;

  // nullptr when no memory can be had. `beyond_limit`: may make a block past the
  // staging_limit setting (kernel parameter records: that debug cap is for the polyfills'
  // data, and kernels of valid aligned transfers never needed staging before).
  StagingChunk* Acquire(VkDeviceSize min_size, bool beyond_limit = false);
  void Release(StagingChunk* chunk);

  // Makes the block directory (device addresses on only, once, at device creation);
  // false if it could not be made (then kernels stay off). Not counted in the limit.
  bool CreateDirectory();
  VkDeviceAddress directory_address() const { return directory_address_; }

  // For tests and the teardown log.
  std::size_t BlockCount();
  VkDeviceSize BytesHeld();

 private:
  StagingBlock* CreateBlock(VkDeviceSize size, bool beyond_limit);  // under mutex_
  // The buffer, memory, mapping and address of `block` (size set); false on failure.
  bool MakeBuffer(StagingBlock& block);
  void DestroyBlock(StagingBlock* block);        // under mutex_
  StagingChunk* NewNode();                       // under mutex_
  void TrimEmptyBlocks();                        // under mutex_

  DeviceState& device_;
  const VkLayerDispatchTable& next_;
  const bool device_address_;
  const VkDeviceSize limit_;
  const bool device_group_;
  uint32_t memory_type_ = UINT32_MAX;
  bool probed_ = false;  // memory_type_ checked against a real buffer's requirements
  std::mutex mutex_;
  std::vector<std::unique_ptr<StagingBlock>> blocks_;
  std::vector<bool> index_used_ = std::vector<bool>(kMaxBlocks, false);
  std::unique_ptr<StagingBlock> directory_;  // kMaxBlocks addresses, written under mutex_
  VkDeviceAddress directory_address_ = 0;
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
  // `end_in_block`: the slice ends at most this far into its block (a fresh run is taken
  // when the current one lies beyond; kernel parameter records must be nameable).
  // `beyond_limit`: see StagingPool::Acquire.
  StagingSlice Allocate(StagingPool& pool, VkDeviceSize size, VkDeviceSize end_in_block = ~VkDeviceSize{0},
                        bool beyond_limit = false);
  void ReleaseAll(StagingPool& pool);

 private:
  StagingChunk* head_ = nullptr;  // the run being filled; older runs follow through `next`
  VkDeviceSize used_in_head_ = 0;
};

}  // namespace bindery::transfer
