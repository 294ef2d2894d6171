// Exposure on the instance: the timelineSemaphore feature, its limit and external
// semaphore answers for timeline types, where the layer emulates them.
#include <cstring>
#include <vector>

#include "chassis/state.h"
#include "core/pnext.h"
#include "timeline/exposure.h"
#include "timeline/hooks.h"
#include "timeline/timeline_capability.h"

namespace bindery::timeline {
namespace {

const VkLayerInstanceDispatchTable& NextOf(const InstanceState& instance) {
  return instance.Next(TimelineCapability().slot());
}

bool DeviceOffersExtension(const InstanceState& instance, VkPhysicalDevice pd, const char* name) {
  const VkLayerInstanceDispatchTable& next = NextOf(instance);
  uint32_t count = 0;
  if (next.EnumerateDeviceExtensionProperties(pd, nullptr, &count, nullptr) != VK_SUCCESS) return false;
  std::vector<VkExtensionProperties> props(count);
  if (next.EnumerateDeviceExtensionProperties(pd, nullptr, &count, props.data()) < VK_SUCCESS) return false;
  for (uint32_t i = 0; i < count; ++i) {
    if (std::strcmp(props[i].extensionName, name) == 0) return true;
  }
  return false;
}

void SetFeature(void* chain) {
  for (auto* s = static_cast<VkBaseOutStructure*>(chain); s != nullptr; s = s->pNext) {
    if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES) {
      reinterpret_cast<VkPhysicalDeviceTimelineSemaphoreFeatures*>(s)->timelineSemaphore = VK_TRUE;
    } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES) {
      reinterpret_cast<VkPhysicalDeviceVulkan12Features*>(s)->timelineSemaphore = VK_TRUE;
    }
  }
}

void SetLimit(void* chain) {
  for (auto* s = static_cast<VkBaseOutStructure*>(chain); s != nullptr; s = s->pNext) {
    if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_PROPERTIES) {
      reinterpret_cast<VkPhysicalDeviceTimelineSemaphoreProperties*>(s)->maxTimelineSemaphoreValueDifference =
          kMaxValueDifference;
    } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES) {
      reinterpret_cast<VkPhysicalDeviceVulkan12Properties*>(s)->maxTimelineSemaphoreValueDifference =
          kMaxValueDifference;
    }
  }
}

void ExternalProperties(PFN_vkGetPhysicalDeviceExternalSemaphoreProperties next, VkPhysicalDevice pd,
                        const VkPhysicalDeviceExternalSemaphoreInfo* info, VkExternalSemaphoreProperties* out) {
  const InstanceState* instance = StateRegistry::Get().FindInstance(pd);
  const auto* type = FindInChain<VkSemaphoreTypeCreateInfo>(info->pNext, VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO);
  if (instance == nullptr || type == nullptr || !EmulatesOn(*instance, pd)) {
    next(pd, info, out);
    return;
  }
  if (type->semaphoreType == VK_SEMAPHORE_TYPE_TIMELINE) {
    // An emulated timeline lives in the layer: no handle type can carry it.
    out->exportFromImportedHandleTypes = 0;
    out->compatibleHandleTypes = 0;
    out->externalSemaphoreFeatures = 0;
    return;
  }
  // A binary type struct: ask the driver without it (it does not know the struct).
  VkPhysicalDeviceExternalSemaphoreInfo copy = *info;
  copy.pNext = nullptr;
  next(pd, &copy, out);
}

}  // namespace

bool DriverHasTimelines(const InstanceState& instance, VkPhysicalDevice pd) {
  const VkLayerInstanceDispatchTable& next = NextOf(instance);
  VkPhysicalDeviceProperties props{};
  next.GetPhysicalDeviceProperties(pd, &props);
  const bool v12 = props.apiVersion >= VK_API_VERSION_1_2 && instance.api_version >= VK_API_VERSION_1_1;
  if (!v12 && !DeviceOffersExtension(instance, pd, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME)) return false;
  // Core under a 1.1+ application, the KHR form where the instance enabled it (calling the
  // core one under 1.0 is an API-version violation).
  PFN_vkGetPhysicalDeviceFeatures2 features2 = nullptr;
  if (instance.api_version >= VK_API_VERSION_1_1) features2 = next.GetPhysicalDeviceFeatures2;
  else if (instance.ExtensionEnabled(VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME)) features2 = next.GetPhysicalDeviceFeatures2KHR;
  if (features2 == nullptr) return false;
  VkPhysicalDeviceTimelineSemaphoreFeatures timeline{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES};
  VkPhysicalDeviceFeatures2 query{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &timeline};
  features2(pd, &query);
  return timeline.timelineSemaphore == VK_TRUE;
}

bool EmulatesOn(const InstanceState& instance, VkPhysicalDevice pd) {
  switch (instance.settings.timeline) {
    case Mode::kOff: return false;
    case Mode::kForce: return true;
    case Mode::kAuto: break;
  }
  return !DriverHasTimelines(instance, pd);
}

static void Features2(PFN_vkGetPhysicalDeviceFeatures2 next, VkPhysicalDevice pd, VkPhysicalDeviceFeatures2* out) {
  next(pd, out);
  const InstanceState* instance = StateRegistry::Get().FindInstance(pd);
  if (instance != nullptr && EmulatesOn(*instance, pd)) SetFeature(out->pNext);
}

static void Properties2(PFN_vkGetPhysicalDeviceProperties2 next, VkPhysicalDevice pd,
                        VkPhysicalDeviceProperties2* out) {
  next(pd, out);
  const InstanceState* instance = StateRegistry::Get().FindInstance(pd);
  if (instance != nullptr && EmulatesOn(*instance, pd)) SetLimit(out->pNext);
}

VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceFeatures2(VkPhysicalDevice pd, VkPhysicalDeviceFeatures2* out) {
  Features2(NextOf(*StateRegistry::Get().FindInstance(pd)).GetPhysicalDeviceFeatures2, pd, out);
}
VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceFeatures2KHR(VkPhysicalDevice pd, VkPhysicalDeviceFeatures2* out) {
  Features2(NextOf(*StateRegistry::Get().FindInstance(pd)).GetPhysicalDeviceFeatures2KHR, pd, out);
}
VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceProperties2(VkPhysicalDevice pd, VkPhysicalDeviceProperties2* out) {
  Properties2(NextOf(*StateRegistry::Get().FindInstance(pd)).GetPhysicalDeviceProperties2, pd, out);
}
VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceProperties2KHR(VkPhysicalDevice pd, VkPhysicalDeviceProperties2* out) {
  Properties2(NextOf(*StateRegistry::Get().FindInstance(pd)).GetPhysicalDeviceProperties2KHR, pd, out);
}
VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceExternalSemaphoreProperties(
    VkPhysicalDevice pd, const VkPhysicalDeviceExternalSemaphoreInfo* info, VkExternalSemaphoreProperties* out) {
  ExternalProperties(NextOf(*StateRegistry::Get().FindInstance(pd)).GetPhysicalDeviceExternalSemaphoreProperties, pd,
                     info, out);
}
VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceExternalSemaphorePropertiesKHR(
    VkPhysicalDevice pd, const VkPhysicalDeviceExternalSemaphoreInfo* info, VkExternalSemaphoreProperties* out) {
  ExternalProperties(NextOf(*StateRegistry::Get().FindInstance(pd)).GetPhysicalDeviceExternalSemaphorePropertiesKHR,
                     pd, info, out);
}

}  // namespace bindery::timeline
