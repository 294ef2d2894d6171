// Writing a converted set's records: one record from a buffer descriptor, and the walk
// over (binding, element) pairs that vkUpdateDescriptorSets, copies and templates share
// (the spec's rollover into consecutive bindings).
#pragma once

#include <cstdint>

#include <vulkan/vulkan.h>

#include "bindings/bindings_device.h"

namespace bindery::bindings {

// Writes record `record` of `set` (and its CPU copy) from `info`.
void WriteRecord(DeviceBindings& b, SetShadow& set, uint32_t record, const VkDescriptorBufferInfo& info);
// The 16-byte record `info` becomes, written to `out` (set records and push-descriptor
// records alike). False when it names a buffer without a device address (a null record:
// the caller decides what runs instead).
bool EncodeRecord(DeviceBindings& b, const VkDescriptorBufferInfo& info, uint8_t* out);

// Walks `count` descriptors from (binding, element) across consecutive bindings as the
// spec's update rollover does; calls fn(record index) for converted bindings. Returns
// false when the start binding is not converted.
template <typename Fn>
inline bool ForEachRecord(const SetLayoutShadow& layout, uint32_t binding, uint32_t element, uint32_t count, Fn&& fn) {
  const ConvertedBinding* c = layout.Find(binding);
  if (c == nullptr) return false;
  const ConvertedBinding* end = layout.converted.data() + layout.converted.size();
  for (uint32_t i = 0; i < count;) {
    if (element >= c->count) {
      ++c;
      element = 0;
      if (c == end) return true;  // beyond the layout: invalid usage, ignored
      continue;
    }
    fn(c->first_record + element, i);
    ++element;
    ++i;
  }
  return true;
}


}  // namespace bindery::bindings
