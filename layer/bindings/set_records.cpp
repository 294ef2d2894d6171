#include "bindings/set_records.h"

#include "bindings/native_twin.h"

#include <cstring>

namespace bindery::bindings {

void WriteRecord(DeviceBindings& b, SetShadow& set, uint32_t record, const VkDescriptorBufferInfo& info) {
  if (record >= set.record_count) return;  // beyond a variable-count binding's allocation: invalid usage
  uint8_t* at = set.records + static_cast<size_t>(record) * kRecordBytes;
  if (set.unaddressable != 0) {
    // Was the record being replaced one of them? (Read only while the set has any.)
    uint64_t old_address = 0;
    std::memcpy(&old_address, at, sizeof(old_address));
    if (set.descriptors[record].buffer != VK_NULL_HANDLE && old_address == 0) --set.unaddressable;
  }
  set.descriptors[record] = info;
  if (!EncodeRecord(b, info, at)) {
    // A null record; draws and dispatches that bind this set run natively
    // (bindings/native_twin.h).
    ++set.unaddressable;
    NoteUnaddressable(b, "a buffer written into a descriptor");
  }
}

bool EncodeRecord(DeviceBindings& b, const VkDescriptorBufferInfo& info, uint8_t* record) {
  uint64_t out[2] = {0, 0};
  bool addressable = true;
  if (info.buffer != VK_NULL_HANDLE) {
    // One lookup for both the address and the size.
    const BufferInfo* buffer = b.trackers().buffers.Find(info.buffer);
    if (buffer == nullptr || buffer->address == 0) {
      addressable = false;
    } else {
      out[0] = buffer->address + info.offset;
      out[1] = info.range == VK_WHOLE_SIZE ? (buffer->size > info.offset ? buffer->size - info.offset : 0) : info.range;
    }
  }
  std::memcpy(record, out, sizeof(out));
  return addressable;
}

}  // namespace bindery::bindings
