// The order of the stack, outermost first — the only file that names every capability.
//
//   timeline (semaphores, submissions)
//   indirect bindings (descriptors, pipelines, binds)
//   tracking stage (chassis: buffers, memory, command state sent down)
//   transfers (fill, update, copy)
//   driver (the next layer)
//
// Each capability sees the calls of those above it as the application's. The tracking
// stage sits below the capabilities that rewrite state (so it records the rewritten
// pipelines and root pushes actually sent down) and above transfers, whose kernels must
// put that state back after they run.
#include "shell/capabilities.h"

#include "bindings/device/bindings_capability.h"
#include "chassis/tracking_stage.h"
#include "timeline/timeline_capability.h"
#include "transfer/transfer_capability.h"

namespace bindery {

CapabilityList LayerCapabilities() {
  static Capability* items[] = {&timeline::TimelineCapability(), &bindings::BindingsCapability(), &TrackingStage(),
                                &transfer::TransferCapability()};
  static_assert(sizeof(items) / sizeof(items[0]) <= kMaxCapabilities, "raise kMaxCapabilities");
  static const bool slotted = [] {
    for (uint32_t i = 0; i < sizeof(items) / sizeof(items[0]); ++i) items[i]->set_slot(i);
    return true;
  }();
  (void)slotted;
  return {items, sizeof(items) / sizeof(items[0])};
}

}  // namespace bindery
