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

// ---- Loader-layer contract: answers that need no instance ------------------------------
// Layers written after the loader documentation's sample code (MangoHud, vkBasalt and
// others) fetch the next layer's vkCreateDevice with GetInstanceProcAddr(NULL,
// "vkCreateDevice"); the loader's layer interface document warns that older layers
// expect the instance to be ignored for vkCreateDevice. The Khronos validation layer
// answers every name it intercepts with its own function whatever the instance (NULL
// included). Bindery does the same for its own entry points that work for any instance:
// the global commands, and the Vulkan 1.0 instance/device commands it always intercepts.
// Each finds its state from its dispatchable argument, so the answer is right for every
// instance. Not here (NULL for a NULL or unknown instance): extension and 1.1 commands,
// which exist only where the instance enabled them, and per-device capability intercepts.
namespace {

bool AnsweredForAnyInstance(const Intercept& intercept) {
  static const char* const kInstanceIndependent[] = {
      "vkCreateDevice",    "vkDestroyInstance",  "vkEnumeratePhysicalDevices", "vkEnumerateDeviceExtensionProperties",
      "vkEnumerateDeviceLayerProperties", "vkGetDeviceProcAddr", "vkDestroyDevice",
  };
  if (intercept.scope == InterceptScope::kGlobal) return true;
  for (const char* name : kInstanceIndependent) {
    if (std::strcmp(intercept.name, name) == 0) return true;
  }
  return false;
}

}  // namespace

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetInstanceProcAddr(VkInstance instance, const char* pName) {
  const Intercept* intercept = FindIntercept(pName);
  if (intercept != nullptr && intercept->scope == InterceptScope::kGlobal) return intercept->function;
  InstanceState* state = instance == VK_NULL_HANDLE ? nullptr : StateRegistry::Get().FindInstance(instance);
  if (state == nullptr) {
    // NULL (or an instance created without Bindery): only the instance-independent answers.
    return intercept != nullptr && AnsweredForAnyInstance(*intercept) ? intercept->function : nullptr;
  }
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
  // Loader-layer contract: answer the lower of the loader's version and ours (2). Version 1
  // differs only in that the loader takes the proc-addr functions from the manifest's
  // "functions" names (exported by the shell) instead of this struct, which works too;
  // version 0 loaders never call this function.
  if (pVersionStruct->loaderLayerInterfaceVersion < 1) {
    BINDERY_LOG(FallbackLogger(), kError, "negotiate", "loader layer interface %u is too old; version 1 or 2 is needed",
                pVersionStruct->loaderLayerInterfaceVersion);
    return VK_ERROR_INITIALIZATION_FAILED;
  }
  if (pVersionStruct->loaderLayerInterfaceVersion > 2) pVersionStruct->loaderLayerInterfaceVersion = 2;
  if (pVersionStruct->loaderLayerInterfaceVersion < 2) return VK_SUCCESS;
  pVersionStruct->pfnGetInstanceProcAddr = &GetInstanceProcAddr;
  pVersionStruct->pfnGetDeviceProcAddr = &GetDeviceProcAddr;
  // NULL is allowed for a layer that adds no physical-device commands (Bindery adds none;
  // the loader then links the layers above straight to the next layer's function).
  pVersionStruct->pfnGetPhysicalDeviceProcAddr = nullptr;
  return VK_SUCCESS;
}

}  // namespace bindery
