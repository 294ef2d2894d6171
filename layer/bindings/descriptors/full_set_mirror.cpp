// Application writes made to the full native set of a converted set (the set a pipeline
// running natively, or a native twin, reads: full_sets.cpp). Writing each update through
// as the application makes it keeps the full set current without rewriting it whole:
// - an update after bind (valid while a command buffer that bound the set is recorded or
//   executing, for bindings with that flag) reaches the full set those command buffers
//   bound, as it reaches the application's set natively (the full layout keeps the flag);
// - any other update invalidates, by the spec, the command buffers that bound the set,
//   which are exactly those that bound its full set: nothing still valid reads a
//   descriptor this changes.
// Copies and template updates are mirrored the same way: buffer descriptors written into
// converted bindings, native ranges copied from the application's set once the update
// went down; where that cannot be exact the full set is rewritten from the shadow at its
// next use instead.
// Cold path for most programs (only sets that have been materialised): one device mutex.
#include <mutex>

#include "bindings/descriptors/descriptor_store.h"

namespace bindery::bindings {

bool DescriptorStore::MirrorWrite(SetShadow& set, const VkWriteDescriptorSet& write) {
  // Never materialised (the common case): no lock, the shadow decides later.
  if (set.full == VK_NULL_HANDLE) return false;
  std::lock_guard<std::mutex> lock(fallback_mutex);
  if (set.full == VK_NULL_HANDLE || set.full_stale) return false;  // rewritten from the shadow on next use
  // Over a dynamic descriptor the layer made null (bound with offset 0 while it is): the
  // next materialisation decides again which ones are.
  if (set.full_null_dynamic != 0 && IsDynamicType(write.descriptorType)) return false;
  // A write of a binding a full set does not have (never for a valid write) or with a
  // chain the layer cannot vouch for: left to the next materialisation.
  VkWriteDescriptorSet w = write;
  w.dstSet = set.full;
  next.UpdateDescriptorSets(device.handle, 1, &w, 0, nullptr);
  return true;
}

bool DescriptorStore::MirrorBufferDescriptors(SetShadow& set, uint32_t binding, uint32_t element, VkDescriptorType type,
                                             const VkDescriptorBufferInfo* values, uint32_t count) {
  if (set.full == VK_NULL_HANDLE) return false;
  // A buffer may be gone: that cannot be written down as it is, and the full set is
  // rewritten from the shadow at its next use instead. A null value is either a null
  // descriptor the application wrote or, from a copy, a never-written one, which leaves
  // the destination undefined: with nullDescriptor on, a null descriptor is one of the
  // values an undefined descriptor may hold, so both are mirrored as null. (Rewriting the
  // whole full set instead would touch bindings without UPDATE_AFTER_BIND that pending
  // work is reading, when this is an update after bind: invalid, and it invalidates the
  // command buffers that bound the set.) Without nullDescriptor a null value can only be a
  // never-written descriptor, whose copy cannot be written down.
  for (uint32_t k = 0; k < count; ++k) {
    if (values[k].buffer == VK_NULL_HANDLE) {
      if (!plan.null_descriptor) return false;
      continue;
    }
    if (!StillNames(values[k])) return false;
  }
  std::lock_guard<std::mutex> lock(fallback_mutex);
  if (set.full == VK_NULL_HANDLE || set.full_stale) return false;
  if (set.full_null_dynamic != 0 && IsDynamicType(type)) return false;  // as in MirrorWrite
  if (count == 0) return true;
  // The full layout is the application's: the write rolls over into the same bindings.
  VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  w.dstSet = set.full;
  w.dstBinding = binding;
  w.dstArrayElement = element;
  w.descriptorCount = count;
  w.descriptorType = type;
  w.pBufferInfo = values;
  next.UpdateDescriptorSets(device.handle, 1, &w, 0, nullptr);
  return true;
}

bool DescriptorStore::MirrorNativeRange(SetShadow& set, VkDescriptorSet app_set, uint32_t binding, uint32_t element,
                                       uint32_t count) {
  if (set.full == VK_NULL_HANDLE || OwnedSet(app_set) != nullptr) return false;
  // Within one binding only: the application's native set lacks the converted bindings,
  // so a range rolling over could land elsewhere in it than in the full set.
  const VkDescriptorSetLayoutBinding* app = nullptr;
  for (const VkDescriptorSetLayoutBinding& b : set.layout->app_bindings) {
    if (b.binding == binding) app = &b;
  }
  if (app == nullptr || element > app->descriptorCount || count > app->descriptorCount - element) return false;
  std::lock_guard<std::mutex> lock(fallback_mutex);
  if (set.full == VK_NULL_HANDLE || set.full_stale) return false;
  // Immutable samplers are in the full layout already (and cannot be copied into).
  if (count == 0 || (app->pImmutableSamplers != nullptr && app->descriptorType == VK_DESCRIPTOR_TYPE_SAMPLER)) {
    return true;
  }
  VkCopyDescriptorSet c{VK_STRUCTURE_TYPE_COPY_DESCRIPTOR_SET};
  c.srcSet = app_set;
  c.srcBinding = binding;
  c.srcArrayElement = element;
  c.dstSet = set.full;
  c.dstBinding = binding;
  c.dstArrayElement = element;
  c.descriptorCount = count;
  next.UpdateDescriptorSets(device.handle, 0, nullptr, 1, &c);
  return true;
}

}  // namespace bindery::bindings
