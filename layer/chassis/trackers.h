// The shared trackers: buffers, memory, command pools, command buffers and query pools, each with one
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

#include "chassis/command_state.h"
#include "chassis/external_addressing.h"
#include "chassis/tracking_plan.h"
#include "core/handle_index.h"
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

// A query pool, as far as the layer's own compute work is concerned.
struct QueryPoolInfo {
  bool counts_dispatches = true;  // chassis/counting_queries.h
};

class Trackers {
  // Every tracked command buffer's state, whichever device it belongs to (a handle is live
  // on one device at a time), read by the record path's hooks without a lock and without
  // thread-local storage (core/handle_index.h says why).
  static inline HandleIndex<CommandState> command_index;

 public:
  Trackers(DeviceState& device, const TrackingPlan& plan);
  ~Trackers();

  DeviceState& device;
  const TrackingPlan plan;
  ShardedHandleMap<VkBuffer, BufferInfo> buffers;
  ShardedHandleMap<VkDeviceMemory, MemoryInfo> memories;
  ShardedHandleMap<VkCommandPool, PoolInfo> pools;
  ShardedHandleMap<VkCommandBuffer, CommandState> commands;

  // Query pools (where command state is tracked): whether their queries count dispatches.
  void AddQueryPool(VkQueryPool pool, const VkQueryPoolCreateInfo& info);
  void ForgetQueryPool(VkQueryPool pool);
  // Read at vkCmdBeginQuery without a lock; a pool the layer did not see created counts.
  bool QueryPoolCountsDispatches(VkQueryPool pool) const;

  // The state of a command buffer (nullptr if not tracked). The record path's hooks call
  // the static form, which needs no device; both are one lock-free probe.
  CommandState* FindCommand(VkCommandBuffer cb) const { return command_index.Find(cb); }
  static CommandState* CommandOf(VkCommandBuffer cb) { return command_index.Find(cb); }
  // Tracks `cb` (replacing any state a freed handle of the same value left).
  CommandState* AddCommand(VkCommandBuffer cb, std::unique_ptr<CommandState> state);
  std::unique_ptr<CommandState> ForgetCommand(VkCommandBuffer cb);

  // The buffer's device address, 0 when it has none (not addressable, unbound, unknown).
  VkDeviceAddress AddressOf(VkBuffer buffer) const;
  VkDeviceSize SizeOf(VkBuffer buffer) const;  // 0 when unknown

  // Does a buffer with this usage and size get SHADER_DEVICE_ADDRESS from the layer?
  bool WantsAddress(uint64_t usage, VkDeviceSize size) const;
  // Smallest allocation the layer gives the device-address flag (UINT64_MAX: none).
  VkDeviceSize min_flagged_allocation() const { return min_flagged_allocation_; }
  // Which external-memory buffers and imports may be made addressable.
  ExternalAddressing external{device};

 private:
  VkDeviceSize min_flagged_allocation_ = UINT64_MAX;
  // The pools' owner, and the device's own lock-free index of them (non-dispatchable handles
  // may repeat across devices, so not a process-wide one; its tables go with the device).
  ShardedHandleMap<VkQueryPool, QueryPoolInfo> query_pools_;
  HandleIndex<QueryPoolInfo> query_pool_index_;
};

}  // namespace bindery
