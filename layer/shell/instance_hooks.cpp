// Instance-level hooks: creation and destruction, physical-device bookkeeping,
// enumeration answers for the layer, and debug messengers (so the logger can reach them).
#include <cstring>
#include <vector>

#include <vulkan/vk_dispatch_table_helper.h>

#include "chassis/hidden_extensions.h"
#include "chassis/instance_editor.h"
#include "chassis/instance_stack.h"
#include "chassis/link.h"
#include "chassis/state.h"
#include "core/layer_info.h"
#include "shell/capabilities.h"
#include "shell/hooks.h"

namespace bindery {
namespace {

template <typename T>
VkResult FillProperties(const T* ours, uint32_t count, uint32_t* pCount, T* pProperties) {
  if (pProperties == nullptr) {
    *pCount = count;
    return VK_SUCCESS;
  }
  const uint32_t n = *pCount < count ? *pCount : count;
  for (uint32_t i = 0; i < n; ++i) pProperties[i] = ours[i];
  *pCount = n;
  return n < count ? VK_INCOMPLETE : VK_SUCCESS;
}

VkLayerProperties OurLayerProperties() {
  VkLayerProperties p{};
  std::strncpy(p.layerName, kLayerName, sizeof(p.layerName) - 1);
  std::strncpy(p.description, kLayerDescription, sizeof(p.description) - 1);
  p.specVersion = kLayerSpecVersion;
  p.implementationVersion = kLayerImplementationVersion;
  return p;
}

}  // namespace

VKAPI_ATTR VkResult VKAPI_CALL CreateInstance(const VkInstanceCreateInfo* pCreateInfo,
                                              const VkAllocationCallbacks* pAllocator, VkInstance* pInstance) {
  VkLayerInstanceCreateInfo* link = FindInstanceLink(pCreateInfo);
  if (link == nullptr || link->u.pLayerInfo == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  auto next_create = reinterpret_cast<PFN_vkCreateInstance>(next_gipa(VK_NULL_HANDLE, "vkCreateInstance"));
  if (next_create == nullptr) return VK_ERROR_INITIALIZATION_FAILED;

  auto state = std::make_unique<InstanceState>();
  state->settings = LoadSettings();
  state->logger = std::make_unique<Logger>(state->settings.log_level, state->settings.log_file);
  state->logger->SetInstanceLifetimeMessengers(pCreateInfo->pNext);
  state->logger->SetInstanceLifetimeScope(true);
  state->next_get_instance_proc_addr = next_gipa;
  state->capabilities = LayerCapabilities();

  // The capabilities' instance needs (extensions the application's API version lacks),
  // merged into one create info; the application's own structs are never written.
  InstanceEditor editor(*pCreateInfo);
  for (std::size_t i = 0; i < state->capabilities.count; ++i) {
    state->slots[i].active = state->capabilities.items[i]->PlanInstance(state->settings, editor);
  }
  state->api_version = editor.api_version();

  // Advance the link for the next layer; the loader owns this struct and expects it.
  VkLayerInstanceLink* our_link = link->u.pLayerInfo;
  link->u.pLayerInfo = our_link->pNext;
  VkResult result = next_create(editor.Build(), pAllocator, pInstance);
  if (result == VK_ERROR_EXTENSION_NOT_PRESENT && editor.HasAdditions()) {
    // Something below refused an extension we added: create the instance as the
    // application asked (capabilities that needed the extension stay off).
    editor.DropAdditions();
    link->u.pLayerInfo = our_link->pNext;
    result = next_create(editor.Build(), pAllocator, pInstance);
  }
  if (result != VK_SUCCESS) return result;
  state->enabled_extensions = editor.enabled_extensions();

  state->handle = *pInstance;
  BuildInstanceStack(*state);
  InstanceState* raw = state.get();
  if (!StateRegistry::Get().AddInstance(raw)) {
    raw->dispatch.DestroyInstance(*pInstance, pAllocator);
    return VK_ERROR_OUT_OF_HOST_MEMORY;
  }
  state.release();

  for (const std::string& warning : raw->settings.warnings) {
    raw->log().Log(LogLevel::kWarn, "settings", "%s", warning.c_str());
  }
  BINDERY_LOG(raw->log(), kInfo, "instance", "layer active on instance (API %u.%u); %s",
              VK_API_VERSION_MAJOR(raw->api_version), VK_API_VERSION_MINOR(raw->api_version),
              Describe(raw->settings).c_str());
  raw->logger->SetInstanceLifetimeScope(false);
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL DestroyInstance(VkInstance instance, const VkAllocationCallbacks* pAllocator) {
  if (instance == VK_NULL_HANDLE) return;
  std::unique_ptr<InstanceState> state = StateRegistry::Get().RemoveInstance(instance);
  if (state == nullptr) return;
  state->logger->SetInstanceLifetimeScope(true);
  state->dispatch.DestroyInstance(instance, pAllocator);
  const StateRegistry& registry = StateRegistry::Get();
  BINDERY_LOG(state->log(), kDebug, "teardown",
              "after vkDestroyInstance the layer tracks %zu instances, %zu devices, %zu physical devices",
              registry.InstanceCount(), registry.DeviceCount(), registry.PhysicalDeviceCount());
}

VKAPI_ATTR VkResult VKAPI_CALL EnumeratePhysicalDevices(VkInstance instance, uint32_t* pCount,
                                                        VkPhysicalDevice* pPhysicalDevices) {
  InstanceState* state = StateRegistry::Get().FindInstance(instance);
  VkResult result = state->dispatch.EnumeratePhysicalDevices(instance, pCount, pPhysicalDevices);
  if ((result == VK_SUCCESS || result == VK_INCOMPLETE) && pPhysicalDevices != nullptr) {
    StateRegistry::Get().MapPhysicalDevices(state, pPhysicalDevices, *pCount);
  }
  return result;
}

static VkResult EnumerateGroups(PFN_vkEnumeratePhysicalDeviceGroups next, VkInstance instance, uint32_t* pCount,
                                VkPhysicalDeviceGroupProperties* pGroups) {
  InstanceState* state = StateRegistry::Get().FindInstance(instance);
  VkResult result = next(instance, pCount, pGroups);
  if ((result == VK_SUCCESS || result == VK_INCOMPLETE) && pGroups != nullptr) {
    for (uint32_t i = 0; i < *pCount; ++i) {
      StateRegistry::Get().MapPhysicalDevices(state, pGroups[i].physicalDevices, pGroups[i].physicalDeviceCount);
    }
  }
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL EnumeratePhysicalDeviceGroups(VkInstance instance, uint32_t* pCount,
                                                             VkPhysicalDeviceGroupProperties* pGroups) {
  return EnumerateGroups(StateRegistry::Get().FindInstance(instance)->dispatch.EnumeratePhysicalDeviceGroups, instance,
                         pCount, pGroups);
}

VKAPI_ATTR VkResult VKAPI_CALL EnumeratePhysicalDeviceGroupsKHR(VkInstance instance, uint32_t* pCount,
                                                                VkPhysicalDeviceGroupProperties* pGroups) {
  return EnumerateGroups(StateRegistry::Get().FindInstance(instance)->dispatch.EnumeratePhysicalDeviceGroupsKHR,
                         instance, pCount, pGroups);
}

VKAPI_ATTR VkResult VKAPI_CALL EnumerateInstanceLayerProperties(uint32_t* pCount, VkLayerProperties* pProperties) {
  const VkLayerProperties ours = OurLayerProperties();
  return FillProperties(&ours, 1, pCount, pProperties);
}

VKAPI_ATTR VkResult VKAPI_CALL EnumerateInstanceExtensionProperties(const char* pLayerName, uint32_t* pCount,
                                                                    VkExtensionProperties* pProperties) {
  // The loader asks a layer only about its own extensions; Bindery adds no instance
  // extension.
  if (pLayerName == nullptr || std::strcmp(pLayerName, kLayerName) != 0) return VK_ERROR_LAYER_NOT_PRESENT;
  return FillProperties<VkExtensionProperties>(nullptr, 0, pCount, pProperties);
}

VKAPI_ATTR VkResult VKAPI_CALL EnumerateDeviceLayerProperties(VkPhysicalDevice, uint32_t* pCount,
                                                              VkLayerProperties* pProperties) {
  const VkLayerProperties ours = OurLayerProperties();
  return FillProperties(&ours, 1, pCount, pProperties);
}

VKAPI_ATTR VkResult VKAPI_CALL EnumerateDeviceExtensionProperties(VkPhysicalDevice physicalDevice,
                                                                  const char* pLayerName, uint32_t* pCount,
                                                                  VkExtensionProperties* pProperties) {
  InstanceState* instance = StateRegistry::Get().FindInstance(physicalDevice);
  const std::vector<VkExtensionProperties> ours = LayerDeviceExtensions(instance, physicalDevice);
  if (pLayerName != nullptr && std::strcmp(pLayerName, kLayerName) == 0) {
    return FillProperties(ours.data(), static_cast<uint32_t>(ours.size()), pCount, pProperties);
  }
  if (instance == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
  auto next = instance->dispatch.EnumerateDeviceExtensionProperties;
  // Extensions a capability cannot coexist with are left out (chassis/hidden_extensions.h).
  const std::vector<const char*> hidden = HiddenDeviceExtensions(*instance, physicalDevice);
  if (pLayerName != nullptr || (ours.empty() && hidden.empty())) {
    return next(physicalDevice, pLayerName, pCount, pProperties);
  }

  // The driver's list less the hidden ones, with ours appended (skipping any the driver
  // already has).
  uint32_t driver_count = 0;
  VkResult result = next(physicalDevice, nullptr, &driver_count, nullptr);
  if (result != VK_SUCCESS) return result;
  std::vector<VkExtensionProperties> all(driver_count);
  result = next(physicalDevice, nullptr, &driver_count, all.data());
  if (result != VK_SUCCESS && result != VK_INCOMPLETE) return result;
  all.resize(driver_count);
  RemoveHiddenExtensions(hidden, all);
  for (const VkExtensionProperties& ext : ours) {
    bool present = false;
    for (const VkExtensionProperties& d : all) present = present || std::strcmp(d.extensionName, ext.extensionName) == 0;
    if (!present) all.push_back(ext);
  }
  return FillProperties(all.data(), static_cast<uint32_t>(all.size()), pCount, pProperties);
}

// Feature queries: the capabilities' answers (through the stack), then the features of
// hidden extensions cleared.
static void GetFeatures2(bool khr, VkPhysicalDevice physicalDevice, VkPhysicalDeviceFeatures2* pFeatures) {
  InstanceState* instance = StateRegistry::Get().FindInstance(physicalDevice);
  if (instance == nullptr) return;  // a physical device never enumerated through this layer
  PFN_vkGetPhysicalDeviceFeatures2 next =
      khr ? instance->top.GetPhysicalDeviceFeatures2KHR : instance->top.GetPhysicalDeviceFeatures2;
  if (next == nullptr) return;  // not offered below (the shell's hook is then never handed out)
  next(physicalDevice, pFeatures);
  ClearHiddenFeatures(HiddenDeviceExtensions(*instance, physicalDevice), pFeatures->pNext);
}

VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceFeatures2(VkPhysicalDevice physicalDevice,
                                                      VkPhysicalDeviceFeatures2* pFeatures) {
  GetFeatures2(false, physicalDevice, pFeatures);
}

VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceFeatures2KHR(VkPhysicalDevice physicalDevice,
                                                         VkPhysicalDeviceFeatures2* pFeatures) {
  GetFeatures2(true, physicalDevice, pFeatures);
}

VKAPI_ATTR VkResult VKAPI_CALL CreateDebugUtilsMessengerEXT(VkInstance instance,
                                                            const VkDebugUtilsMessengerCreateInfoEXT* pCreateInfo,
                                                            const VkAllocationCallbacks* pAllocator,
                                                            VkDebugUtilsMessengerEXT* pMessenger) {
  InstanceState* state = StateRegistry::Get().FindInstance(instance);
  VkResult result = state->dispatch.CreateDebugUtilsMessengerEXT(instance, pCreateInfo, pAllocator, pMessenger);
  if (result == VK_SUCCESS) state->log().AddMessenger(*pMessenger, *pCreateInfo);
  return result;
}

VKAPI_ATTR void VKAPI_CALL DestroyDebugUtilsMessengerEXT(VkInstance instance, VkDebugUtilsMessengerEXT messenger,
                                                         const VkAllocationCallbacks* pAllocator) {
  InstanceState* state = StateRegistry::Get().FindInstance(instance);
  state->log().RemoveMessenger(messenger);
  state->dispatch.DestroyDebugUtilsMessengerEXT(instance, messenger, pAllocator);
}

std::vector<VkExtensionProperties> LayerDeviceExtensions(const InstanceState* instance, VkPhysicalDevice physical_device) {
  std::vector<VkExtensionProperties> out;
  if (instance == nullptr) return out;
  for (std::size_t i = 0; i < instance->capabilities.count; ++i) {
    instance->capabilities.items[i]->LayerDeviceExtensions(*instance, physical_device, out);
  }
  return out;
}

}  // namespace bindery
