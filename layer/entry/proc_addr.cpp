// Loader negotiation and the two proc-addr entry points, plus the core intercept table.
#include <cstring>

#include "core/layer_info.h"
#include "core/state.h"
#include "entry/hooks.h"
#include "entry/intercepts.h"

namespace bindery {
namespace {

#define BINDERY_INTERCEPT(scope, name) \
  Intercept { "vk" #name, reinterpret_cast<PFN_vkVoidFunction>(&name), InterceptScope::scope, nullptr }

const Intercept kCoreIntercepts[] = {
    BINDERY_INTERCEPT(kGlobal, CreateInstance),
    BINDERY_INTERCEPT(kGlobal, EnumerateInstanceLayerProperties),
    BINDERY_INTERCEPT(kGlobal, EnumerateInstanceExtensionProperties),
    BINDERY_INTERCEPT(kGlobal, GetInstanceProcAddr),
    BINDERY_INTERCEPT(kInstance, DestroyInstance),
    BINDERY_INTERCEPT(kInstance, EnumeratePhysicalDevices),
    BINDERY_INTERCEPT(kInstance, EnumeratePhysicalDeviceGroups),
    BINDERY_INTERCEPT(kInstance, EnumeratePhysicalDeviceGroupsKHR),
    BINDERY_INTERCEPT(kInstance, EnumerateDeviceLayerProperties),
    BINDERY_INTERCEPT(kInstance, EnumerateDeviceExtensionProperties),
    BINDERY_INTERCEPT(kInstance, CreateDevice),
    BINDERY_INTERCEPT(kInstance, CreateDebugUtilsMessengerEXT),
    BINDERY_INTERCEPT(kInstance, DestroyDebugUtilsMessengerEXT),
    BINDERY_INTERCEPT(kDevice, GetDeviceProcAddr),
    BINDERY_INTERCEPT(kDevice, DestroyDevice),
};

#undef BINDERY_INTERCEPT

}  // namespace

InterceptTable CoreIntercepts() { return {kCoreIntercepts, sizeof(kCoreIntercepts) / sizeof(kCoreIntercepts[0])}; }

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetInstanceProcAddr(VkInstance instance, const char* pName) {
  const Intercept* intercept = FindIntercept(pName);
  if (intercept != nullptr && intercept->scope == InterceptScope::kGlobal) return intercept->function;
  InstanceState* state = instance == VK_NULL_HANDLE ? nullptr : StateRegistry::Get().FindInstance(instance);
  if (state == nullptr) return nullptr;
  PFN_vkVoidFunction next = state->next_get_instance_proc_addr(instance, pName);
  // Only wrap what the next layer provides, so the application sees what the driver offers.
  // Device intercepts that are active only on some devices are reached through
  // vkGetDeviceProcAddr, where the device is known; here (a layer above asking by
  // instance; the loader answers device functions itself) the next layer's is returned.
  if (intercept != nullptr && next != nullptr &&
      !(intercept->scope == InterceptScope::kDevice && intercept->active_on != nullptr)) {
    return intercept->function;
  }
  return next;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetDeviceProcAddr(VkDevice device, const char* pName) {
  DeviceState* state = device == VK_NULL_HANDLE ? nullptr : StateRegistry::Get().FindDevice(device);
  if (state == nullptr) return nullptr;
  PFN_vkVoidFunction next = state->next_get_device_proc_addr(device, pName);
  const Intercept* intercept = FindIntercept(pName);
  if (next != nullptr && intercept != nullptr && intercept->scope == InterceptScope::kDevice &&
      (intercept->active_on == nullptr || intercept->active_on(*state))) {
    return intercept->function;
  }
  return next;
}

VKAPI_ATTR VkResult VKAPI_CALL NegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface* pVersionStruct) {
  if (pVersionStruct == nullptr || pVersionStruct->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT) {
    return VK_ERROR_INITIALIZATION_FAILED;
  }
  if (pVersionStruct->loaderLayerInterfaceVersion < 2) {
    BINDERY_LOG(FallbackLogger(), kError, "negotiate", "loader layer interface %u is too old; version 2 is required",
                pVersionStruct->loaderLayerInterfaceVersion);
    return VK_ERROR_INITIALIZATION_FAILED;
  }
  pVersionStruct->loaderLayerInterfaceVersion = 2;
  pVersionStruct->pfnGetInstanceProcAddr = &GetInstanceProcAddr;
  pVersionStruct->pfnGetDeviceProcAddr = &GetDeviceProcAddr;
  pVersionStruct->pfnGetPhysicalDeviceProcAddr = nullptr;  // no unknown physical-device functions
  return VK_SUCCESS;
}

}  // namespace bindery
