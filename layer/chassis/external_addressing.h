// Which external-memory buffers and imports the layer may make addressable. A buffer made
// with VkExternalMemoryBufferCreateInfo may take SHADER_DEVICE_ADDRESS usage only where the
// driver says its handle types allow that usage: vkGetPhysicalDeviceExternalBufferProperties
// with the usage added must report every handle type as compatible and keep the import and
// export features the buffer had without it (VUID-VkBufferCreateInfo-pNext-00920 names
// that query as the test). Memory imported through a handle type that allows it takes the
// device-address flag (no valid-usage rule forbids the flag on an import; only an opaque
// capture address must be zero there), so such a buffer can be bound to it. Everything
// else stays as the application made it (the native paths: bindings/pipelines/native_twin.h).
//
// Buffer creation and memory allocation are not hot paths: the answers are cached per
// question under one mutex, and each question goes to the driver once.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <tuple>

#include <vulkan/vulkan.h>

namespace bindery {

struct DeviceState;

class ExternalAddressing {
 public:
  explicit ExternalAddressing(DeviceState& device) : device_(device) {}

  // Can a buffer of `handle_types` (VkExternalMemoryBufferCreateInfo), `usage` and `flags`
  // take SHADER_DEVICE_ADDRESS usage as well, and memory imported for it the flag?
  bool BufferMayBeAddressed(VkExternalMemoryHandleTypeFlags handle_types, uint64_t usage, VkBufferCreateFlags flags);
  // May memory imported through `handle_type` take the device-address flag (buffers of
  // that handle type are made addressable)?
  bool ImportMayBeAddressed(VkExternalMemoryHandleTypeFlagBits handle_type);

 private:
  // The driver's answer for one handle type, usage and flags; zeroed when it cannot be asked.
  VkExternalMemoryProperties Query(VkExternalMemoryHandleTypeFlagBits handle_type, VkBufferUsageFlags usage,
                                   VkBufferCreateFlags flags);

  DeviceState& device_;
  std::mutex mutex_;
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, bool> buffers_;  // (handle types, usage, flags)
  std::map<uint32_t, bool> imports_;                                  // by handle type
};

}  // namespace bindery
