// Small unaligned fills and updates, coalesced. On drivers whose copy command costs
// microseconds per region (NVIDIA: ~1.4 us for 63 bytes, where an aligned 64-byte fill
// costs ~14 ns), writing each such command from staging with its own copy is ~100x the
// driver's aligned command. Instead each one's bytes go to staging and the write waits in
// the command buffer's pending list; one batched dispatch (shaders/copy_regions.comp)
// writes them all at the next point where the application could observe or order them:
// a barrier, an event, a query or timestamp, a render pass, secondary command buffers,
// another transfer command of this capability, or the end of the command buffer.
//
// Why moving the writes later is invisible: transfer writes are ordered against later
// commands only through those synchronisation commands (a later command that reads or
// writes the bytes without one is a data race the spec leaves undefined), and the flush
// comes before the first of them, inside the same barrier bracket as any other transfer
// kernel (transfer/kernels.h). A barrier that only makes transfer commands wait does not
// flush them: they wait past it (transfer/transfer_only_barriers.h says why that is exact),
// so writes that the application separated by such barriers are still written by one
// dispatch. Too few writes for a dispatch to pay (the policy's small_write_kernel_min), or
// no kernel possible at that point: each is copied from staging as before.
#pragma once

#include <cstdint>

#include <vulkan/vulkan.h>
#include <vulkan/vk_layer_dispatch_table.h>

namespace bindery {
class CommandState;
class DevicePlan;
}

namespace bindery::transfer {

class DeviceTransfers;

// One queued write: staging bytes (buffer + offset, and their address) to dst + offset.
struct PendingWrite {
  VkBuffer src = VK_NULL_HANDLE;
  VkBuffer dst = VK_NULL_HANDLE;
  VkBufferCopy region{};
  VkDeviceAddress src_address = 0;  // of the staging bytes
  VkDeviceAddress dst_address = 0;  // of dst + region.dstOffset
};

// A command buffer's queued writes (lives in its TransferCommandData).
struct PendingWrites {
  // A full list is flushed before the next write (512: ~28 KiB per command buffer, on
  // devices that coalesce only).
  static constexpr uint32_t kCapacity = 512;
  PendingWrite writes[kCapacity];
  uint32_t count = 0;
  // Destination addresses the queued writes span: a write outside needs no overlap check.
  VkDeviceAddress low = 0, high = 0;
  // A barrier that only makes transfer commands wait was recorded after the first queued
  // write: every transfer command flushes first, and the flush stands in for that barrier.
  bool crossed_barrier = false;
  void Clear() {
    count = 0;
    crossed_barrier = false;
  }
};

// Staging for a write of `size` bytes at dst + offset, queued (the caller writes its bytes
// there now); nullptr when it cannot be coalesced here (policy, size, no address, no
// staging, a compute state that could not be restored): the caller records it as before.
// A write overlapping a queued one flushes the list first, so writes to the same bytes
// keep their order.
uint8_t* QueueSmallWrite(DeviceTransfers& t, VkCommandBuffer cb, CommandState* state, VkBuffer dst,
                         VkDeviceSize offset, VkDeviceSize size);

// Records every queued write (one dispatch, or copies from staging) and empties the list.
void FlushSmallWrites(DeviceTransfers& t, VkCommandBuffer cb, CommandState* state);

// The transfers capability of the command buffer's device; nullptr where transfers are
// off on it. Entry points are per device, but applications call one device's with another
// device's command buffers (drivers tolerate it): such a call reaches these hooks on a
// device where the capability may have no state, and the hook passes it unchanged to that
// device's next layer (NextOf).
DeviceTransfers* FindTransfers(VkCommandBuffer cb);
const VkLayerDispatchTable& NextOf(VkCommandBuffer cb);

// Flushes `cb`'s queued writes, if any: what every flush point calls first. Costs a flag
// test where the device does not coalesce, and one lock-free command-state lookup
// (Trackers::CommandOf) where nothing is queued.
void FlushIfPending(DeviceTransfers& t, VkCommandBuffer cb);

// At a barrier: where `transfer_only` (transfer/transfer_only_barriers.h) and the device lets
// writes wait past barriers, the queued writes stay queued; otherwise they are flushed.
void FlushOrCross(DeviceTransfers& t, VkCommandBuffer cb, bool transfer_only);

// Flushes queued writes only if they waited past a barrier: what transfer commands that
// are not this capability's own (image copies, blits, clears, query result copies) call.
void FlushIfCrossed(DeviceTransfers& t, VkCommandBuffer cb);

// Which queued writes a hook that is not a transfer of this capability flushes before it
// goes down.
enum class FlushBefore {
  kAny,                  // every queued write (a flush point: FlushIfPending)
  kCrossed,              // only writes that waited past a barrier (a passed-through transfer command)
  kTransferOnlyBarrier,  // a barrier only transfer commands wait for: none where the device
                         // lets writes wait past it, every queued write elsewhere
};

// Flushes `cb`'s queued writes as `when` says, then returns the capability's next table
// (the device's next layer where transfers are off on the command buffer's device): the
// first step of every flush-point and passed-through transfer hook.
const VkLayerDispatchTable& FlushThenNext(VkCommandBuffer cb, FlushBefore when);

// Whether the flush points that are not transfers of this capability (barriers, events,
// queries, render passes, secondary command buffers, vkEndCommandBuffer) are hooked on a
// device: only where the policy coalesces and kernels are planned.
bool SmallWritesPlanned(const DevicePlan& plan);

}  // namespace bindery::transfer
