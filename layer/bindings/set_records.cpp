#include "bindings/set_records.h"

#include <cstring>

namespace bindery::bindings {

void WriteRecord(DeviceBindings& b, SetShadow& set, uint32_t record, const VkDescriptorBufferInfo& info) {
  if (record >= set.record_count) return;  // beyond a variable-count binding's allocation: invalid usage
  set.descriptors[record] = info;
  EncodeRecord(b, info, set.records + static_cast<size_t>(record) * kRecordBytes);
}

void EncodeRecord(DeviceBindings& b, const VkDescriptorBufferInfo& info, uint8_t* record) {
  uint64_t out[2] = {0, 0};
  if (info.buffer != VK_NULL_HANDLE) {
    // One lookup for both the address and the size.
    const BufferInfo* buffer = b.trackers().buffers.Find(info.buffer);
    if (buffer == nullptr || buffer->address == 0) {
      // TODO(part 3): sets naming buffers that cannot be addressed fall back natively.
      BINDERY_LOG(b.device.log(), kWarn, "bindings-unaddressable",
                  "a descriptor names a buffer without a device address (sparse, protected, external or unbound); "
                  "its record is null");
    } else {
      out[0] = buffer->address + info.offset;
      out[1] = info.range == VK_WHOLE_SIZE ? (buffer->size > info.offset ? buffer->size - info.offset : 0) : info.range;
    }
  }
  std::memcpy(record, out, sizeof(out));
}

}  // namespace bindery::bindings
