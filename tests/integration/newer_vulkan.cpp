#include "integration/newer_vulkan.h"

#include <cstring>

#include "support/vk_harness.h"

namespace bindery::test::newer {

bool DeviceSupports(const char* extension, VkStructureType feature_type) {
  VkHarness probe({.bindery = false, .validation = false});
  if (!probe.ok()) return false;
  uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(probe.physical_device(), nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> props(count);
  vkEnumerateDeviceExtensionProperties(probe.physical_device(), nullptr, &count, props.data());
  bool listed = false;
  for (const VkExtensionProperties& p : props) listed |= std::strcmp(p.extensionName, extension) == 0;
  if (!listed) return false;
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
