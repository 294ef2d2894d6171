// The buffer hooks: the capability watches buffers made and destroyed by the application,
// for what its records and caches assume of them.
#include <vulkan/vulkan.h>

#include "bindings/device/hooks.h"
#include "bindings/model/device_core.h"
#include "bindings/model/lookup_cache.h"

namespace bindery::bindings {

// A buffer that could be a converted descriptor but has no device address: from now on
// rewritten pipelines get native twins (pipelines/native_twin.h).
VKAPI_ATTR VkResult VKAPI_CALL CreateBuffer(VkDevice device, const VkBufferCreateInfo* pCreateInfo,
                                            const VkAllocationCallbacks* pAllocator, VkBuffer* pBuffer) {
  DeviceCore* found = FindBindings<DeviceCore>(device);
  if (found == nullptr) return NextOf(device).CreateBuffer(device, pCreateInfo, pAllocator, pBuffer);
  DeviceCore& b = *found;
  const VkResult result = b.next.CreateBuffer(device, pCreateInfo, pAllocator, pBuffer);
  if (result != VK_SUCCESS || NeedsTwins(b)) return result;
  // The tracking stage below added the address usage wherever it could: a buffer that
  // could be a converted descriptor and still lacks it will have no address.
  const BufferInfo* buffer = b.trackers().buffers.Find(*pBuffer);
  VkBufferUsageFlags converted = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  if (b.plan.convert_uniform_buffers) converted |= VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT;
  if (buffer != nullptr && (buffer->usage & converted) != 0 &&
      (buffer->usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT) == 0) {
    NoteUnaddressable(b, "a buffer the application created");
  }
  return result;
}

// Buffers are looked up through per-thread caches when descriptors are written
// (model/lookup_cache.h): their destruction empties the caches (after the tracking stage below
// has forgotten the buffer).
VKAPI_ATTR void VKAPI_CALL DestroyBuffer(VkDevice device, VkBuffer buffer, const VkAllocationCallbacks* pAllocator) {
  DeviceCore* found = FindBindings<DeviceCore>(device);
  (found != nullptr ? found->next : NextOf(device)).DestroyBuffer(device, buffer, pAllocator);
  if (buffer != VK_NULL_HANDLE) InvalidateLookupCaches();
}

}  // namespace bindery::bindings
