// The transfers capability's buffer commands: vkCmdFillBuffer, vkCmdUpdateBuffer and
// vkCmdCopyBuffer / vkCmdCopyBuffer2(KHR). Each call chooses its path (transfer/policy.h):
// the native command, edge bytes from staging, compute kernels, or a small write queued
// for one batched dispatch (transfer/coalesced_writes.h).
//
// The buffers and command buffers these read are tracked by the chassis's tracking
// stage (chassis/trackers.h), not here. The hook table is in transfer_capability.cpp: each
// Hook's `active` predicate there decides on which devices a hook is installed.
#include <algorithm>
#include <cstring>

#include "chassis/state.h"
#include "chassis/trackers.h"
#include "transfer/coalesced_writes.h"
#include "transfer/hooks.h"
#include "transfer/plan.h"
#include "transfer/transfer_capability.h"
#include "transfer/transfer_device.h"

namespace bindery::transfer {
namespace {

// Unaligned fills and updates up to this size are written entirely from staging (one copy
// command).
constexpr VkDeviceSize kSmallFillFromStaging = 4096;

TransferCommandData* DataOf(const CommandState* state) {
  return state == nullptr ? nullptr
                          : static_cast<TransferCommandData*>(state->data(TransferCapability().slot()));
}

// Collects one call's native copy regions and kernel jobs, recording them in batches:
// native regions (which touch bytes the kernels do not) first, then the kernels inside
// one barrier bracket. Fixed-size arrays: no allocation while recording.
class CopyRecorder {
 public:
  CopyRecorder(DeviceTransfers& t, VkCommandBuffer cb, CommandState* state, VkBuffer src, VkBuffer dst)
      : t_(t), cb_(cb), state_(state), src_(src), dst_(dst) {}
  ~CopyRecorder() { Flush(); }

  void Native(VkDeviceSize src_offset, VkDeviceSize dst_offset, VkDeviceSize size) {
    if (size == 0) return;
    if (native_count_ == kMaxNative) FlushNative();
    native_[native_count_++] = {src_offset, dst_offset, size};
  }
  void Kernel(const KernelJob& job) {
    if (job_count_ == kMaxJobs) Flush();
    jobs_[job_count_++] = job;
  }
  void Flush() {
    FlushNative();
    if (job_count_ != 0) {
      t_.kernels.Record(cb_, *state_, jobs_, job_count_);
      t_.counters.kernels->Add(job_count_);
      job_count_ = 0;
    }
  }

 private:
  void FlushNative() {
    if (native_count_ == 0) return;
    t_.next.CmdCopyBuffer(cb_, src_, dst_, native_count_, native_);
    native_count_ = 0;
  }
  static constexpr uint32_t kMaxNative = 32;
  static constexpr uint32_t kMaxJobs = 16;
  DeviceTransfers& t_;
  VkCommandBuffer cb_;
  CommandState* state_;
  VkBuffer src_, dst_;
  VkBufferCopy native_[kMaxNative];
  uint32_t native_count_ = 0;
  KernelJob jobs_[kMaxJobs];
  uint32_t job_count_ = 0;
};

// Can a kernel run in this command buffer now, on buffers with these addresses?
bool KernelUsable(DeviceTransfers& t, CommandState* state, VkDeviceAddress a, VkDeviceAddress b) {
  return t.KernelsPossible() && state != nullptr && a != 0 && b != 0 && t.kernels.Ready() && t.ComputeAllowedIn(*state);
}

// One copy region: the 16-byte-aligned middle of the destination to a kernel when the
// policy says it pays, the rest natively. Returns whether a kernel was used.
bool CopyRegion(DeviceTransfers& t, CopyRecorder& rec, bool kernels_ok, VkDeviceAddress src_address,
                VkDeviceAddress dst_address, const VkBufferCopy& r) {
  if (kernels_ok) {
    const bool aligned = ((r.srcOffset | r.dstOffset | r.size) & 3) == 0;
    const Split split = SplitAligned({r.dstOffset, r.size}, 16, dst_address);
    if (split.middle.size >= t.policy.CopyThreshold(aligned)) {
      const VkDeviceSize into = split.middle.offset - r.dstOffset;
      const KernelCopy k =
          PlanKernelCopy(src_address + r.srcOffset + into, dst_address + split.middle.offset, split.middle.size);
      rec.Native(r.srcOffset, r.dstOffset, split.head.size);
      rec.Kernel({k.src_vec4_aligned ? KernelKind::kCopyVec4 : KernelKind::kCopyShift, k.dst_address,
                  k.src_vec4_aligned ? src_address + r.srcOffset + into : k.src_word_address, k.bytes / 16,
                  k.src_vec4_aligned ? 0u : k.shift_bits});
      rec.Native(r.srcOffset + (split.tail.offset - r.dstOffset), split.tail.offset, split.tail.size);
      return true;
    }
  }
  rec.Native(r.srcOffset, r.dstOffset, r.size);
  return false;
}

VkDeviceAddress AddressOf(DeviceTransfers& t, VkBuffer buffer) { return t.trackers().AddressOf(buffer); }

// Copies `range_count` ranges of dst from staging, one copy command; `write(data, range)`
// puts each range's bytes into staging. False if no staging memory could be had.
template <typename WriteFn>
bool StagingCopy(DeviceTransfers& t, VkCommandBuffer cb, CommandState& state, VkBuffer dst, const ByteRange* ranges,
                 uint32_t range_count, WriteFn&& write) {
  VkDeviceSize total = 0;
  for (uint32_t i = 0; i < range_count; ++i) total += ranges[i].size;
  if (total == 0) return true;
  TransferCommandData* data = DataOf(&state);
  const StagingSlice slice = data != nullptr ? data->arena.Allocate(t.staging, total) : StagingSlice{};
  if (slice.data == nullptr) return false;
  VkBufferCopy regions[2];
  uint32_t n = 0;
  VkDeviceSize at = 0;
  for (uint32_t i = 0; i < range_count && n < 2; ++i) {
    if (ranges[i].empty()) continue;
    write(slice.data + at, ranges[i]);
    regions[n++] = {slice.offset + at, ranges[i].offset, ranges[i].size};
    at += ranges[i].size;
  }
  t.next.CmdCopyBuffer(cb, slice.buffer, dst, n, regions);
  t.counters.edge_copies->Add();
  return true;
}

// Writes the bytes a fill of `data` begun at `fill_offset` leaves in `range`.
void WriteFillBytes(uint8_t* out, ByteRange range, uint32_t data, VkDeviceSize fill_offset) {
  const uint32_t word = RotatedPattern(data, fill_offset, range.offset);
  VkDeviceSize i = 0;
  for (; i + 4 <= range.size; i += 4) std::memcpy(out + i, &word, 4);
  for (; i < range.size; ++i) out[i] = static_cast<uint8_t>(word >> (8 * (i % 4)));
}

// Staging could not be had for work the layer must record: never drop it silently. The
// command buffer keeps the error and vkEndCommandBuffer returns it (the tracking stage
// asks every capability's command data), so the application never submits it.
void FailRecording(DeviceTransfers& t, CommandState* state, const char* what, VkDeviceSize bytes) {
  BINDERY_LOG(t.device.log(), kError, "transfer-staging",
              "no staging memory for %s (%llu bytes); vkEndCommandBuffer will return VK_ERROR_OUT_OF_DEVICE_MEMORY",
              what, static_cast<unsigned long long>(bytes));
  if (TransferCommandData* data = DataOf(state)) data->Fail(VK_ERROR_OUT_OF_DEVICE_MEMORY);
}

// A native fill recorded inside a kernel's barrier bracket (Kernels::Record's `alongside`).
struct NativeFill {
  const VkLayerDispatchTable* next;
  VkCommandBuffer cb;
  VkBuffer dst;
  VkDeviceSize offset, size;
  uint32_t data;
};
void RecordNativeFill(void* context) {
  const auto& f = *static_cast<const NativeFill*>(context);
  f.next->CmdFillBuffer(f.cb, f.dst, f.offset, f.size, f.data);
}

// A fill's byte-granular edges by one batched-regions dispatch from staging, with its
// middle beside it in the same barrier bracket: as a second kernel job (`middle`), or as
// a native fill (`native`) that runs alongside the dispatch. False, nothing recorded,
// when staging with an address cannot be had (the caller copies the edges instead).
template <typename WriteFn>
bool FillEdgesByKernel(DeviceTransfers& t, VkCommandBuffer cb, CommandState& state, VkDeviceAddress address,
                       const ByteRange (&edges)[2], WriteFn&& write, const KernelJob* middle, NativeFill* native) {
  TransferCommandData* data = DataOf(&state);
  if (data == nullptr) return false;
  const StagingSlice bytes = data->arena.Allocate(t.staging, edges[0].size + edges[1].size);
  if (bytes.data == nullptr || bytes.address == 0) return false;
  const StagingSlice table = data->arena.Allocate(t.staging, 2 * sizeof(RegionRecord));
  if (table.data == nullptr || table.address == 0) return false;
  auto* records = reinterpret_cast<RegionRecord*>(table.data);
  uint32_t n = 0;
  VkDeviceSize at = 0;
  for (const ByteRange& edge : edges) {
    if (edge.empty()) continue;
    write(bytes.data + at, edge);
    records[n++] = MakeRegionRecord(bytes.address + at, address + edge.offset, static_cast<uint32_t>(edge.size));
    at += edge.size;
  }
  KernelJob jobs[2] = {{KernelKind::kCopyRegions, table.address, 0, n, 0}, {}};
  uint32_t count = 1;
  if (middle != nullptr) jobs[count++] = *middle;
  t.kernels.Record(cb, state, jobs, count, native != nullptr ? &RecordNativeFill : nullptr, native);
  t.counters.kernels->Add(count);
  return true;
}

// A fill's byte-granular edges by one kFillEdges dispatch whose record holds all it needs
// (no staged bytes, no region table: its stores wait for fewer dependent loads than the
// batched-regions kernel's), with its middle beside it in the same barrier bracket as in
// FillEdgesByKernel. `pattern`: the fill's word at 4-byte aligned device addresses.
void FillEdgesByEdgeKernel(DeviceTransfers& t, VkCommandBuffer cb, CommandState& state, VkDeviceAddress address,
                           const ByteRange (&edges)[2], uint32_t pattern, const KernelJob* middle,
                           NativeFill* native) {
  KernelJob job{KernelKind::kFillEdges, 0, 0, 0, pattern};
  const ByteRange& head = edges[0];
  const ByteRange& tail = edges[1];
  if (!head.empty()) {
    job.dst_address = (address + head.offset) & ~VkDeviceAddress{3};
    job.blocks = FillEdgeSpan(address + head.offset, head.size);
  }
  if (!tail.empty()) {
    job.src_address = (address + tail.offset) & ~VkDeviceAddress{3};
    job.extra = FillEdgeSpan(address + tail.offset, tail.size);
  }
  KernelJob jobs[2] = {job, {}};
  uint32_t count = 1;
  if (middle != nullptr) jobs[count++] = *middle;
  // Where the native middle goes (Policy::fill_edge_order): beside the dispatch, before or
  // after it inside the bracket, or before the bracket.
  const Policy::EdgeOrder order = t.policy.fill_edge_order;
  if (native != nullptr && order == Policy::EdgeOrder::kKernelAfter) {
    RecordNativeFill(native);
    native = nullptr;
  }
  t.kernels.Record(cb, state, jobs, count, native != nullptr ? &RecordNativeFill : nullptr, native,
                   /*alongside_first=*/order == Policy::EdgeOrder::kKernelLast);
  t.counters.kernels->Add(count);
}

// Does any region of this copy need the layer (a kernel or a batch)? If not, the
// application's call goes down untouched.
template <typename RegionFn>
bool CopyNeedsLayer(DeviceTransfers& t, bool kernels_ok, VkDeviceAddress dst_address, uint32_t count,
                    RegionFn&& region) {
  if (!kernels_ok) return false;
  uint32_t small = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const VkBufferCopy r = region(i);
    if (r.size == 0) continue;
    if (r.size <= t.policy.copy_batch_max_region && ++small >= t.policy.copy_batch_min_regions) return true;
    const bool aligned = ((r.srcOffset | r.dstOffset | r.size) & 3) == 0;
    const Split split = SplitAligned({r.dstOffset, r.size}, 16, dst_address);
    if (split.middle.size != 0 && split.middle.size >= t.policy.CopyThreshold(aligned)) return true;
  }
  return false;
}

// The command buffer's state (the tracking stage's command index).
CommandState* StateOf(DeviceTransfers&, VkCommandBuffer cb) { return Trackers::CommandOf(cb); }

// Queues a small unaligned fill (transfer/coalesced_writes.h); false if it was not queued.
bool QueueFill(DeviceTransfers& t, VkCommandBuffer cb, VkBuffer dst, VkDeviceSize offset, VkDeviceSize size,
               uint32_t data) {
  if (size == VK_WHOLE_SIZE || size > t.policy.small_write_max || NativeFillAllowed(offset, size)) return false;
  uint8_t* bytes = QueueSmallWrite(t, cb, StateOf(t, cb), dst, offset, size);
  if (bytes == nullptr) return false;
  WriteFillBytes(bytes, {offset, size}, data, offset);
  return true;
}

// Queues a small unaligned update; false if it was not queued.
bool QueueUpdate(DeviceTransfers& t, VkCommandBuffer cb, VkBuffer dst, VkDeviceSize offset, VkDeviceSize size,
                 const void* data) {
  if (size == 0 || size > t.policy.small_write_max || NativeUpdateAllowed(offset, size)) return false;
  uint8_t* bytes = QueueSmallWrite(t, cb, StateOf(t, cb), dst, offset, size);
  if (bytes == nullptr) return false;
  std::memcpy(bytes, data, size);
  return true;
}

}  // namespace

bool KernelMayRun(DeviceTransfers& t, CommandState* state) {
  // Whatever a kernel addresses: non-zero stand-ins for the buffer addresses.
  return KernelUsable(t, state, ~VkDeviceAddress{0}, ~VkDeviceAddress{0});
}

// ---- transfers -------------------------------------------------------------------------

VKAPI_ATTR void VKAPI_CALL CmdFillBuffer(VkCommandBuffer cb, VkBuffer dst, VkDeviceSize offset, VkDeviceSize size,
                                         uint32_t data) {
  DeviceTransfers* found = FindTransfers(cb);
  if (found == nullptr) return NextOf(cb).CmdFillBuffer(cb, dst, offset, size, data);
  DeviceTransfers& t = *found;
  if (t.small_writes()) {
    if (QueueFill(t, cb, dst, offset, size, data)) return;
    FlushIfPending(t, cb);  // anything else keeps its place after the queued writes
  }
  const bool fill_kernels = t.KernelsPossible() && t.policy.fill_kernel_min != UINT64_MAX;
  const uint64_t align = t.policy.fill_native_alignment;
  const bool realign = size != VK_WHOLE_SIZE && size >= t.policy.fill_realign_min && ((offset | size) % align) != 0;
  // VK_WHOLE_SIZE from an aligned offset is valid natively and keeps its core meaning
  // (rounded down to whole words) unless the application enabled
  // VK_BINDERY_transfer_any_alignment (vk_bindery.h; docs/transfers.md, "The transparency rule").
  const bool core_whole_size = size == VK_WHOLE_SIZE && offset % 4 == 0 && !t.any_alignment;
  if (!fill_kernels && !realign &&
      (core_whole_size || (size != VK_WHOLE_SIZE && NativeFillAllowed(offset, size)))) {
    t.counters.passed_through->Add();
    t.next.CmdFillBuffer(cb, dst, offset, size, data);
    return;
  }
  // The buffer's size (VK_WHOLE_SIZE) and address (kernels) only when needed.
  const bool edge_kernels = t.KernelsPossible() && t.policy.fill_edge_kernel_min != UINT64_MAX &&
                            (size == VK_WHOLE_SIZE || size >= t.policy.fill_edge_kernel_min);
  const BufferInfo* info =
      size == VK_WHOLE_SIZE || fill_kernels || edge_kernels ? t.trackers().buffers.Find(dst) : nullptr;
  VkDeviceSize bytes = info != nullptr ? ResolveFillSize(info->size, offset, size) : size;
  if (core_whole_size && bytes != VK_WHOLE_SIZE) bytes &= ~VkDeviceSize{3};
  if (bytes == 0 || bytes == VK_WHOLE_SIZE) {
    // Nothing to write, or an unknown buffer: the call as the application made it.
    if (bytes == VK_WHOLE_SIZE || core_whole_size) t.next.CmdFillBuffer(cb, dst, offset, size, data);
    return;
  }
  CommandState* state = t.trackers().FindCommand(cb);
  const VkDeviceAddress address = info != nullptr ? info->address : 0;
  const bool kernel = fill_kernels && bytes >= t.policy.fill_kernel_min && KernelUsable(t, state, address, address);
  if (!kernel && !realign && NativeFillAllowed(offset, bytes)) {
    t.counters.passed_through->Add();
    t.next.CmdFillBuffer(cb, dst, offset, bytes, data);
    return;
  }
  t.counters.polyfilled->Add();
  auto write = [&](uint8_t* out, ByteRange range) { WriteFillBytes(out, range, data, offset); };
  // Small ranges: the whole range from staging is one command where a native middle plus
  // edges would be two.
  const ByteRange whole{offset, bytes};
  if (!kernel && bytes <= kSmallFillFromStaging && state != nullptr &&
      StagingCopy(t, cb, *state, dst, &whole, 1, write)) {
    return;
  }
  // Middle: 16-byte blocks by address for the kernel, the policy's alignment (at least
  // 4-byte words) for the native fill.
  const Split split = SplitAligned({offset, bytes}, kernel ? 16 : align, kernel ? address : 0);
  // The edges go first: they touch other bytes than the middle, and a short copy's fixed
  // latency then overlaps the long middle fill instead of following it (NVIDIA: ~1.4 us per
  // copy region, the 64 MiB fill ~24 us).
  // Edges of whole words (a kernel's 16-byte split of an aligned fill, or the policy's
  // realignment) are native fills: no staging, so a call valid without the layer never
  // depends on staging. Only byte-granular edges are copied from staging.
  ByteRange edges[2] = {split.head, split.tail};
  for (ByteRange& edge : edges) {
    if (!edge.empty() && NativeFillAllowed(edge.offset, edge.size)) {
      t.next.CmdFillBuffer(cb, dst, edge.offset, edge.size, RotatedPattern(data, offset, edge.offset));
      edge = {};
    }
  }
  const VkDeviceSize staged = edges[0].size + edges[1].size;
  const uint32_t pattern = RotatedPattern(data, offset, split.middle.offset);
  if (staged != 0 && edge_kernels && bytes >= t.policy.fill_edge_kernel_min &&
      KernelUsable(t, state, address, address)) {
    const KernelJob middle{KernelKind::kFillVec4, address + split.middle.offset, 0, split.middle.size / 16, pattern};
    NativeFill native{&t.next, cb, dst, split.middle.offset, split.middle.size, pattern};
    const bool has_middle = !split.middle.empty();
    // Edges shorter than 2^30 bytes (always: each is shorter than the split's alignment)
    // need no staging at all.
    if (edges[0].size < (1u << 30) && edges[1].size < (1u << 30)) {
      FillEdgesByEdgeKernel(t, cb, *state, address, edges, RotatedPattern(data, address + offset, 0),
                            has_middle && kernel ? &middle : nullptr, has_middle && !kernel ? &native : nullptr);
      return;
    }
    if (FillEdgesByKernel(t, cb, *state, address, edges, write, has_middle && kernel ? &middle : nullptr,
                          has_middle && !kernel ? &native : nullptr)) {
      return;
    }
  }
  if (staged != 0 && (state == nullptr || !StagingCopy(t, cb, *state, dst, edges, 2, write))) {
    FailRecording(t, state, "the edge bytes of an unaligned vkCmdFillBuffer", staged);
  }
  if (!split.middle.empty()) {
    if (kernel) {
      const KernelJob job{KernelKind::kFillVec4, address + split.middle.offset, 0, split.middle.size / 16, pattern};
      t.kernels.Record(cb, *state, &job, 1);
      t.counters.kernels->Add();
    } else {
      t.next.CmdFillBuffer(cb, dst, split.middle.offset, split.middle.size, pattern);
    }
  }
}

// Writes the batch-kernel table for the regions `in_batch` selects and queues one
// dispatch for them; false (nothing queued) if there are too few or no staging memory.
template <typename RegionFn, typename Select>
bool BatchSmallRegions(DeviceTransfers& t, CommandState& state, CopyRecorder& rec, VkDeviceAddress src_address,
                       VkDeviceAddress dst_address, uint32_t count, RegionFn&& region, Select&& in_batch) {
  uint32_t batch = 0;
  for (uint32_t i = 0; i < count; ++i) batch += in_batch(region(i)) ? 1 : 0;
  if (batch < t.policy.copy_batch_min_regions) return false;
  TransferCommandData* data = DataOf(&state);
  if (data == nullptr) return false;
  const StagingSlice table = data->arena.Allocate(t.staging, VkDeviceSize{batch} * sizeof(RegionRecord));
  if (table.data == nullptr || table.address == 0) return false;
  auto* records = reinterpret_cast<RegionRecord*>(table.data);
  for (uint32_t i = 0, n = 0; i < count; ++i) {
    const VkBufferCopy r = region(i);
    if (!in_batch(r)) continue;
    const uint64_t src = src_address + r.srcOffset, dst = dst_address + r.dstOffset;
    const uint64_t src_word = src & ~uint64_t{3}, dst_word = dst & ~uint64_t{3};
    records[n++] = {{static_cast<uint32_t>(src_word), static_cast<uint32_t>(src_word >> 32)},
                    {static_cast<uint32_t>(dst_word), static_cast<uint32_t>(dst_word >> 32)},
                    static_cast<uint32_t>(r.size),
                    static_cast<uint32_t>(src & 3),
                    static_cast<uint32_t>(dst & 3),
                    0};
  }
  rec.Kernel({KernelKind::kCopyRegions, table.address, 0, batch, 0});
  return true;
}

// vkCmdCopyBuffer and vkCmdCopyBuffer2 share this; `region(i)` yields a VkBufferCopy and
// `forward()` sends the application's call down as it was made. Calls no region of which
// needs the layer are forwarded untouched (vkCmdCopyBuffer2 keeps its pNext chains).
// Otherwise many small regions go to one batched dispatch where the policy says so; every
// other region is split between a kernel (its aligned middle) and native edges, or copied
// natively, by CopyRegion.
template <typename RegionFn, typename ForwardFn>
void CopyBufferCommon(DeviceTransfers& t, VkCommandBuffer cb, VkBuffer src, VkBuffer dst, uint32_t count,
                      RegionFn&& region, ForwardFn&& forward) {
  FlushIfPending(t, cb);
  CommandState* state = t.trackers().FindCommand(cb);
  const VkDeviceAddress src_address = AddressOf(t, src);
  const VkDeviceAddress dst_address = AddressOf(t, dst);
  const bool kernels_ok = KernelUsable(t, state, src_address, dst_address);
  if (!CopyNeedsLayer(t, kernels_ok, dst_address, count, region)) {
    t.counters.passed_through->Add();
    forward();
    return;
  }
  CopyRecorder rec(t, cb, state, src, dst);
  auto small = [&](const VkBufferCopy& r) { return r.size != 0 && r.size <= t.policy.copy_batch_max_region; };
  const bool batched = count >= t.policy.copy_batch_min_regions &&
                       BatchSmallRegions(t, *state, rec, src_address, dst_address, count, region, small);
  bool polyfilled = batched;
  for (uint32_t i = 0; i < count; ++i) {
    const VkBufferCopy r = region(i);
    if (r.size != 0 && !(batched && small(r))) {
      polyfilled |= CopyRegion(t, rec, kernels_ok, src_address, dst_address, r);
    }
  }
  (polyfilled ? t.counters.polyfilled : t.counters.passed_through)->Add();
}

VKAPI_ATTR void VKAPI_CALL CmdCopyBuffer(VkCommandBuffer cb, VkBuffer src, VkBuffer dst, uint32_t count,
                                         const VkBufferCopy* regions) {
  DeviceTransfers* t = FindTransfers(cb);
  if (t == nullptr) return NextOf(cb).CmdCopyBuffer(cb, src, dst, count, regions);
  CopyBufferCommon(
      *t, cb, src, dst, count, [&](uint32_t i) { return regions[i]; },
      [&] { t->next.CmdCopyBuffer(cb, src, dst, count, regions); });
}

template <typename ForwardFn>
static void CopyBuffer2Common(DeviceTransfers& t, VkCommandBuffer cb, const VkCopyBufferInfo2* info,
                              ForwardFn&& forward) {
  CopyBufferCommon(
      t, cb, info->srcBuffer, info->dstBuffer, info->regionCount,
      [&](uint32_t i) {
        const VkBufferCopy2& r = info->pRegions[i];
        return VkBufferCopy{r.srcOffset, r.dstOffset, r.size};
      },
      forward);
}

VKAPI_ATTR void VKAPI_CALL CmdCopyBuffer2(VkCommandBuffer cb, const VkCopyBufferInfo2* info) {
  DeviceTransfers* t = FindTransfers(cb);
  if (t == nullptr) return NextOf(cb).CmdCopyBuffer2(cb, info);
  CopyBuffer2Common(*t, cb, info, [&] { t->next.CmdCopyBuffer2(cb, info); });
}

VKAPI_ATTR void VKAPI_CALL CmdCopyBuffer2KHR(VkCommandBuffer cb, const VkCopyBufferInfo2* info) {
  DeviceTransfers* t = FindTransfers(cb);
  if (t == nullptr) return NextOf(cb).CmdCopyBuffer2KHR(cb, info);
  CopyBuffer2Common(*t, cb, info, [&] { t->next.CmdCopyBuffer2KHR(cb, info); });
}

// Aligned words of an update go down as native updates of at most 65536 bytes each (no
// staging); the rest — the unaligned edges (fewer than 4 bytes each, or a whole update of
// under 8 bytes) — is captured into staging and copied.
static void UpdateNatively(DeviceTransfers& t, VkCommandBuffer cb, CommandState* state, VkBuffer dst,
                           VkDeviceSize offset, VkDeviceSize size, const void* data) {
  constexpr VkDeviceSize kMaxNativeUpdate = 65536;
  const auto* bytes = static_cast<const uint8_t*>(data);
  const Split split = SplitAligned({offset, size}, 4);
  for (VkDeviceSize at = split.middle.offset; at < split.middle.end(); at += kMaxNativeUpdate) {
    const VkDeviceSize n = std::min(kMaxNativeUpdate, split.middle.end() - at);
    t.next.CmdUpdateBuffer(cb, dst, at, n, bytes + (at - offset));
  }
  const ByteRange edges[2] = {split.head, split.tail};
  auto write = [&](uint8_t* out, ByteRange range) { std::memcpy(out, bytes + (range.offset - offset), range.size); };
  const VkDeviceSize staged = split.head.size + split.tail.size;
  if (staged != 0 && (state == nullptr || !StagingCopy(t, cb, *state, dst, edges, 2, write))) {
    FailRecording(t, state, "the unaligned edges of a vkCmdUpdateBuffer", staged);
  }
}

VKAPI_ATTR void VKAPI_CALL CmdUpdateBuffer(VkCommandBuffer cb, VkBuffer dst, VkDeviceSize offset, VkDeviceSize size,
                                           const void* data) {
  DeviceTransfers* found = FindTransfers(cb);
  if (found == nullptr) return NextOf(cb).CmdUpdateBuffer(cb, dst, offset, size, data);
  DeviceTransfers& t = *found;
  if (t.small_writes()) {
    if (QueueUpdate(t, cb, dst, offset, size, data)) return;
    FlushIfPending(t, cb);
  }
  if (NativeUpdateAllowed(offset, size)) {
    t.counters.passed_through->Add();
    t.next.CmdUpdateBuffer(cb, dst, offset, size, data);
    return;
  }
  if (size == 0) return;
  t.counters.polyfilled->Add();
  CommandState* state = t.trackers().FindCommand(cb);
  const VkDeviceAddress dst_address = AddressOf(t, dst);
  const bool aligned = ((offset | size) & 3) == 0;
  // Where a kernel pays for the copy, the data is captured into staging and copied like
  // any other source. Aligned updates (only too big for one native update) never need
  // staging.
  // Small unaligned updates are also captured whole: one copy command where a native
  // update plus edge copies would be two or three.
  TransferCommandData* command = DataOf(state);
  const bool kernel = !aligned && t.KernelsPossible() && dst_address != 0 && size >= t.policy.CopyThreshold(false);
  const bool whole = command != nullptr && !aligned && (kernel || size <= kSmallFillFromStaging);
  const StagingSlice slice = whole ? command->arena.Allocate(t.staging, size) : StagingSlice{};
  if (slice.data == nullptr) {
    UpdateNatively(t, cb, state, dst, offset, size, data);
    return;
  }
  std::memcpy(slice.data, data, size);
  t.counters.edge_copies->Add();
  const VkBufferCopy region{slice.offset, offset, size};
  const VkDeviceAddress chunk_address = slice.address == 0 ? 0 : slice.address - slice.offset;
  CopyRecorder rec(t, cb, state, slice.buffer, dst);
  CopyRegion(t, rec, KernelUsable(t, state, chunk_address, dst_address), chunk_address, dst_address, region);
}

}  // namespace bindery::transfer
