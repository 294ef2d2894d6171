// Where a finished root goes. In push constants (the root fits): after the application's
// own, with one vkCmdPushConstants (the layout's extended ranges cover it for every stage,
// root_layout.h). In the ring (push constants are full): the bytes update the command
// buffer's copy of the root at that bind point, the whole root is copied to a new slot of
// the command buffer's ring, and the reserved set of the slot's block is bound with the
// slot's offset as its dynamic offset. A slot is never rewritten: draws and dispatches
// recorded earlier keep reading the root they were recorded with.
#include <cstring>

#include "bindings/bindings_device.h"

namespace bindery::bindings {

void DeliverRoot(DeviceBindings& b, VkCommandBuffer cb, VkPipelineBindPoint bindPoint, VkPipelineLayout layout,
                 const PipelineLayoutShadow& pl, uint32_t lo, uint32_t hi, const uint8_t* bytes) {
  if (!pl.root.in_buffer) {
    b.next.CmdPushConstants(cb, layout, pl.root_stages, lo, hi - lo, bytes);
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
  b.next.CmdBindDescriptorSets(cb, bindPoint, layout, pl.root.buffer_set, 1, &slot.block->root_set, 1, &offset);
}

}  // namespace bindery::bindings
