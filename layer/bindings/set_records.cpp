#include "bindings/set_records.h"

#include <cstring>

#include "bindings/lookup_cache.h"

namespace bindery::bindings {

void WriteRecord(DeviceBindings& b, SetShadow& set, uint32_t record, const VkDescriptorBufferInfo& info) {
  if (record >= set.record_count) return;  // beyond a variable-count binding's allocation: invalid usage
  set.descriptors[record] = info;
  uint64_t out[2] = {0, 0};
  if (info.buffer != VK_NULL_HANDLE) {
    // One lookup for both the address and the size (a set's few buffers are written again
    // and again: a per-thread cache of 8 skips the locked map; DestroyBuffer invalidates).
    const BufferInfo* buffer = CachedFind<8>(&b.trackers(), b.trackers().buffers, info.buffer);
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
  std::memcpy(set.records + static_cast<size_t>(record) * kRecordBytes, out, sizeof(out));
}

}  // namespace bindery::bindings
