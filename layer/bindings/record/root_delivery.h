// Where the root goes and how it gets back (root_delivery.cpp).
#pragma once

#include <cstdint>

#include <vulkan/vulkan.h>

#include "bindings/record/command_data.h"
#include "bindings/record/record_store.h"

namespace bindery::bindings {

// Root delivery and the reserved set (root_delivery.cpp): sets bound through `layout`
// may have disturbed the reserved set; before a draw or dispatch, the bound pipeline gets
// its reserved set back when they did.
// Inline until the device has a ring root: every bind pays the test, and only then the call.
void NoteSetsBoundInRing(const RecordContext& c, VkPipelineBindPoint bindPoint, VkPipelineLayout layout);
inline void NoteSetsBound(const RecordContext& c, VkPipelineBindPoint bindPoint, VkPipelineLayout layout) {
  if (c.b.any_ring.load(std::memory_order_acquire)) NoteSetsBoundInRing(c, bindPoint, layout);
}
// Does the ring pipeline `p` bound at `point` (bind point `index`) read its root where it
// is (its reserved set bound through its layout, undisturbed; its address intact in push
// constants)? RestoreRingRoot has nothing to do then.
bool RingRootInPlace(const BindPointState& point, const RingPipeline& p, int index);
void RestoreRingRoot(RecordStore& b, VkCommandBuffer cb, VkPipelineBindPoint bindPoint, BindingsCommandData& data,
                     BindPointState& point);
// Delivers root bytes [lo, hi) of `pl`'s root (`bytes`: those hi - lo bytes) to where the
// rewritten pipelines read them (root_delivery.cpp): the one place that knows where the
// root lives.
// `slot_sets`: the sets whose root slots the bytes are (bit i: set i), noted as delivered
// there (BindPointState::NoteSlotsDelivered).
void DeliverRoot(const RecordContext& c, VkPipelineBindPoint bindPoint, VkPipelineLayout layout,
                 const PipelineLayoutShadow& pl, uint32_t lo, uint32_t hi, const uint8_t* bytes, uint32_t slot_sets);
// Before a draw or dispatch of a rewritten pipeline: the root slots of the sets it reads
// that went down through compatible layouts keeping their roots in the other place (push
// constants or the ring) are delivered where it reads them (root_delivery.cpp).
void DeliverMovedSlots(RecordStore& b, VkCommandBuffer cb, VkPipelineBindPoint bindPoint, BindingsCommandData& data,
                       BindPointState& point);

}  // namespace bindery::bindings
