// The shared trackers: buffers, memory, command pools and command buffers, each with one
// owner (this object, one per device) and filled by the tracking stage
// (chassis/tracking_stage.cpp) as the calls pass through it. Capabilities read them:
// transfers for buffer sizes, addresses and the command state it restores; indirect
// bindings for the same addresses.
//
// Buffer addresses: capabilities state, through the DeviceEditor, which buffers they
// want addressable (usage bits, minimum size). The tracking stage then adds
// SHADER_DEVICE_ADDRESS usage to those buffers and the device-address flag to
// allocations large enough to hold one — and nothing to the others, so buffers nobody
// will address stay exactly as the application made them.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include <vulkan/vulkan.h>

#include "core/thread_local.h"
#include "chassis/command_state.h"
#include "chassis/tracking_plan.h"
#include "core/handle_map.h"

namespace bindery {

struct DeviceState;

struct BufferInfo {
  VkDeviceSize size = 0;
  uint64_t usage = 0;  // as created (VkBufferUsageFlags2CreateInfoKHR's when given), with ours
  VkBufferCreateFlags flags = 0;
  bool layer_added_address_usage = false;
  VkDeviceAddress address = 0;  // once bound to memory that allows it; 0 otherwise
};

struct MemoryInfo {
  VkDeviceSize size = 0;
  bool address_flag = false;  // VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT (the app's or ours)
  bool layer_added_address_flag = false;
};

class Trackers {
  // The last command buffer this thread asked for, read inline by the record path's hooks
  // (per-thread storage: core/thread_local.h says which model and why).
  struct CommandCache {
    const Trackers* trackers = nullptr;
    VkCommandBuffer cb = VK_NULL_HANDLE;
    CommandState* state = nullptr;
    uint64_t generation = 0;
  };
  static CommandCache& ThisThreadCache() {
    static BINDERY_THREAD_LOCAL CommandCache cache;
    return cache;
  }
  // Bumped whenever a command buffer's state is erased on any device: a cached pointer is
  // valid only while the generation it was read under is current.
  static inline std::atomic<uint64_t> command_generation{1};

 public:
  Trackers(DeviceState& device, const TrackingPlan& plan);
  ~Trackers();

  DeviceState& device;
  const TrackingPlan plan;
  ShardedHandleMap<VkBuffer, BufferInfo> buffers;
  ShardedHandleMap<VkDeviceMemory, MemoryInfo> memories;
  ShardedHandleMap<VkCommandPool, PoolInfo> pools;
  ShardedHandleMap<VkCommandBuffer, CommandState> commands;

  // The state of a command buffer being recorded (nullptr if not tracked). Recording is
  // single-threaded per command buffer and a thread records many commands into one in a
  // row, so a per-thread cache of the last answer skips the map on the record path; it is
  // invalidated whenever any command buffer state is erased (ForgetCommand).
  CommandState* FindCommand(VkCommandBuffer cb);
  // The record path's shortcut: this thread's cached answer for `cb` whichever device it
  // belongs to (a handle is live on one device at a time, and every erase bumps the
  // generation the cache is checked against), without finding the device first; nullptr
  // when the cache holds another command buffer (then use FindCommand).
  static CommandState* CachedCommand(VkCommandBuffer cb) {
    const CommandCache& cache = ThisThreadCache();
    if (cache.cb != cb || cache.state == nullptr) return nullptr;
    return cache.generation == command_generation.load(std::memory_order_acquire) ? cache.state : nullptr;
  }
  std::unique_ptr<CommandState> ForgetCommand(VkCommandBuffer cb);

  // The buffer's device address, 0 when it has none (not addressable, unbound, unknown).
  VkDeviceAddress AddressOf(VkBuffer buffer) const;
  VkDeviceSize SizeOf(VkBuffer buffer) const;  // 0 when unknown

  // Does a buffer with this usage and size get SHADER_DEVICE_ADDRESS from the layer?
  bool WantsAddress(uint64_t usage, VkDeviceSize size) const;
  // Smallest allocation the layer gives the device-address flag (UINT64_MAX: none).
  VkDeviceSize min_flagged_allocation() const { return min_flagged_allocation_; }

 private:
  VkDeviceSize min_flagged_allocation_ = UINT64_MAX;
};

}  // namespace bindery
