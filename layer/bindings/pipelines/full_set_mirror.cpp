// Application writes made to the full native set of a converted set (the set a pipeline
// running natively, or a native twin, reads: fallback.cpp). Writing each update through
// as the application makes it keeps the full set current without rewriting it whole:
// - an update after bind (valid while a command buffer that bound the set is recorded or
//   executing, for bindings with that flag) reaches the full set those command buffers
//   bound, as it reaches the application's set natively (the full layout keeps the flag);
// - any other update invalidates, by the spec, the command buffers that bound the set,
//   which are exactly those that bound its full set: nothing still valid reads a
//   descriptor this changes.
// Cold path for most programs (only sets that have been materialised): one device mutex.
#include <mutex>

#include "bindings/device/bindings_device.h"

namespace bindery::bindings {

bool DeviceBindings::MirrorWrite(SetShadow& set, const VkWriteDescriptorSet& write) {
  // Never materialised (the common case): no lock, the shadow decides later.
  if (set.full == VK_NULL_HANDLE) return false;
  std::lock_guard<std::mutex> lock(fallback_mutex);
  if (set.full == VK_NULL_HANDLE || set.full_stale) return false;  // rewritten from the shadow on next use
  // A write of a binding a full set does not have (never for a valid write) or with a
  // chain the layer cannot vouch for: left to the next materialisation.
  VkWriteDescriptorSet w = write;
  w.dstSet = set.full;
  next.UpdateDescriptorSets(device.handle, 1, &w, 0, nullptr);
  return true;
}

}  // namespace bindery::bindings
