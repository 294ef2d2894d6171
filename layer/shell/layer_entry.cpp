// The shared library's only exported symbols (see bindery.map). Everything else lives in
// the static libraries; this file is the thin shell the loader opens.
#include <vulkan/vk_layer.h>

#include "shell/hooks.h"

#define BINDERY_EXPORT extern "C" __attribute__((visibility("default")))

BINDERY_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkNegotiateLoaderLayerInterfaceVersion(
    VkNegotiateLayerInterface* pVersionStruct) {
  return bindery::NegotiateLoaderLayerInterfaceVersion(pVersionStruct);
}

BINDERY_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL bindery_GetInstanceProcAddr(VkInstance instance,
                                                                                    const char* pName) {
  return bindery::GetInstanceProcAddr(instance, pName);
}

BINDERY_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL bindery_GetDeviceProcAddr(VkDevice device,
                                                                                  const char* pName) {
  return bindery::GetDeviceProcAddr(device, pName);
}
