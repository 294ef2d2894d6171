// Where a finished root goes. In push constants (the root fits): after the application's
// own, with one vkCmdPushConstants (the layout's extended ranges cover it for every stage,
// root_layout.h). In the ring (push constants are full): the bytes update the command
// buffer's copy of the root at that bind point, the whole root is copied to a new slot of
// the command buffer's ring, and the reserved set of the slot's block is bound with the
// slot's offset as its dynamic offset — or, where the layout has no reserved set (every set
// the driver binds is the application's: RootLayout::address_in_push), the slot's device
// address is pushed in 8 bytes of push constants instead (PushRingAddress), kept with the
// bind point's root bytes so that it is sent again where something else went over it. A
// slot is never rewritten: draws and dispatches recorded earlier keep reading the root
// they were recorded with.
//
// Layouts compatible for a set may keep their roots in different places: a layout with
// more sets (or larger ones) than another with the same push-constant ranges may have its
// root in the ring where the other's fits in push constants, or its slots in push
// constants moved (RootLayout::reshaped_sets, root_layout.h). A set bound
// through one is valid for a pipeline of the other, so before a draw or dispatch the
// pipeline's sets whose slots went to the other place are delivered where it reads them
// (DeliverMovedSlots), from what the bind point recorded of the bind or push.
//
// Hot path: the delivery takes no lock (the ring's pool lock once per 64 KiB of slots);
// the draw-time checks below cost nothing until a device has a ring pipeline, and then a
// mask test per draw and one lookup per pipeline bind.
#include "bindings/record/root_delivery.h"

#include <cstring>

#include "bindings/record/record_store.h"
#include "bindings/record/bind_hooks.h"
#include "bindings/record/fallback_binds.h"
#include "bindings/pipelines/native_twin.h"

namespace bindery::bindings {
namespace {

// A ring root's address (RootLayout::address_in_push) pushed at bind point `index`
// through `layout`: kept as root bytes in push constants (re-sent where an application
// push or the other bind point's root overwrites it: bind_point_state.cpp). Its 8 bytes
// lie over the first root slot that layouts with the same ranges keep in push constants,
// so no slot is known to be there any more (DeliverMovedSlots gives a pipeline reading
// them there its slots back).
void PushRingAddress(RecordStore& b, VkCommandBuffer cb, BindingsCommandData& data, int index, VkPipelineLayout layout,
                     uint32_t at, VkShaderStageFlags stages, uint64_t ranges_key, VkDeviceAddress address) {
  uint8_t bytes[8];
  std::memcpy(bytes, &address, 8);
  b.next.CmdPushConstants(cb, layout, stages, at, 8, bytes);
  if (index < 0) return;
  data.points[index].slots_in_push = 0;
  data.points[index].ring_address = address;
  if (NoteRootDelivered(data.points, index, layout, ranges_key, stages, at, at + 8, bytes)) b.MarkStalePush();
}

// Is the address pipeline `p` reads still in push constants at bind point `index`? The
// bind point's root image holds every root byte pushed here, made stale where anything
// else was pushed over it (application pushes, the other bind point's roots): any other
// root (another pipeline's slots delivered over it) or a stale span there means no.
bool RingAddressIntact(const BindPointState& point, const RingPipeline& p, int index) {
  const RootImage& root = point.root;
  const uint32_t at = p.address_at[index];
  if (root.ranges_key != p.ranges_key || root.lo > at || root.hi < at + 8 || at + 8 > kPushImageBytes) return false;
  if (root.Stale() && root.stale_hi > at && root.stale_lo < at + 8) return false;
  return std::memcmp(root.bytes + at, &point.ring_address, 8) == 0;
}

}  // namespace

bool RingRootInPlace(const BindPointState& point, const RingPipeline& p, int index) {
  return !point.ring_disturbed && (point.ring_layout == p.layout || point.ring_layout == p.copy) &&
         (!p.address_in_push || (index >= 0 && RingAddressIntact(point, p, index)));
}

void DeliverRoot(const RecordContext& c, VkPipelineBindPoint bindPoint, VkPipelineLayout layout,
                 const PipelineLayoutShadow& pl, uint32_t lo, uint32_t hi, const uint8_t* bytes, uint32_t slot_sets) {
  RecordStore& b = c.b;
  const VkCommandBuffer cb = c.cb;
  if (!pl.root.in_buffer) {
    // The bind point's own copy of the root (RootPushSpace: the compute one in bytes no
    // graphics-only range covers), naming every stage whose range covers it.
    const int index = BindPointIndex(bindPoint);
    const uint32_t shift = pl.RootShift(index);
    const VkShaderStageFlags stages = pl.RootStages(index);
    b.next.CmdPushConstants(cb, layout, stages, lo + shift, hi - lo, bytes);
    // The other bind point's stages among them re-get their bytes before their next draw
    // or dispatch (bind_point_state.h).
    BindingsCommandData* data = c.data;
    if (data == nullptr) return;
    if (index >= 0) data->points[index].NoteSlotsDelivered(slot_sets, false, pl.root.reshaped_sets);
    if (index >= 0 ? NoteRootDelivered(data->points, index, layout, pl.ranges_key, stages, lo + shift, hi + shift, bytes)
                   : NotePushConstants(*data, layout, stages, lo + shift, hi + shift, bytes, index)) {
      b.MarkStalePush();
    }
    return;
  }
  BindingsCommandData* data = c.data;
  BindingsCommandData::BindPoint* point = data != nullptr ? data->At(bindPoint) : nullptr;
  if (point == nullptr || hi > kRingRootBytes) return;  // not recordable (layouts with such roots are never planned)
  std::memcpy(point->ring_root + lo, bytes, hi - lo);
  const RingSlice slot = data->ring.Allocate(data->pool(), pl.root.end, b.ring_alignment);
  if (slot.data == nullptr || (slot.block->root_set == VK_NULL_HANDLE && !pl.root.address_in_push)) {
    data->Fail(VK_ERROR_OUT_OF_DEVICE_MEMORY);  // vkEndCommandBuffer reports it
    return;
  }
  std::memcpy(slot.data, point->ring_root, pl.root.end);
  point->ring_root_written = true;
  point->ring_layout = layout;
  point->ring_disturbed = false;
  if (pl.root.address_in_push) {
    // Its address in push constants: nothing is bound, so no set of a pipeline running
    // natively here is disturbed.
    const int index = BindPointIndex(bindPoint);
    PushRingAddress(b, cb, *data, index, layout, pl.root.AddressAt(index), pl.RootStages(index), pl.ranges_key,
                    slot.address);
    point->NoteSlotsDelivered(slot_sets, true);
    return;
  }
  const uint32_t offset = slot.offset;
  b.next.CmdBindDescriptorSets(cb, bindPoint, layout, pl.root.native_buffer_set, 1, &slot.block->root_set, 1, &offset);
  point->NoteSlotsDelivered(slot_sets, true);
  // That bind went through the layout sent down, not a full layout: a pipeline running
  // natively (or a twin) bound here lost the full sets it was given, from the reserved
  // set's number on (and below, by the spec's rules: the layouts are not compatible). Its
  // next draw or dispatch binds them again (BindFullSets), and the pushes with them.
  if (point->fallback != nullptr || point->twin_bound) point->fallback_applied = false;
}

void NoteSetsBoundInRing(const RecordContext& c, VkPipelineBindPoint bindPoint, VkPipelineLayout layout) {
  BindingsCommandData* data = c.data;
  BindingsCommandData::BindPoint* point = data != nullptr ? data->At(bindPoint) : nullptr;
  if (point != nullptr && layout != point->ring_layout) point->ring_disturbed = true;
}

// The reserved set is bound per layout, at the layout's set count: a bind through a
// layout with another set count (compatible for the sets the pipeline uses, so valid for
// the application) leaves the pipeline's reserved set disturbed or stale. Before the draw
// the pipeline then gets a new copy of the bind point's root through its own layout's
// copy (identical to it, so the application's sets below stay bound).
void RestoreRingRoot(RecordStore& b, VkCommandBuffer cb, VkPipelineBindPoint bindPoint, BindingsCommandData& data,
                     BindPointState& point) {
  if (!b.any_ring.load(std::memory_order_acquire)) return;
  // (A native twin bound instead of the pipeline reads no root: native_twin.cpp.)
  if (point.ring_pipeline == nullptr || !point.ring_root_written || point.twin_bound) return;
  const RingPipeline& p = *point.ring_pipeline;
  const int index = BindPointIndex(bindPoint);
  if (RingRootInPlace(point, p, index)) return;
  const RingSlice slot = data.ring.Allocate(data.pool(), p.root_end, b.ring_alignment);
  if (slot.data == nullptr || (slot.block->root_set == VK_NULL_HANDLE && !p.address_in_push)) {
    data.Fail(VK_ERROR_OUT_OF_DEVICE_MEMORY);
    return;
  }
  std::memcpy(slot.data, point.ring_root, p.root_end);
  point.ring_layout = p.copy;
  point.ring_disturbed = false;
  if (p.address_in_push) {
    if (index >= 0) {
      PushRingAddress(b, cb, data, index, p.copy, p.address_at[index], p.address_stages[index], p.ranges_key,
                      slot.address);
    }
    return;
  }
  const uint32_t offset = slot.offset;
  b.next.CmdBindDescriptorSets(cb, bindPoint, p.copy, p.buffer_set, 1, &slot.block->root_set, 1, &offset);
}

namespace {

// Set `i`'s root slot as pipeline layout `pl` lays it out, from what the bind point holds
// there: a set bound, or a push's block, through a layout compatible with `pl` for `i` and
// not disturbed since. Returns its length (0: nothing `pl`'s pipelines can read there), and
// in `*through` the layout it went down through (alive: it was used in this recording, and
// its push-constant ranges are `pl`'s).
uint32_t SlotOfSet(RecordStore& b, const BindPointState& point, const PipelineLayoutShadow& pl, uint32_t i,
                   uint8_t* out, VkPipelineLayout* through) {
  const SetRoot& r = pl.root.sets[i];
  const BoundSet& bound = point.sets[i];
  const PushCopy& pushed = point.push_copy[i];
  VkPipelineLayout layout = VK_NULL_HANDLE;
  uint32_t order = 0;
  if (bound.set != VK_NULL_HANDLE) {
    layout = bound.layout;
    order = bound.order;
  } else if (pushed.order != 0 && point.push_address[i] != 0 && point.push_layout[i] != nullptr) {
    layout = pushed.app_layout;
    order = pushed.order;
  }
  if (layout == VK_NULL_HANDLE) return 0;
  const PipelineLayoutShadow* bound_layout = b.pipeline_layouts.Find(layout);
  if (bound_layout == nullptr || !CompatibleFor(*bound_layout, pl, i) || DisturbedSince(b, point, i, order, layout)) {
    return 0;
  }
  *through = layout;
  if (bound.set != VK_NULL_HANDLE) return WriteBoundSetSlot(b, r, bound.set, bound.dynamic, bound.dynamic_count, out);
  // A push-descriptor set's slot is its block's address (never records: root_layout.h).
  std::memcpy(out, &point.push_address[i], 8);
  return 8;
}

}  // namespace

void DeliverMovedSlots(RecordStore& b, VkCommandBuffer cb, VkPipelineBindPoint bindPoint, BindingsCommandData& data,
                       BindPointState& point) {
  // (A pipeline running natively, or a twin, reads no root.)
  if (point.untrackable || point.fallback != nullptr || point.twin_bound || point.pipeline == VK_NULL_HANDLE) return;
  if (!point.pipeline_root_known) {
    point.pipeline_root = b.root_pipelines.Find(point.pipeline);
    point.pipeline_root_known = true;
  }
  const RootPipeline* p = point.pipeline_root;
  if (p == nullptr) return;
  const PipelineLayoutShadow& pl = p->base->layout;
  const bool ring = pl.root.in_buffer;
  // (A layout whose slots moved to fit reads its own shape of them: delivered every time.)
  uint32_t moved = p->slot_sets & (~(ring ? point.slots_in_ring : point.slots_in_push) | pl.root.reshaped_sets);
  if (moved == 0) return;
  // Cold path: a set bound for a pipeline whose compatible layout keeps its root elsewhere.
  const int index = BindPointIndex(bindPoint);
  bool ring_changed = false;
  for (uint32_t i = 0; moved != 0; ++i, moved >>= 1) {
    if ((moved & 1) == 0 || i >= pl.root.sets.size()) continue;
    alignas(8) uint8_t bytes[kRingRootBytes];
    VkPipelineLayout through = VK_NULL_HANDLE;
    const uint32_t lo = pl.root.sets[i].root_offset;
    const uint32_t n = SlotOfSet(b, point, pl, i, bytes, &through);
    if (n == 0) continue;
    if (ring) {
      if (lo + n > kRingRootBytes) continue;
      std::memcpy(point.ring_root + lo, bytes, n);
      point.NoteSlotsDelivered(BindPointState::SetMask(i, 1), true);
      ring_changed = true;
      continue;
    }
    // Through the layout the set went down with: its push-constant ranges are the
    // pipeline's (compatible), and it is alive (used in this recording).
    const uint32_t shift = pl.RootShift(index);
    const VkShaderStageFlags stages = pl.RootStages(index);
    b.next.CmdPushConstants(cb, through, stages, lo + shift, n, bytes);
    point.NoteSlotsDelivered(BindPointState::SetMask(i, 1), false, pl.root.reshaped_sets);
    if (NoteRootDelivered(data.points, index, through, pl.ranges_key, stages, lo + shift, lo + shift + n, bytes)) {
      b.MarkStalePush();
    }
  }
  if (ring_changed) {
    // RestoreRingRoot (next) binds a copy of the bind point's ring root for the pipeline.
    point.ring_root_written = true;
    point.ring_disturbed = true;
  }
}

}  // namespace bindery::bindings
