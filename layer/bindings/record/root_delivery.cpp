// Where a finished root goes. In push constants (the root fits): after the application's
// own, with one vkCmdPushConstants (the layout's extended ranges cover it for every stage,
// root_layout.h). In the ring (push constants are full): the bytes update the command
// buffer's copy of the root at that bind point, the whole root is copied to a new slot of
// the command buffer's ring, and the reserved set of the slot's block is bound with the
// slot's offset as its dynamic offset. A slot is never rewritten: draws and dispatches
// recorded earlier keep reading the root they were recorded with.
//
// Hot path: the delivery takes no lock (the ring's pool lock once per 64 KiB of slots);
// the draw-time check below costs nothing until a device has a ring pipeline.
#include <cstring>

#include "bindings/device/bindings_device.h"

namespace bindery::bindings {

void DeliverRoot(DeviceBindings& b, VkCommandBuffer cb, VkPipelineBindPoint bindPoint, VkPipelineLayout layout,
                 const PipelineLayoutShadow& pl, uint32_t lo, uint32_t hi, const uint8_t* bytes) {
  if (!pl.root.in_buffer) {
    // The bind point's own copy of the root (RootPushSpace: the compute one in bytes no
    // graphics-only range covers), naming every stage whose range covers it.
    const int index = BindPointIndex(bindPoint);
    const uint32_t shift = pl.RootShift(index);
    const VkShaderStageFlags stages = pl.RootStages(index);
    b.next.CmdPushConstants(cb, layout, stages, lo + shift, hi - lo, bytes);
    // The other bind point's stages among them re-get their bytes before their next draw
    // or dispatch (bind_point_state.h).
    BindingsCommandData* data = CommandDataOf(b, cb);
    if (data == nullptr) return;
    if (index >= 0 ? NoteRootDelivered(data->points, index, layout, pl.ranges_key, stages, lo + shift, hi + shift, bytes)
                   : NotePushConstants(*data, layout, stages, lo + shift, hi + shift, bytes, index)) {
      b.MarkStalePush();
    }
    return;
  }
  BindingsCommandData* data = CommandDataOf(b, cb);
  BindingsCommandData::BindPoint* point = data != nullptr ? data->At(bindPoint) : nullptr;
  if (point == nullptr || hi > kRingRootBytes) return;  // not recordable (layouts with such roots are never planned)
  std::memcpy(point->ring_root + lo, bytes, hi - lo);
  const RingSlice slot = data->ring.Allocate(data->pool(), pl.root.end, b.ring_alignment);
  if (slot.data == nullptr || slot.block->root_set == VK_NULL_HANDLE) {
    data->Fail(VK_ERROR_OUT_OF_DEVICE_MEMORY);  // vkEndCommandBuffer reports it
    return;
  }
  std::memcpy(slot.data, point->ring_root, pl.root.end);
  const uint32_t offset = slot.offset;
  b.next.CmdBindDescriptorSets(cb, bindPoint, layout, pl.root.native_buffer_set, 1, &slot.block->root_set, 1, &offset);
  point->ring_root_written = true;
  point->ring_layout = layout;
  point->ring_disturbed = false;
}

void NoteSetsBoundInRing(DeviceBindings& b, VkCommandBuffer cb, VkPipelineBindPoint bindPoint,
                         VkPipelineLayout layout) {
  BindingsCommandData* data = CommandDataOf(b, cb);
  BindingsCommandData::BindPoint* point = data != nullptr ? data->At(bindPoint) : nullptr;
  if (point != nullptr && layout != point->ring_layout) point->ring_disturbed = true;
}

// The reserved set is bound per layout, at the layout's set count: a bind through a
// layout with another set count (compatible for the sets the pipeline uses, so valid for
// the application) leaves the pipeline's reserved set disturbed or stale. Before the draw
// the pipeline then gets a new copy of the bind point's root through its own layout's
// copy (identical to it, so the application's sets below stay bound).
void RestoreRingRoot(DeviceBindings& b, VkCommandBuffer cb, VkPipelineBindPoint bindPoint, BindingsCommandData& data,
                     BindPointState& point) {
  if (!b.any_ring.load(std::memory_order_acquire)) return;
  // (A native twin bound instead of the pipeline reads no root: native_twin.cpp.)
  if (point.ring_pipeline == nullptr || !point.ring_root_written || point.twin_bound) return;
  const RingPipeline& p = *point.ring_pipeline;
  if (!point.ring_disturbed && (point.ring_layout == p.layout || point.ring_layout == p.copy)) return;
  const RingSlice slot = data.ring.Allocate(data.pool(), p.root_end, b.ring_alignment);
  if (slot.data == nullptr || slot.block->root_set == VK_NULL_HANDLE) {
    data.Fail(VK_ERROR_OUT_OF_DEVICE_MEMORY);
    return;
  }
  std::memcpy(slot.data, point.ring_root, p.root_end);
  const uint32_t offset = slot.offset;
  b.next.CmdBindDescriptorSets(cb, bindPoint, p.copy, p.buffer_set, 1, &slot.block->root_set, 1, &offset);
  point.ring_layout = p.copy;
  point.ring_disturbed = false;
}

}  // namespace bindery::bindings
