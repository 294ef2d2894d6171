// Per-command-buffer memory for what indirect bindings write at record time and the GPU
// reads when the command buffer runs: the argument blocks of push descriptors (records
// pushed with vkCmdPushDescriptorSetKHR) and, when a root does not fit in push constants,
// copies of the root (read through the reserved set each block carries).
//
// RootRingPool (one per device) holds blocks of kBlockBytes (one VkBuffer + VkDeviceMemory,
// host-visible and coherent, persistently mapped, with a device address, shared by every
// queue family) cut into kChunkBytes chunks, and lends chunks to command buffers. Chunks
// are small (4 KiB: a command buffer that records one push holds 4 KiB, not a block's
// worth), which is still room for the largest push (maxPushDescriptors records) or root. RootRing (one per command
// buffer) bump-allocates from the chunks it holds and gives them all back when the command
// buffer is reset, re-begun or freed — never while it may be pending, which the spec
// already forbids, so a chunk is never rewritten while the GPU may read it. Host writes
// before vkQueueSubmit are visible to the submission (coherent memory, the submit's
// implicit host-write ordering): no barrier. The content is written once at record time,
// so SIMULTANEOUS_USE resubmission is safe.
//
// Steady state: nothing is allocated per push; the pool's lock is taken once per chunk
// (per 4 KiB recorded), and a new block only when every chunk is lent out. When chunks
// come back and more than one block is wholly idle, the idle blocks but one are destroyed
// (none of their chunks is lent, so no pending command buffer reads them): the pool holds
// what is recorded at once, plus one spare block. Each block created is counted in the
// "root ring bytes" counter, and held ring memory in the device's GPU gauge.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include <vulkan/vk_layer.h>
#include <vulkan/vk_layer_dispatch_table.h>
#include <vulkan/vulkan.h>

namespace bindery {
class Counter;
}

#include "bindings/model/root_layout.h"  // kRingRootBytes

namespace bindery::bindings {

class DescriptorStore;
struct RingBlock;

struct RingChunk {
  RingBlock* block = nullptr;
  uint8_t* mapped = nullptr;
  VkDeviceAddress address = 0;
  uint32_t offset = 0;         // of the chunk in its block's buffer
  RingChunk* next = nullptr;   // the ring's list of held chunks / the pool's free list
};


struct RingBlock {
  VkBuffer buffer = VK_NULL_HANDLE;  // kBlockBytes + kRingRootBytes (the descriptor's range past any offset)
  VkDeviceMemory memory = VK_NULL_HANDLE;
  uint8_t* mapped = nullptr;
  VkDeviceAddress address = 0;
  std::vector<RingChunk> chunks;
  uint32_t lent = 0;  // chunks lent out (under the pool's mutex)
  // The reserved set naming this block (a dynamic storage buffer at binding 0, offset 0,
  // range kRingRootBytes): a root copy at byte X is bound with dynamic offset X.
  VkDescriptorPool root_pool = VK_NULL_HANDLE;
  VkDescriptorSet root_set = VK_NULL_HANDLE;
};

// A piece of ring memory: host pointer, device address, and where it lies in its block.
struct RingSlice {
  uint8_t* data = nullptr;  // nullptr: out of memory
  VkDeviceAddress address = 0;
  const RingBlock* block = nullptr;
  uint32_t offset = 0;  // in the block's buffer
};

class RootRingPool {
 public:
  static constexpr uint32_t kChunkBytes = 4 * 1024;
  static constexpr uint32_t kChunksPerBlock = 256;
  static constexpr uint32_t kBlockBytes = kChunkBytes * kChunksPerBlock;

  explicit RootRingPool(DescriptorStore& b);
  ~RootRingPool();
  RootRingPool(const RootRingPool&) = delete;
  RootRingPool& operator=(const RootRingPool&) = delete;

  RingChunk* Acquire();  // nullptr when no memory can be had
  void Release(RingChunk* first);  // a list linked through `next`

 private:
  RingBlock* CreateBlock();  // under mutex_
  bool CreateRootSet(RingBlock& block);
  void TrimIdleBlocks();     // under mutex_
  void DestroyBlock(RingBlock& block, const VkLayerDispatchTable& table);

  DescriptorStore& b_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<RingBlock>> blocks_;
  RingChunk* free_ = nullptr;
};

class RootRing {
 public:
  RootRing() = default;
  RootRing(const RootRing&) = delete;
  RootRing& operator=(const RootRing&) = delete;

  // `size` bytes (at most a chunk) at a multiple of `alignment` (a power of two, at most
  // a chunk) from the chunk's start; data == nullptr when out of memory.
  RingSlice Allocate(RootRingPool& pool, uint32_t size, uint32_t alignment);
  void ReleaseAll(RootRingPool& pool);

 private:
  RingChunk* head_ = nullptr;  // the chunk being filled; older ones follow through `next`
  uint32_t used_ = 0;          // bytes used in head_
};

}  // namespace bindery::bindings
