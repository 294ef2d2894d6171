#include "transfer/coalesced_writes.h"

#include <algorithm>

#include "chassis/state.h"
#include "chassis/trackers.h"
#include "transfer/transfer_capability.h"
#include "transfer/transfer_device.h"

namespace bindery::transfer {
namespace {

TransferCommandData* DataOf(const CommandState* state) {
  return state == nullptr ? nullptr
                          : static_cast<TransferCommandData*>(state->data(TransferCapability().slot()));
}

bool KernelPossibleNow(DeviceTransfers& t, const CommandState& state) {
  return t.KernelsPossible() && t.kernels.Ready() && t.ComputeAllowedIn(state);
}

bool Overlaps(const PendingWrites& p, VkDeviceAddress begin, VkDeviceAddress end) {
  if (p.count == 0 || end <= p.low || begin >= p.high) return false;
  for (uint32_t i = 0; i < p.count; ++i) {
    const PendingWrite& w = p.writes[i];
    if (begin < w.dst_address + w.region.size && w.dst_address < end) return true;
  }
  return false;
}

// The queued writes as copies from staging: one command per run of writes between the
// same two buffers.
void CopyFromStaging(DeviceTransfers& t, VkCommandBuffer cb, const PendingWrite* writes, uint32_t count) {
  constexpr uint32_t kMaxRegions = 32;
  VkBufferCopy regions[kMaxRegions];
  for (uint32_t i = 0; i < count;) {
    uint32_t n = 0;
    const PendingWrite& first = writes[i];
    while (i < count && n < kMaxRegions && writes[i].src == first.src && writes[i].dst == first.dst) {
      regions[n++] = writes[i++].region;
    }
    t.next.CmdCopyBuffer(cb, first.src, first.dst, n, regions);
  }
}

// After copies of writes that waited past barriers whose destination stages were transfer
// stages: makes them available and orders them before later transfer commands, as those
// barriers did for the application's writes.
void StandInForCrossedBarriers(DeviceTransfers& t, VkCommandBuffer cb) {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  t.next.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &barrier, 0,
                            nullptr, 0, nullptr);
}

}  // namespace

DeviceTransfers* FindTransfers(VkCommandBuffer cb) {
  return StateRegistry::Get().FindDevice(cb)->State<DeviceTransfers>(TransferCapability().slot());
}

const VkLayerDispatchTable& NextOf(VkCommandBuffer cb) {
  return StateRegistry::Get().FindDevice(cb)->Next(TransferCapability().slot());
}

uint8_t* QueueSmallWrite(DeviceTransfers& t, VkCommandBuffer cb, CommandState* state, VkBuffer dst,
                         VkDeviceSize offset, VkDeviceSize size) {
  if (!t.small_writes() || size == 0 || size > t.policy.small_write_max || state == nullptr) return nullptr;
  TransferCommandData* data = DataOf(state);
  if (data == nullptr || data->pending == nullptr || !KernelPossibleNow(t, *state)) return nullptr;
  const VkDeviceAddress base = t.trackers().AddressOf(dst);
  if (base == 0) return nullptr;
  PendingWrites& p = *data->pending;
  const VkDeviceAddress begin = base + offset, end = begin + size;
  if (p.count == PendingWrites::kCapacity || Overlaps(p, begin, end)) FlushSmallWrites(t, cb, state);
  const StagingSlice slice = data->arena.Allocate(t.staging, size);
  if (slice.data == nullptr || slice.address == 0) return nullptr;
  p.low = p.count == 0 ? begin : std::min(p.low, begin);
  p.high = p.count == 0 ? end : std::max(p.high, end);
  p.writes[p.count++] = {slice.buffer, dst, {slice.offset, offset, size}, slice.address, begin};
  t.counters.polyfilled->Add();
  t.counters.edge_copies->Add();
  return slice.data;
}

void FlushSmallWrites(DeviceTransfers& t, VkCommandBuffer cb, CommandState* state) {
  TransferCommandData* data = DataOf(state);
  if (data == nullptr || data->pending == nullptr || data->pending->count == 0) return;
  PendingWrites& p = *data->pending;
  const uint32_t n = p.count;
  const bool crossed = p.crossed_barrier;
  p.Clear();
  if (n >= t.policy.small_write_kernel_min && KernelPossibleNow(t, *state)) {
    const StagingSlice table = data->arena.Allocate(t.staging, VkDeviceSize{n} * sizeof(RegionRecord));
    if (table.data != nullptr && table.address != 0) {
      auto* records = reinterpret_cast<RegionRecord*>(table.data);
      for (uint32_t i = 0; i < n; ++i) {
        const PendingWrite& w = p.writes[i];
        const uint64_t src_word = w.src_address & ~uint64_t{3}, dst_word = w.dst_address & ~uint64_t{3};
        records[i] = {{static_cast<uint32_t>(src_word), static_cast<uint32_t>(src_word >> 32)},
                      {static_cast<uint32_t>(dst_word), static_cast<uint32_t>(dst_word >> 32)},
                      static_cast<uint32_t>(w.region.size),
                      static_cast<uint32_t>(w.src_address & 3),
                      static_cast<uint32_t>(w.dst_address & 3),
                      0};
      }
      const KernelJob job{KernelKind::kCopyRegions, table.address, 0, n, 0};
      // The bracket's closing COMPUTE -> TRANSFER barrier stands in for any barrier the
      // writes waited past.
      t.kernels.Record(cb, *state, &job, 1);
      t.counters.kernels->Add();
      return;
    }
  }
  CopyFromStaging(t, cb, p.writes, n);
  if (crossed) StandInForCrossedBarriers(t, cb);
}

void FlushOrCross(DeviceTransfers& t, VkCommandBuffer cb, bool transfer_only) {
  if (!t.small_writes()) return;
  CommandState* state = Trackers::CommandOf(cb);
  TransferCommandData* data = DataOf(state);
  if (data == nullptr || data->pending == nullptr || data->pending->count == 0) return;
  if (transfer_only && t.cross_barriers) {
    data->pending->crossed_barrier = true;
    return;
  }
  FlushSmallWrites(t, cb, state);
}

void FlushIfCrossed(DeviceTransfers& t, VkCommandBuffer cb) {
  if (!t.small_writes()) return;
  CommandState* state = Trackers::CommandOf(cb);
  const TransferCommandData* data = DataOf(state);
  if (data != nullptr && data->pending != nullptr && data->pending->crossed_barrier) FlushSmallWrites(t, cb, state);
}

void FlushIfPending(DeviceTransfers& t, VkCommandBuffer cb) {
  if (!t.small_writes()) return;
  CommandState* state = Trackers::CommandOf(cb);
  const TransferCommandData* data = DataOf(state);
  if (data != nullptr && data->pending != nullptr && data->pending->count != 0) FlushSmallWrites(t, cb, state);
}

const VkLayerDispatchTable& FlushThenNext(VkCommandBuffer cb, FlushBefore when) {
  DeviceTransfers* t = FindTransfers(cb);
  if (t == nullptr) return NextOf(cb);
  switch (when) {
    case FlushBefore::kAny: FlushIfPending(*t, cb); break;
    case FlushBefore::kCrossed: FlushIfCrossed(*t, cb); break;
    case FlushBefore::kTransferOnlyBarrier: FlushOrCross(*t, cb, true); break;
  }
  return t->next;
}

}  // namespace bindery::transfer
