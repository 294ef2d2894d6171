// Whether the pre-draw step (PrepareDraw) at a bind point has nothing to do: a test of
// the bind point's own state, inline for the draw hooks (draw_hooks.cpp: they skip the step
// then) and for the step itself (it notes the bind point settled when it leaves nothing).
#pragma once

#include <cstdint>

#include "bindings/descriptors/twin_layout.h"
#include "bindings/model/device_core.h"
#include "bindings/pipelines/pipeline_shadows.h"
#include "bindings/record/bind_point_state.h"
#include "bindings/record/root_delivery.h"

namespace bindery::bindings {

// Would the pre-draw step at this bind point send nothing and change nothing? Each test
// is the early return of one of its steps, so true means the step is a no-op now, and
// stays one until something is recorded at the command buffer's bind points (or the
// device's `work` changes): the next draw or dispatch may skip it then
// (BindingsCommandData::settled). Conservative: a case that depends on more than the
// bind point's own state (the contents of sets a twin decision reads, which an update
// after bind may change) is never a no-op here, nor is one that has anything left to
// send (slots not delivered, a ring root disturbed, bytes the pipeline reads stale).
inline bool NothingToPrepare(uint32_t work, const BindPointState& point, int index) {
  if (point.fallback != nullptr && !point.fallback_applied) return false;
  // (A pipeline has a twin only once the device needs twins: ApplyTwin's first test holds.)
  if (point.twin != nullptr && !point.untrackable) return false;
  if ((work & DeviceCore::kWorkRing) != 0) {
    // DeliverMovedSlots: nothing moved for the bound pipeline (its reshaped sets are
    // delivered at every draw: never settled).
    if (!point.untrackable && point.fallback == nullptr && !point.twin_bound && point.pipeline != VK_NULL_HANDLE) {
      if (!point.pipeline_root_known) return false;
      if (const RootPipeline* p = point.pipeline_root) {
        const RootLayout& root = p->base->layout.root;
        const uint32_t delivered = root.in_buffer ? point.slots_in_ring : point.slots_in_push;
        if ((p->slot_sets & (~delivered | root.reshaped_sets)) != 0) return false;
      }
    }
    // RestoreRingRoot: the ring pipeline's root where it reads it.
    if (point.ring_pipeline != nullptr && point.ring_root_written && !point.twin_bound &&
        !RingRootInPlace(point, *point.ring_pipeline, index)) {
      return false;
    }
  }
  if (point.image.Stale()) return false;
  // Stale bytes of ranges the bound pipeline does not read stay as they are (step 5).
  if (point.root.Stale() || point.app.Stale()) {
    if (point.pipeline != VK_NULL_HANDLE && !point.pipeline_ranges_known) return false;
    const uint64_t key = point.pipeline != VK_NULL_HANDLE ? point.pipeline_ranges_key : 0;
    if (point.app.Stale() && (key == 0 || key == point.app.ranges_key)) return false;
    if (point.root.Stale() && (key == 0 || key == point.root.ranges_key)) return false;
  }
  return true;
}

// Does the pre-draw step at `point` still find nothing to do after a root delivered there
// in push constants that marked nothing stale: a bind of root-only sets (BindRootOnlySets,
// bind_hooks.cpp) or a push of descriptors wholly into a block of records
// (push_descriptor_hooks.cpp)? The other bind point is then untouched, and this one's
// images only got fresher; what may have changed is what a pipeline running natively is
// given (it has none), where root slots were delivered (its pipeline has them all where it
// reads them) and its ring root (it has none). Asked only where the bind point was settled
// before: the other early returns of NothingToPrepare held then and the bind or push
// changed nothing they read.
inline bool StaysSettledAfterRoot(const BindPointState& point) {
  if (point.fallback != nullptr || point.ring_pipeline != nullptr) return false;
  const RootPipeline* p = point.pipeline_root;
  if (p == nullptr) return true;
  const RootLayout& root = p->base->layout.root;
  const uint32_t delivered = root.in_buffer ? point.slots_in_ring : point.slots_in_push;
  return (p->slot_sets & (~delivered | root.reshaped_sets)) == 0;
}

}  // namespace bindery::bindings
