// Writing a converted set's records: one record from a buffer descriptor, and the walk
// over (binding, element) pairs that vkUpdateDescriptorSets, copies and templates share
// (the spec's rollover into consecutive bindings).
#pragma once

#include <cstdint>
#include <cstring>

#include <vulkan/vulkan.h>

#include "bindings/descriptors/descriptor_store.h"

namespace bindery::bindings {

// A record now names a buffer without an address: counted in the set, and the device
// starts making native twins (pipelines/native_twin.h). Cold path.
void NoteUnaddressableRecord(DescriptorStore& b, SetShadow& set);
// Record `record` of a set that has such records is about to be replaced: uncounts it if
// it was one. Cold path (only while the set has any).
void ForgetUnaddressableRecord(SetShadow& set, uint32_t record);
// A record's range is 4 GiB or more on a device whose shaders carry 32-bit sizes (no
// shaderInt64): array lengths and bounds checks see 4 GiB - 1, and accesses past the
// first 4 GiB are not honoured (32-bit offsets). Logged once. Cold path.
void NoteRangeBeyond32Bits(DescriptorStore& b, uint64_t range);

// The 16-byte record `info` becomes, written to `out`: the buffer's address and the range
// (from the per-thread cache of buffers: a set's or a push's few buffers are written again
// and again, and the cache skips the locked map; DestroyBuffer invalidates). False when it
// names a buffer without a device address (a null record: the caller decides what runs
// instead). Inline: it runs for every buffer descriptor written or pushed. `lookups` is
// Lookups(), fetched once by the caller.
__attribute__((always_inline)) inline bool EncodeRecord(DescriptorStore& b, ThreadLookups& lookups,
                                                       const VkDescriptorBufferInfo& info, uint8_t* out) {
  uint64_t record[2] = {0, 0};
  bool addressable = true;
  if (info.buffer != VK_NULL_HANDLE) {
    // One lookup for both the address and the size.
    Trackers& trackers = b.trackers();
    const BufferInfo* buffer = lookups.buffers.Find(&trackers, trackers.buffers, info.buffer);
    if (buffer == nullptr || buffer->address == 0) {
      addressable = false;
    } else {
      record[0] = buffer->address + info.offset;
      record[1] = info.range == VK_WHOLE_SIZE ? (buffer->size > info.offset ? buffer->size - info.offset : 0) : info.range;
      if (record[1] > UINT32_MAX && !b.plan.shader_int64) NoteRangeBeyond32Bits(b, record[1]);
    }
  }
  std::memcpy(out, record, sizeof(record));
  return addressable;
}

// Writes record `record` of `set` (and its CPU copy) from `info`. Inline: it runs for
// every buffer descriptor written. `lookups` is Lookups(), fetched once by the caller.
__attribute__((always_inline)) inline void WriteRecord(DescriptorStore& b, ThreadLookups& lookups, SetShadow& set,
                                                      uint32_t record, const VkDescriptorBufferInfo& info) {
  if (record >= set.record_count) return;  // beyond a variable-count binding's allocation: invalid usage
  if (set.unaddressable != 0) ForgetUnaddressableRecord(set, record);
  set.descriptors[record] = info;
  // Encoded here, then copied to the block (GPU-visible memory, never read back) and the CPU copy.
  alignas(8) uint8_t encoded[kRecordBytes];
  // A null record: draws and dispatches binding this set run natively.
  if (!EncodeRecord(b, lookups, info, encoded)) NoteUnaddressableRecord(b, set);
  std::memcpy(set.records + static_cast<size_t>(record) * kRecordBytes, encoded, kRecordBytes);
  std::memcpy(set.host_records + static_cast<size_t>(record) * kRecordBytes, encoded, kRecordBytes);
}

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
