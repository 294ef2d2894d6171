// Buffer descriptors of native sets: sets of layouts the policy left native (under auto,
// layouts within the driver's limits; always, layouts whose flags keep them native) that
// have bindings of a type other layouts convert. A copy from such a set into a converted
// binding needs the descriptors' buffers, and the driver's descriptors cannot be read
// back: once some layout converts, the buffer descriptors written to these sets are kept
// here (allocation registers the set, updates and copies write it, freeing the set or
// resetting or destroying its pool forgets it). Updates are externally synchronised per
// set, so one set's entry needs no lock of its own.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include <vulkan/vulkan.h>

#include "bindings/model/set_layout_shadow.h"

namespace bindery::bindings {

struct NativeBufferSet {
  std::shared_ptr<const SetLayoutShadow> layout;
  // (binding << 32 | element) -> the descriptor as written; absent: never written.
  std::unordered_map<uint64_t, VkDescriptorBufferInfo> descriptors;
  static uint64_t Key(uint32_t binding, uint32_t element) { return (uint64_t{binding} << 32) | element; }
};

// A template (passed down as it is) that writes buffer descriptors into such sets.
struct NativeTemplate {
  std::vector<VkDescriptorUpdateTemplateEntry> buffer_entries;
};

// Does `layout` (one that converts nothing) have a binding of a type converted elsewhere?
bool HasConvertibleNativeBuffers(const SetLayoutShadow& layout, bool convert_uniform_buffers);

// Walks `count` descriptors from (binding, element) across consecutive bindings of the
// application's layout as the spec's update rollover does: fn(binding, element, k).
template <typename Fn>
void ForEachAppDescriptor(const SetLayoutShadow& layout, uint32_t binding, uint32_t element, uint32_t count, Fn&& fn) {
  auto count_of = [&](uint32_t number, uint32_t* out) {
    for (const VkDescriptorSetLayoutBinding& b : layout.app_bindings) {
      if (b.binding == number) {
        *out = b.descriptorCount;
        return true;
      }
    }
    return false;
  };
  auto next_binding = [&](uint32_t number, uint32_t* out) {
    bool found = false;
    for (const VkDescriptorSetLayoutBinding& b : layout.app_bindings) {
      if (b.binding > number && (!found || b.binding < *out)) {
        *out = b.binding;
        found = true;
      }
    }
    return found;
  };
  uint32_t size = 0;
  if (!count_of(binding, &size)) return;
  for (uint32_t k = 0; k < count;) {
    if (element >= size) {
      if (!next_binding(binding, &binding) || !count_of(binding, &size)) return;  // beyond the layout
      element = 0;
      continue;
    }
    fn(binding, element, k);
    ++element;
    ++k;
  }
}

}  // namespace bindery::bindings
