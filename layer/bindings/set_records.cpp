#include "bindings/set_records.h"

#include "bindings/native_twin.h"

namespace bindery::bindings {

void NoteUnaddressableRecord(DeviceBindings& b, SetShadow& set) {
  ++set.unaddressable;
  NoteUnaddressable(b, "a buffer written into a descriptor");
}

void ForgetUnaddressableRecord(SetShadow& set, uint32_t record) {
  // The record being replaced was one of them if it names a buffer but holds no address.
  uint64_t old_address = 0;
  std::memcpy(&old_address, set.records + static_cast<size_t>(record) * kRecordBytes, sizeof(old_address));
  if (set.descriptors[record].buffer != VK_NULL_HANDLE && old_address == 0) --set.unaddressable;
}

}  // namespace bindery::bindings
