// Loader negotiation and the two proc-addr entry points.
//
// The shell's own hooks (instance and device lifetime, enumeration, messengers) are in the
// table below. Every other device function resolves through the capability stack
// (chassis/device_stack.h): the outermost capability hook installed on that device, else
// the next layer's own pointer — so the application gets the driver's function, with no
// trampoline of ours, for everything no capability needs on its device.
#include <cstring>

#include "chassis/device_stack.h"
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

}  // namespace

bool IsShellHook(const char* name) { return FindShellHook(name) != nullptr; }

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetInstanceProcAddr(VkInstance instance, const char* pName) {
  const ShellHook* hook = FindShellHook(pName);
  if (hook != nullptr && hook->scope == Scope::kGlobal) return hook->function;
  InstanceState* state = instance == VK_NULL_HANDLE ? nullptr : StateRegistry::Get().FindInstance(instance);
  if (state == nullptr) return nullptr;
  PFN_vkVoidFunction next = state->next_get_instance_proc_addr(instance, pName);
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
