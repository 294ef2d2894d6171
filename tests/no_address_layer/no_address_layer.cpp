// Test-only layer placed below Bindery (above validation): the driver below as one whose
// external memory cannot take a device address. vkGetPhysicalDeviceExternalBufferProperties
// (core and KHR) answers "not supported" (no feature, no compatible handle type) for any
// usage that includes SHADER_DEVICE_ADDRESS, and passes every other query and call on.
// Bindery above then leaves external-memory buffers without an address, as it must on such
// a driver; validation below judges the calls as lavapipe's own answers allow them.
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include "support/test_layer.h"

namespace {

PFN_vkGetInstanceProcAddr g_gipa = nullptr;
PFN_vkGetDeviceProcAddr g_gdpa = nullptr;
PFN_vkGetPhysicalDeviceExternalBufferProperties g_external = nullptr;
PFN_vkGetPhysicalDeviceExternalBufferProperties g_external_khr = nullptr;

void Refuse(const VkPhysicalDeviceExternalBufferInfo* info, VkExternalBufferProperties* props) {
  if ((info->usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT) == 0) return;
  props->externalMemoryProperties = {};
}

VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceExternalBufferProperties(VkPhysicalDevice pd,
                                                                     const VkPhysicalDeviceExternalBufferInfo* info,
                                                                     VkExternalBufferProperties* props) {
  g_external(pd, info, props);
  Refuse(info, props);
}
VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceExternalBufferPropertiesKHR(VkPhysicalDevice pd,
                                                                        const VkPhysicalDeviceExternalBufferInfo* info,
                                                                        VkExternalBufferProperties* props) {
  g_external_khr(pd, info, props);
  Refuse(info, props);
}

VKAPI_ATTR VkResult VKAPI_CALL CreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo* ci,
                                            const VkAllocationCallbacks* alloc, VkDevice* out) {
  return bindery::test_layer::CreateDeviceBelow(pd, ci, alloc, out, &g_gdpa);
}

VKAPI_ATTR VkResult VKAPI_CALL CreateInstance(const VkInstanceCreateInfo* ci, const VkAllocationCallbacks* alloc,
                                              VkInstance* out) {
  const VkResult r = bindery::test_layer::CreateInstanceBelow(ci, alloc, out, &g_gipa);
  if (r != VK_SUCCESS) return r;
  g_external = reinterpret_cast<PFN_vkGetPhysicalDeviceExternalBufferProperties>(
      g_gipa(*out, "vkGetPhysicalDeviceExternalBufferProperties"));
  g_external_khr = reinterpret_cast<PFN_vkGetPhysicalDeviceExternalBufferProperties>(
      g_gipa(*out, "vkGetPhysicalDeviceExternalBufferPropertiesKHR"));
  return r;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetDeviceProcAddr(VkDevice device, const char* name) {
  BINDERY_TEST_LAYER_ENTRY(GetDeviceProcAddr);
  return g_gdpa(device, name);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetInstanceProcAddr(VkInstance instance, const char* name) {
  BINDERY_TEST_LAYER_ENTRY(GetInstanceProcAddr);
  BINDERY_TEST_LAYER_ENTRY(CreateInstance);
  BINDERY_TEST_LAYER_ENTRY(CreateDevice);
  BINDERY_TEST_LAYER_ENTRY(GetDeviceProcAddr);
  BINDERY_TEST_LAYER_ENTRY_IF(GetPhysicalDeviceExternalBufferProperties, g_external);
  BINDERY_TEST_LAYER_ENTRY_IF(GetPhysicalDeviceExternalBufferPropertiesKHR, g_external_khr);
  return g_gipa == nullptr ? nullptr : g_gipa(instance, name);
}

}  // namespace

BINDERY_TEST_LAYER_NEGOTIATE(GetInstanceProcAddr, GetDeviceProcAddr)
