#include "bindings/descriptors/set_records.h"

#include "bindings/descriptors/twin_layout.h"

namespace bindery::bindings {

void NoteUnaddressableRecord(DescriptorStore& b, SetShadow& set) {
  ++set.unaddressable;
  NoteUnaddressable(b, "a buffer written into a descriptor");
}

void ForgetUnaddressableRecord(SetShadow& set, uint32_t record) {
  // The record being replaced was one of them if it names a buffer but holds no address.
  uint64_t old_address = 0;
  std::memcpy(&old_address, set.host_records + static_cast<size_t>(record) * kRecordBytes, sizeof(old_address));
  if (set.descriptors[record].buffer != VK_NULL_HANDLE && old_address == 0) --set.unaddressable;
}

void NoteRangeBeyond32Bits(DescriptorStore& b, uint64_t range) {
  if (b.logged_range_beyond_32_bits.exchange(true, std::memory_order_relaxed)) return;
  BINDERY_LOG(b.device.log(), kWarn, "bindings-range",
              "a storage buffer range of %llu bytes reaches rewritten shaders without shaderInt64: their array "
              "lengths and bounds checks see 4 GiB - 1, and an access beyond the first 4 GiB of the range is not "
              "honoured (without 64-bit integers the shader's offsets are 32-bit; the application can enable "
              "shaderInt64 for 64-bit offsets and sizes); logged once",
              static_cast<unsigned long long>(range));
}

}  // namespace bindery::bindings
