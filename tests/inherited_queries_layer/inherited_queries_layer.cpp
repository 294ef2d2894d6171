// Test-only layer placed below the validation layer: lavapipe 22.3 as a driver with the
// inheritedQueries feature, so that a secondary command buffer executed inside a query of
// its primary (the place a transfer kernel of the secondary would land in the query:
// tests/integration/transfer_queries_test.cpp) is judged by the validation layer there.
// It answers VK_TRUE for inheritedQueries (vkGetPhysicalDeviceFeatures and the
// VkPhysicalDeviceFeatures2 forms) and clears it from vkCreateDevice before the driver
// sees it. lavapipe executes a secondary by replaying its commands inside the primary's
// state, so a query active there counts them as a driver with the feature does.
#include <vector>

#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include "support/test_layer.h"

namespace {

PFN_vkGetInstanceProcAddr g_gipa = nullptr;
PFN_vkGetDeviceProcAddr g_gdpa = nullptr;
PFN_vkGetPhysicalDeviceFeatures g_features = nullptr;
PFN_vkGetPhysicalDeviceFeatures2 g_features2 = nullptr;
PFN_vkGetPhysicalDeviceFeatures2 g_features2_khr = nullptr;

VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceFeatures(VkPhysicalDevice pd, VkPhysicalDeviceFeatures* f) {
  g_features(pd, f);
  f->inheritedQueries = VK_TRUE;
}

// One body for the core name and the KHR alias: `next` is the one it calls.
template <PFN_vkGetPhysicalDeviceFeatures2* next>
VKAPI_ATTR void VKAPI_CALL GetFeatures2(VkPhysicalDevice pd, VkPhysicalDeviceFeatures2* f) {
  (*next)(pd, f);
  f->features.inheritedQueries = VK_TRUE;
}

VKAPI_ATTR VkResult VKAPI_CALL CreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo* ci,
                                            const VkAllocationCallbacks* alloc, VkDevice* out) {
  // The caller's structs: the feature is cleared for the driver and put back after.
  std::vector<std::pair<VkBool32*, VkBool32>> saved;
  auto withhold = [&](const VkPhysicalDeviceFeatures* f) {
    if (f == nullptr) return;
    auto* at = const_cast<VkBool32*>(&f->inheritedQueries);
    saved.emplace_back(at, *at);
    *at = VK_FALSE;
  };
  withhold(ci->pEnabledFeatures);
  for (auto* s = static_cast<const VkBaseInStructure*>(ci->pNext); s != nullptr; s = s->pNext) {
    if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2) {
      withhold(&reinterpret_cast<const VkPhysicalDeviceFeatures2*>(s)->features);
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
  g_features = reinterpret_cast<PFN_vkGetPhysicalDeviceFeatures>(g_gipa(*out, "vkGetPhysicalDeviceFeatures"));
  g_features2 = reinterpret_cast<PFN_vkGetPhysicalDeviceFeatures2>(g_gipa(*out, "vkGetPhysicalDeviceFeatures2"));
  g_features2_khr = reinterpret_cast<PFN_vkGetPhysicalDeviceFeatures2>(g_gipa(*out, "vkGetPhysicalDeviceFeatures2KHR"));
  return r;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetDeviceProcAddr(VkDevice device, const char* name) {
  BINDERY_TEST_LAYER_ENTRY(GetDeviceProcAddr);
  return g_gdpa(device, name);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetInstanceProcAddr(VkInstance instance, const char* name) {
  BINDERY_TEST_LAYER_LOADER_ENTRIES();
  BINDERY_TEST_LAYER_ENTRY_IF(GetPhysicalDeviceFeatures, g_features);
  BINDERY_TEST_LAYER_ENTRY_AS_IF(GetPhysicalDeviceFeatures2, GetFeatures2<&g_features2>, g_features2);
  BINDERY_TEST_LAYER_ENTRY_AS_IF(GetPhysicalDeviceFeatures2KHR, GetFeatures2<&g_features2_khr>, g_features2_khr);
  return g_gipa == nullptr ? nullptr : g_gipa(instance, name);
}

}  // namespace

BINDERY_TEST_LAYER_NEGOTIATE(GetInstanceProcAddr, GetDeviceProcAddr)
