#include "integration/newer_vulkan.h"

#include <cstring>

#include "support/vk_harness.h"

namespace bindery::test::newer {

namespace {

bool Listed(VkPhysicalDevice physical, const char* extension) {
  uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> props(count);
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, props.data());
  for (const VkExtensionProperties& p : props) {
    if (std::strcmp(p.extensionName, extension) == 0) return true;
  }
  return false;
}

}  // namespace

bool DeviceHasExtension(const char* extension) {
  VkHarness probe({.bindery = false, .validation = false});
  return probe.ok() && Listed(probe.physical_device(), extension);
}

bool DeviceSupports(const char* extension, VkStructureType feature_type) {
  VkHarness probe({.bindery = false, .validation = false});
  if (!probe.ok() || !Listed(probe.physical_device(), extension)) return false;
  // Every feature struct used here is { sType, pNext, VkBool32 feature }.
  struct OneFeature {
    VkStructureType sType;
    void* pNext;
    VkBool32 value;
  } feature{feature_type, nullptr, VK_FALSE};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &feature};
  vkGetPhysicalDeviceFeatures2(probe.physical_device(), &features);
  return feature.value == VK_TRUE;
}

uint32_t ValidationLayerVersion() {
  uint32_t count = 0;
  vkEnumerateInstanceLayerProperties(&count, nullptr);
  std::vector<VkLayerProperties> layers(count);
  vkEnumerateInstanceLayerProperties(&count, layers.data());
  for (const VkLayerProperties& l : layers) {
    if (std::strcmp(l.layerName, "VK_LAYER_KHRONOS_validation") == 0) return l.specVersion;
  }
  return 0;
}

bool ValidationKnows(uint32_t version) { return ValidationLayerVersion() >= version; }

}  // namespace bindery::test::newer
