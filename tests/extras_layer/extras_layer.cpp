// Test-only layer placed below Bindery: a driver newer than lavapipe 22.3 as far as
// enumeration goes. It offers VK_KHR_maintenance6, VK_EXT_descriptor_buffer,
// VK_EXT_shader_object, VK_VALVE_descriptor_set_host_mapping, ray tracing
// (VK_KHR_ray_tracing_pipeline, VK_NV_ray_tracing) and mesh shaders (VK_EXT_mesh_shader,
// VK_NV_mesh_shader), and answers VK_TRUE for
// their features, so that the layer above can be tested hiding them. vkCreateDevice
// records how many it was asked for and drops them (and their feature structs) before the
// real driver sees them. Of their commands it implements only maintenance6's four
// descriptor commands (vkCmdBindDescriptorSets2KHR, vkCmdPushConstants2KHR,
// vkCmdPushDescriptorSet(WithTemplate)2KHR), each as the 1-command below it, once per bind
// point its stageFlags name, so that the layer above can be tested translating them and
// validation below (which predates maintenance6) sees only commands it knows.
// It also answers vkGetDescriptorSetLayoutSupport(KHR) as a strict driver would (lavapipe
// answers supported for every layout): unsupported when a layout has more storage buffers
// than the driver's maxPerStageDescriptorStorageBuffers.
#include <atomic>
#include <cstring>
#include <vector>

#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include "extras_layer.h"
#include "maintenance6.h"
#include "support/test_layer.h"

namespace {

constexpr VkStructureType kFeatureStypes[] = {
    static_cast<VkStructureType>(1000545000),  // VkPhysicalDeviceMaintenance6FeaturesKHR
    VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DESCRIPTOR_BUFFER_FEATURES_EXT,
    static_cast<VkStructureType>(1000482000),  // VkPhysicalDeviceShaderObjectFeaturesEXT
    VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DESCRIPTOR_SET_HOST_MAPPING_FEATURES_VALVE,
    VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_FEATURES_KHR,
    VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MESH_SHADER_FEATURES_EXT,
    VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MESH_SHADER_FEATURES_NV,
};
constexpr uint32_t kFeatureBools[] = {1, 4, 1, 1, 5, 5, 2};
constexpr int kFeatureStructCount = sizeof(kFeatureBools) / sizeof(kFeatureBools[0]);

PFN_vkGetInstanceProcAddr g_gipa = nullptr;
PFN_vkGetDeviceProcAddr g_gdpa = nullptr;
PFN_vkEnumerateDeviceExtensionProperties g_enumerate = nullptr;
PFN_vkGetPhysicalDeviceFeatures2 g_features2 = nullptr;
PFN_vkGetPhysicalDeviceFeatures2 g_features2_khr = nullptr;
PFN_vkGetPhysicalDeviceProperties g_properties = nullptr;
std::atomic<uint32_t> g_created_with{0};
uint32_t g_max_storage_buffers = 0;  // the driver's maxPerStageDescriptorStorageBuffers
PFN_vkGetDescriptorSetLayoutSupport g_layout_support = nullptr;
PFN_vkGetDescriptorSetLayoutSupport g_layout_support_khr = nullptr;
std::atomic<uint32_t> g_last_storage_buffers{0};

// The 1-commands below, for maintenance6's commands (the last device created: tests make
// one at a time).
PFN_vkCmdBindDescriptorSets g_bind_sets = nullptr;
PFN_vkCmdPushConstants g_push_constants = nullptr;
PFN_vkCmdPushDescriptorSetKHR g_push_descriptors = nullptr;
PFN_vkCmdPushDescriptorSetWithTemplateKHR g_push_template = nullptr;

namespace m6 = bindery::maintenance6;

// Each bind point a stageFlags names, graphics first.
template <typename F>
void ForEachBindPoint(VkShaderStageFlags stages, F&& f) {
  if ((stages & m6::kGraphicsStages) != 0) f(VK_PIPELINE_BIND_POINT_GRAPHICS);
  if ((stages & VK_SHADER_STAGE_COMPUTE_BIT) != 0) f(VK_PIPELINE_BIND_POINT_COMPUTE);
}

VKAPI_ATTR void VKAPI_CALL CmdBindDescriptorSets2KHR(VkCommandBuffer cb, const m6::BindDescriptorSetsInfo* info) {
  ForEachBindPoint(info->stageFlags, [&](VkPipelineBindPoint point) {
    g_bind_sets(cb, point, info->layout, info->firstSet, info->descriptorSetCount, info->pDescriptorSets,
                info->dynamicOffsetCount, info->pDynamicOffsets);
  });
}

VKAPI_ATTR void VKAPI_CALL CmdPushConstants2KHR(VkCommandBuffer cb, const m6::PushConstantsInfo* info) {
  g_push_constants(cb, info->layout, info->stageFlags, info->offset, info->size, info->pValues);
}

VKAPI_ATTR void VKAPI_CALL CmdPushDescriptorSet2KHR(VkCommandBuffer cb, const m6::PushDescriptorSetInfo* info) {
  ForEachBindPoint(info->stageFlags, [&](VkPipelineBindPoint point) {
    g_push_descriptors(cb, point, info->layout, info->set, info->descriptorWriteCount, info->pDescriptorWrites);
  });
}

VKAPI_ATTR void VKAPI_CALL CmdPushDescriptorSetWithTemplate2KHR(VkCommandBuffer cb,
                                                                const m6::PushDescriptorSetWithTemplateInfo* info) {
  g_push_template(cb, info->descriptorUpdateTemplate, info->layout, info->set, info->pData);
}

bool Offered(const char* name) {
  for (const char* o : kExtrasOffered) {
    if (std::strcmp(o, name) == 0) return true;
  }
  return false;
}

int FeatureIndex(VkStructureType stype) {
  for (int i = 0; i < kFeatureStructCount; ++i) {
    if (kFeatureStypes[i] == stype) return i;
  }
  return -1;
}

VKAPI_ATTR VkResult VKAPI_CALL EnumerateDeviceExtensionProperties(VkPhysicalDevice pd, const char* layer,
                                                                  uint32_t* count, VkExtensionProperties* props) {
  if (layer != nullptr) return g_enumerate(pd, layer, count, props);
  uint32_t n = 0;
  VkResult r = g_enumerate(pd, nullptr, &n, nullptr);
  if (r != VK_SUCCESS) return r;
  std::vector<VkExtensionProperties> all(n);
  r = g_enumerate(pd, nullptr, &n, all.data());
  if (r < VK_SUCCESS) return r;
  all.resize(n);
  for (const char* name : kExtrasOffered) {
    VkExtensionProperties p{};
    std::strncpy(p.extensionName, name, sizeof(p.extensionName) - 1);
    p.specVersion = 1;
    all.push_back(p);
  }
  const uint32_t total = static_cast<uint32_t>(all.size());
  if (props == nullptr) {
    *count = total;
    return VK_SUCCESS;
  }
  const uint32_t out = *count < total ? *count : total;
  std::memcpy(props, all.data(), out * sizeof(VkExtensionProperties));
  *count = out;
  return out < total ? VK_INCOMPLETE : VK_SUCCESS;
}

void OfferFeatures(void* chain) {
  for (auto* s = static_cast<VkBaseOutStructure*>(chain); s != nullptr; s = s->pNext) {
    const int i = FeatureIndex(s->sType);
    if (i < 0) continue;
    auto* bools = reinterpret_cast<VkBool32*>(reinterpret_cast<char*>(s) + sizeof(VkBaseOutStructure));
    for (uint32_t b = 0; b < kFeatureBools[i]; ++b) bools[b] = VK_TRUE;
  }
}

// The driver would reject the feature structs it does not know: they are answered here.
// One body for the core name and the KHR alias: `next` is the one it calls.
template <PFN_vkGetPhysicalDeviceFeatures2* next>
VKAPI_ATTR void VKAPI_CALL GetFeatures2(VkPhysicalDevice pd, VkPhysicalDeviceFeatures2* f) {
  (*next)(pd, f);
  OfferFeatures(f->pNext);
}

VKAPI_ATTR VkResult VKAPI_CALL CreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo* ci,
                                            const VkAllocationCallbacks* alloc, VkDevice* out) {
  // The offered extensions and their feature structs are this layer's pretence: dropped.
  std::vector<const char*> names;
  uint32_t offered = 0;
  for (uint32_t i = 0; i < ci->enabledExtensionCount; ++i) {
    if (Offered(ci->ppEnabledExtensionNames[i])) {
      ++offered;
    } else {
      names.push_back(ci->ppEnabledExtensionNames[i]);
    }
  }
  g_created_with.store(offered);
  VkDeviceCreateInfo edited = *ci;
  edited.enabledExtensionCount = static_cast<uint32_t>(names.size());
  edited.ppEnabledExtensionNames = names.empty() ? nullptr : names.data();
  // Unlink the feature structs (the chain is the application's; it is put back after).
  std::vector<std::pair<VkBaseOutStructure*, VkBaseOutStructure*>> unlinked;
  for (auto* s = reinterpret_cast<VkBaseOutStructure*>(const_cast<void*>(edited.pNext)); s != nullptr; s = s->pNext) {
    while (s->pNext != nullptr && FeatureIndex(s->pNext->sType) >= 0) {
      unlinked.emplace_back(s, s->pNext);
      s->pNext = s->pNext->pNext;
    }
  }
  const VkResult r = bindery::test_layer::CreateDeviceBelow(pd, &edited, alloc, out, &g_gdpa);
  for (auto it = unlinked.rbegin(); it != unlinked.rend(); ++it) it->first->pNext = it->second;
  if (r != VK_SUCCESS) return r;
  VkPhysicalDeviceProperties props{};
  g_properties(pd, &props);
  g_max_storage_buffers = props.limits.maxPerStageDescriptorStorageBuffers;
  g_layout_support = reinterpret_cast<PFN_vkGetDescriptorSetLayoutSupport>(
      g_gdpa(*out, "vkGetDescriptorSetLayoutSupport"));
  g_layout_support_khr = reinterpret_cast<PFN_vkGetDescriptorSetLayoutSupport>(
      g_gdpa(*out, "vkGetDescriptorSetLayoutSupportKHR"));
  g_bind_sets = reinterpret_cast<PFN_vkCmdBindDescriptorSets>(g_gdpa(*out, "vkCmdBindDescriptorSets"));
  g_push_constants = reinterpret_cast<PFN_vkCmdPushConstants>(g_gdpa(*out, "vkCmdPushConstants"));
  g_push_descriptors =
      reinterpret_cast<PFN_vkCmdPushDescriptorSetKHR>(g_gdpa(*out, "vkCmdPushDescriptorSetKHR"));
  g_push_template = reinterpret_cast<PFN_vkCmdPushDescriptorSetWithTemplateKHR>(
      g_gdpa(*out, "vkCmdPushDescriptorSetWithTemplateKHR"));
  return r;
}

// One body for the core name and the KHR alias: `next` is the one it calls.
template <PFN_vkGetDescriptorSetLayoutSupport* next>
VKAPI_ATTR void VKAPI_CALL StrictSupport(VkDevice device, const VkDescriptorSetLayoutCreateInfo* info,
                                         VkDescriptorSetLayoutSupport* support) {
  (*next)(device, info, support);
  uint32_t storage = 0;
  for (uint32_t i = 0; i < info->bindingCount; ++i) {
    const VkDescriptorType t = info->pBindings[i].descriptorType;
    if (t == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER || t == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC) {
      storage += info->pBindings[i].descriptorCount;
    }
  }
  g_last_storage_buffers.store(storage);
  if (storage > g_max_storage_buffers) support->supported = VK_FALSE;
}

VKAPI_ATTR VkResult VKAPI_CALL CreateInstance(const VkInstanceCreateInfo* ci, const VkAllocationCallbacks* alloc,
                                              VkInstance* out) {
  const VkResult r = bindery::test_layer::CreateInstanceBelow(ci, alloc, out, &g_gipa);
  if (r != VK_SUCCESS) return r;
  g_enumerate = reinterpret_cast<PFN_vkEnumerateDeviceExtensionProperties>(
      g_gipa(*out, "vkEnumerateDeviceExtensionProperties"));
  g_features2 = reinterpret_cast<PFN_vkGetPhysicalDeviceFeatures2>(g_gipa(*out, "vkGetPhysicalDeviceFeatures2"));
  g_features2_khr = reinterpret_cast<PFN_vkGetPhysicalDeviceFeatures2>(g_gipa(*out, "vkGetPhysicalDeviceFeatures2KHR"));
  g_properties = reinterpret_cast<PFN_vkGetPhysicalDeviceProperties>(g_gipa(*out, "vkGetPhysicalDeviceProperties"));
  return r;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetDeviceProcAddr(VkDevice device, const char* name) {
  BINDERY_TEST_LAYER_ENTRY(GetDeviceProcAddr);
  BINDERY_TEST_LAYER_ENTRY_AS_IF(GetDescriptorSetLayoutSupport, StrictSupport<&g_layout_support>, g_layout_support);
  BINDERY_TEST_LAYER_ENTRY_AS_IF(GetDescriptorSetLayoutSupportKHR, StrictSupport<&g_layout_support_khr>,
                                 g_layout_support_khr);
  BINDERY_TEST_LAYER_ENTRY_IF(CmdBindDescriptorSets2KHR, g_bind_sets);
  BINDERY_TEST_LAYER_ENTRY_IF(CmdPushConstants2KHR, g_push_constants);
  BINDERY_TEST_LAYER_ENTRY_IF(CmdPushDescriptorSet2KHR, g_push_descriptors);
  BINDERY_TEST_LAYER_ENTRY_IF(CmdPushDescriptorSetWithTemplate2KHR, g_push_template);
  return g_gdpa(device, name);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetInstanceProcAddr(VkInstance instance, const char* name) {
  BINDERY_TEST_LAYER_LOADER_ENTRIES();
  BINDERY_TEST_LAYER_ENTRY(EnumerateDeviceExtensionProperties);
  BINDERY_TEST_LAYER_ENTRY_AS_IF(GetPhysicalDeviceFeatures2, GetFeatures2<&g_features2>, g_features2);
  BINDERY_TEST_LAYER_ENTRY_AS_IF(GetPhysicalDeviceFeatures2KHR, GetFeatures2<&g_features2_khr>, g_features2_khr);
  return g_gipa == nullptr ? nullptr : g_gipa(instance, name);
}

}  // namespace

BINDERY_TEST_LAYER_NEGOTIATE(GetInstanceProcAddr, GetDeviceProcAddr)

BINDERY_TEST_LAYER_EXPORT uint32_t bindery_extras_created_with() {
  return g_created_with.load();
}

BINDERY_TEST_LAYER_EXPORT uint32_t bindery_extras_last_layout_storage_buffers() {
  return g_last_storage_buffers.load();
}
