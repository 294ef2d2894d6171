// Loader negotiation and the two proc-addr entry points.
//
// The shell's own hooks (instance and device lifetime, enumeration, messengers) are in the
// table below. Every other device function resolves through the capability stack
// (chassis/device_stack.h): the outermost capability hook installed on that device, else
// the next layer's own pointer — so the application gets the driver's function, with no
// trampoline of ours, for everything no capability needs on its device.
#include <cstring>
#include <optional>

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

// The shell's own hooks, one table per scope, written with the one hook macro
// (chassis/capability.h) that the capabilities use too.
const Hook kGlobalHooks[] = {
    BINDERY_HOOK(CreateInstance, nullptr),
    BINDERY_HOOK(EnumerateInstanceLayerProperties, nullptr),
    BINDERY_HOOK(EnumerateInstanceExtensionProperties, nullptr),
    BINDERY_HOOK(GetInstanceProcAddr, nullptr),
};
const Hook kInstanceHooks[] = {
    BINDERY_HOOK(DestroyInstance, nullptr),
    BINDERY_HOOK(EnumeratePhysicalDevices, nullptr),
    BINDERY_HOOK(EnumeratePhysicalDeviceGroups, nullptr),
    BINDERY_HOOK(EnumeratePhysicalDeviceGroupsKHR, nullptr),
    BINDERY_HOOK(EnumerateDeviceLayerProperties, nullptr),
    BINDERY_HOOK(EnumerateDeviceExtensionProperties, nullptr),
    // Features of extensions a capability hides read VK_FALSE (instance_hooks.cpp).
    BINDERY_HOOK(GetPhysicalDeviceFeatures2, nullptr),
    BINDERY_HOOK(GetPhysicalDeviceFeatures2KHR, nullptr),
    BINDERY_HOOK(CreateDevice, nullptr),
    BINDERY_HOOK(CreateDebugUtilsMessengerEXT, nullptr),
    BINDERY_HOOK(DestroyDebugUtilsMessengerEXT, nullptr),
};
const Hook kDeviceHooks[] = {
    BINDERY_HOOK(GetDeviceProcAddr, nullptr),
    BINDERY_HOOK(DestroyDevice, nullptr),
};

struct ShellHook {
  const Hook* hook;
  Scope scope;
  const char* name() const { return hook->name; }
  PFN_vkVoidFunction function() const { return hook->function; }
};

std::optional<ShellHook> FindShellHook(const char* name) {
  if (name == nullptr) return std::nullopt;
  const struct {
    HookTable table;
    Scope scope;
  } tables[] = {{MakeHookTable(kGlobalHooks), Scope::kGlobal},
                {MakeHookTable(kInstanceHooks), Scope::kInstance},
                {MakeHookTable(kDeviceHooks), Scope::kDevice}};
  for (const auto& t : tables) {
    for (std::size_t i = 0; i < t.table.count; ++i) {
      if (std::strcmp(t.table.hooks[i].name, name) == 0) return ShellHook{&t.table.hooks[i], t.scope};
    }
  }
  return std::nullopt;
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
    if (std::strcmp(hook.name(), name) == 0) return true;
  }
  return false;
}

}  // namespace

bool IsShellHook(const char* name) { return FindShellHook(name).has_value(); }

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetInstanceProcAddr(VkInstance instance, const char* pName) {
  const std::optional<ShellHook> hook = FindShellHook(pName);
  if (hook && hook->scope == Scope::kGlobal) return hook->function();
  InstanceState* state = instance == VK_NULL_HANDLE ? nullptr : StateRegistry::Get().FindInstance(instance);
  if (state == nullptr) {
    // NULL (or an instance created without Bindery): only the instance-independent answers.
    return hook && AnsweredForAnyInstance(*hook) ? hook->function() : nullptr;
  }
  PFN_vkVoidFunction next = state->next_get_instance_proc_addr(instance, pName);
  if (!hook) return ResolveInstanceFunction(*state, -1, pName);  // capabilities' instance hooks, or next
  // Only wrap what the next layer provides, so the application sees what the driver
  // offers. Capability hooks of device functions are reached through vkGetDeviceProcAddr,
  // where the device (and so the stack built for it) is known; asked by instance (a layer
  // above us; the loader answers device functions itself) the next layer's is returned.
  if (next != nullptr) return hook->function();
  return next;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetDeviceProcAddr(VkDevice device, const char* pName) {
  DeviceState* state = device == VK_NULL_HANDLE ? nullptr : StateRegistry::Get().FindDevice(device);
  if (state == nullptr || pName == nullptr) return nullptr;
  const std::optional<ShellHook> hook = FindShellHook(pName);
  if (hook && hook->scope == Scope::kDevice) {
    return state->next_get_device_proc_addr(device, pName) != nullptr ? hook->function() : nullptr;
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
