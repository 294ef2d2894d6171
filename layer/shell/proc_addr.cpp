// Loader negotiation and the two proc-addr entry points.
//
// The shell's own hooks (instance and device lifetime, enumeration, messengers) are in the
// table below. Every other device function resolves through the capability stack
// (chassis/device_stack.h): the outermost capability hook installed on that device, else
// the next layer's own pointer — so the application gets the driver's function, with no
// trampoline of ours, for everything no capability needs on its device.
#include <cstring>

#include "chassis/device_stack.h"
#include "chassis/instance_stack.h"
#include "chassis/state.h"
#include "core/layer_info.h"
#include "shell/hooks.h"

namespace bindery {
namespace {

enum class Scope {
  kGlobal,    // callable without an instance (vkCreateInstance, enumeration)
  kInstance,  // dispatched on VkInstance / VkPhysicalDevice
  kDevice,    // dispatched on VkDevice (works on every device: the shell's own)
};

struct ShellHook {
  const char* name;
  PFN_vkVoidFunction function;
  Scope scope;
};

#define BINDERY_SHELL_HOOK(scope, name) \
  ShellHook { "vk" #name, reinterpret_cast<PFN_vkVoidFunction>(&name), Scope::scope }

const ShellHook kShellHooks[] = {
    BINDERY_SHELL_HOOK(kGlobal, CreateInstance),
    BINDERY_SHELL_HOOK(kGlobal, EnumerateInstanceLayerProperties),
    BINDERY_SHELL_HOOK(kGlobal, EnumerateInstanceExtensionProperties),
    BINDERY_SHELL_HOOK(kGlobal, GetInstanceProcAddr),
    BINDERY_SHELL_HOOK(kInstance, DestroyInstance),
    BINDERY_SHELL_HOOK(kInstance, EnumeratePhysicalDevices),
    BINDERY_SHELL_HOOK(kInstance, EnumeratePhysicalDeviceGroups),
    BINDERY_SHELL_HOOK(kInstance, EnumeratePhysicalDeviceGroupsKHR),
    BINDERY_SHELL_HOOK(kInstance, EnumerateDeviceLayerProperties),
    BINDERY_SHELL_HOOK(kInstance, EnumerateDeviceExtensionProperties),
    BINDERY_SHELL_HOOK(kInstance, CreateDevice),
    BINDERY_SHELL_HOOK(kInstance, CreateDebugUtilsMessengerEXT),
    BINDERY_SHELL_HOOK(kInstance, DestroyDebugUtilsMessengerEXT),
    BINDERY_SHELL_HOOK(kDevice, GetDeviceProcAddr),
    BINDERY_SHELL_HOOK(kDevice, DestroyDevice),
};

#undef BINDERY_SHELL_HOOK

const ShellHook* FindShellHook(const char* name) {
  if (name == nullptr) return nullptr;
  for (const ShellHook& hook : kShellHooks) {
    if (std::strcmp(hook.name, name) == 0) return &hook;
  }
  return nullptr;
}

// ---- Loader-layer contract: answers that need no instance ------------------------------
// Layers written after the loader documentation's sample code (MangoHud, vkBasalt and
// others) fetch the next layer's vkCreateDevice with GetInstanceProcAddr(NULL,
// "vkCreateDevice"); the loader's layer interface document warns that older layers
// expect the instance to be ignored for vkCreateDevice. The Khronos validation layer
// answers every name it intercepts with its own function whatever the instance (NULL
// included). Bindery does the same for its own entry points that work for any instance:
// the global commands, and the Vulkan 1.0 instance/device commands the shell always
// hooks. Each finds its state from its dispatchable argument, so the answer is right for
// every instance. Not here (NULL for a NULL or unknown instance): extension and 1.1
// commands, which exist only where the instance enabled them, and capability hooks.
bool AnsweredForAnyInstance(const ShellHook& hook) {
  static const char* const kInstanceIndependent[] = {
      "vkCreateDevice",   "vkDestroyInstance",   "vkEnumeratePhysicalDevices", "vkEnumerateDeviceExtensionProperties",
      "vkEnumerateDeviceLayerProperties", "vkGetDeviceProcAddr", "vkDestroyDevice",
  };
  if (hook.scope == Scope::kGlobal) return true;
  for (const char* name : kInstanceIndependent) {
    if (std::strcmp(hook.name, name) == 0) return true;
  }
  return false;
}

}  // namespace

bool IsShellHook(const char* name) { return FindShellHook(name) != nullptr; }

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetInstanceProcAddr(VkInstance instance, const char* pName) {
  const ShellHook* hook = FindShellHook(pName);
  if (hook != nullptr && hook->scope == Scope::kGlobal) return hook->function;
  InstanceState* state = instance == VK_NULL_HANDLE ? nullptr : StateRegistry::Get().FindInstance(instance);
  if (state == nullptr) {
    // NULL (or an instance created without Bindery): only the instance-independent answers.
    return hook != nullptr && AnsweredForAnyInstance(*hook) ? hook->function : nullptr;
  }
  PFN_vkVoidFunction next = state->next_get_instance_proc_addr(instance, pName);
  if (hook == nullptr) return ResolveInstanceFunction(*state, -1, pName);  // capabilities' instance hooks, or next
  // Only wrap what the next layer provides, so the application sees what the driver
  // offers. Capability hooks of device functions are reached through vkGetDeviceProcAddr,
  // where the device (and so the stack built for it) is known; asked by instance (a layer
  // above us; the loader answers device functions itself) the next layer's is returned.
  if (hook != nullptr && next != nullptr) return hook->function;
  return next;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetDeviceProcAddr(VkDevice device, const char* pName) {
  DeviceState* state = device == VK_NULL_HANDLE ? nullptr : StateRegistry::Get().FindDevice(device);
  if (state == nullptr || pName == nullptr) return nullptr;
  const ShellHook* hook = FindShellHook(pName);
  if (hook != nullptr && hook->scope == Scope::kDevice) {
    return state->next_get_device_proc_addr(device, pName) != nullptr ? hook->function : nullptr;
  }
  return ResolveDeviceFunction(*state, -1, pName);
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
