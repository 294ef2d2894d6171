// Test-only layer placed below the validation layer: lavapipe 22.3 as a driver with the
// descriptor-indexing binding features (partially bound and variable-count bindings,
// update-after-bind buffers and images),
// so that the API fuzzer's programs using them are judged by the validation layer on
// lavapipe. It answers VK_TRUE for those features and drops them from vkCreateDevice
// before the driver sees them. What lavapipe 22.3 does without being told gives them their
// meaning: a set is read when the command buffer executes (an update after recording
// reaches it), a variable-count set has the layout's maximum, never-written descriptors are
// zeroed (null). Not offered: nonuniform indexing (lavapipe's compiler reports the
// ShaderNonUniform capability as unsupported through the debug messenger).
#include <cstddef>
#include <vector>

#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include "support/test_layer.h"

namespace {

PFN_vkGetInstanceProcAddr g_gipa = nullptr;
PFN_vkGetDeviceProcAddr g_gdpa = nullptr;
PFN_vkGetPhysicalDeviceFeatures2 g_features2 = nullptr;
PFN_vkGetPhysicalDeviceFeatures2 g_features2_khr = nullptr;

// The features offered, as members of both structs that carry them.
template <class T>
std::vector<VkBool32 T::*> Offered() {
  return {&T::descriptorBindingUniformBufferUpdateAfterBind, &T::descriptorBindingSampledImageUpdateAfterBind,
          &T::descriptorBindingStorageImageUpdateAfterBind, &T::descriptorBindingStorageBufferUpdateAfterBind,
          &T::descriptorBindingPartiallyBound,             &T::descriptorBindingVariableDescriptorCount};
}

template <class T>
void Offer(T* s) {
  for (VkBool32 T::*m : Offered<T>()) s->*m = VK_TRUE;
}

void OfferFeatures(void* chain) {
  for (auto* s = static_cast<VkBaseOutStructure*>(chain); s != nullptr; s = s->pNext) {
    if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES) {
      Offer(reinterpret_cast<VkPhysicalDeviceVulkan12Features*>(s));
    } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DESCRIPTOR_INDEXING_FEATURES) {
      Offer(reinterpret_cast<VkPhysicalDeviceDescriptorIndexingFeatures*>(s));
    }
  }
}

VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceFeatures2(VkPhysicalDevice pd, VkPhysicalDeviceFeatures2* f) {
  g_features2(pd, f);
  OfferFeatures(f->pNext);
}
VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceFeatures2KHR(VkPhysicalDevice pd, VkPhysicalDeviceFeatures2* f) {
  g_features2_khr(pd, f);
  OfferFeatures(f->pNext);
}

// Clears the offered features in one struct of the create chain, remembering what to put back.
template <class T>
void Withhold(T* s, std::vector<std::pair<VkBool32*, VkBool32>>& saved) {
  for (VkBool32 T::*m : Offered<T>()) {
    saved.emplace_back(&(s->*m), s->*m);
    s->*m = VK_FALSE;
  }
}

VKAPI_ATTR VkResult VKAPI_CALL CreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo* ci,
                                            const VkAllocationCallbacks* alloc, VkDevice* out) {
  // The chain is the caller's: the offered features are cleared for the driver and put back.
  std::vector<std::pair<VkBool32*, VkBool32>> saved;
  for (auto* s = reinterpret_cast<VkBaseOutStructure*>(const_cast<void*>(ci->pNext)); s != nullptr; s = s->pNext) {
    if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES) {
      Withhold(reinterpret_cast<VkPhysicalDeviceVulkan12Features*>(s), saved);
    } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DESCRIPTOR_INDEXING_FEATURES) {
      Withhold(reinterpret_cast<VkPhysicalDeviceDescriptorIndexingFeatures*>(s), saved);
    }
  }
  const VkResult r = bindery::test_layer::CreateDeviceBelow(pd, ci, alloc, out, &g_gdpa);
  for (const auto& [at, value] : saved) *at = value;
  return r;
}

VKAPI_ATTR VkResult VKAPI_CALL CreateInstance(const VkInstanceCreateInfo* ci, const VkAllocationCallbacks* alloc,
                                              VkInstance* out) {
  const VkResult r = bindery::test_layer::CreateInstanceBelow(ci, alloc, out, &g_gipa);
  if (r != VK_SUCCESS) return r;
  g_features2 = reinterpret_cast<PFN_vkGetPhysicalDeviceFeatures2>(g_gipa(*out, "vkGetPhysicalDeviceFeatures2"));
  g_features2_khr = reinterpret_cast<PFN_vkGetPhysicalDeviceFeatures2>(g_gipa(*out, "vkGetPhysicalDeviceFeatures2KHR"));
  return r;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetDeviceProcAddr(VkDevice device, const char* name) {
  BINDERY_TEST_LAYER_ENTRY(GetDeviceProcAddr);
  return g_gdpa(device, name);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetInstanceProcAddr(VkInstance instance, const char* name) {
  BINDERY_TEST_LAYER_ENTRY(GetInstanceProcAddr);
  BINDERY_TEST_LAYER_ENTRY(CreateInstance);
  BINDERY_TEST_LAYER_ENTRY(CreateDevice);
  BINDERY_TEST_LAYER_ENTRY(GetDeviceProcAddr);
  BINDERY_TEST_LAYER_ENTRY_IF(GetPhysicalDeviceFeatures2, g_features2);
  BINDERY_TEST_LAYER_ENTRY_IF(GetPhysicalDeviceFeatures2KHR, g_features2_khr);
  return g_gipa == nullptr ? nullptr : g_gipa(instance, name);
}

}  // namespace

BINDERY_TEST_LAYER_NEGOTIATE(GetInstanceProcAddr, GetDeviceProcAddr)
