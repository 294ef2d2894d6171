// Test-only layer: records the pNext chains of vkCreateInstance / vkCreateDevice as it
// receives them (i.e. as the layer above it sends them) and passes everything through.
#include <cstring>
#include <mutex>
#include <vector>

#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include "spy_layer.h"

namespace {

struct Link {
  PFN_vkGetInstanceProcAddr gipa = nullptr;
  PFN_vkGetDeviceProcAddr gdpa = nullptr;
};

std::mutex g_mutex;
Link g_instance_link;  // one instance with the spy at a time is enough for tests
Link g_device_link;
std::vector<SpyChainEntry> g_chains[2];

void Record(int which, const void* chain) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_chains[which].clear();
  for (auto* s = static_cast<const VkBaseInStructure*>(chain); s != nullptr; s = s->pNext) {
    if (s->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO ||
        s->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO) {
      continue;  // the loader's own link structs
    }
    SpyChainEntry entry{static_cast<uint32_t>(s->sType), s, -1, -1};
    if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES) {
      entry.buffer_device_address =
          static_cast<int32_t>(reinterpret_cast<const VkPhysicalDeviceBufferDeviceAddressFeatures*>(s)->bufferDeviceAddress);
    } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES) {
      const auto* v12 = reinterpret_cast<const VkPhysicalDeviceVulkan12Features*>(s);
      entry.buffer_device_address = static_cast<int32_t>(v12->bufferDeviceAddress);
      entry.timeline_semaphore = static_cast<int32_t>(v12->timelineSemaphore);
    }
    g_chains[which].push_back(entry);
  }
}

template <typename T>
T* FindLink(const void* chain, VkStructureType stype) {
  for (auto* s = static_cast<const VkBaseInStructure*>(chain); s != nullptr; s = s->pNext) {
    auto* info = reinterpret_cast<T*>(const_cast<VkBaseInStructure*>(s));
    if (s->sType == stype && info->function == VK_LAYER_LINK_INFO) return info;
  }
  return nullptr;
}

VKAPI_ATTR VkResult VKAPI_CALL SpyCreateInstance(const VkInstanceCreateInfo* ci, const VkAllocationCallbacks* alloc,
                                                 VkInstance* out) {
  Record(kSpyInstanceChain, ci->pNext);
  auto* link = FindLink<VkLayerInstanceCreateInfo>(ci->pNext, VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO);
  if (link == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
  g_instance_link.gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  auto create = reinterpret_cast<PFN_vkCreateInstance>(g_instance_link.gipa(VK_NULL_HANDLE, "vkCreateInstance"));
  return create(ci, alloc, out);
}

VKAPI_ATTR VkResult VKAPI_CALL SpyCreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo* ci,
                                               const VkAllocationCallbacks* alloc, VkDevice* out) {
  Record(kSpyDeviceChain, ci->pNext);
  auto* link = FindLink<VkLayerDeviceCreateInfo>(ci->pNext, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO);
  if (link == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  g_device_link.gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  auto create = reinterpret_cast<PFN_vkCreateDevice>(gipa(VK_NULL_HANDLE, "vkCreateDevice"));
  return create(pd, ci, alloc, out);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL SpyGetInstanceProcAddr(VkInstance instance, const char* name);

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL SpyGetDeviceProcAddr(VkDevice device, const char* name) {
  if (std::strcmp(name, "vkGetDeviceProcAddr") == 0) return reinterpret_cast<PFN_vkVoidFunction>(&SpyGetDeviceProcAddr);
  return g_device_link.gdpa(device, name);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL SpyGetInstanceProcAddr(VkInstance instance, const char* name) {
  if (std::strcmp(name, "vkCreateInstance") == 0) return reinterpret_cast<PFN_vkVoidFunction>(&SpyCreateInstance);
  if (std::strcmp(name, "vkCreateDevice") == 0) return reinterpret_cast<PFN_vkVoidFunction>(&SpyCreateDevice);
  if (std::strcmp(name, "vkGetInstanceProcAddr") == 0) {
    return reinterpret_cast<PFN_vkVoidFunction>(&SpyGetInstanceProcAddr);
  }
  if (std::strcmp(name, "vkGetDeviceProcAddr") == 0) return reinterpret_cast<PFN_vkVoidFunction>(&SpyGetDeviceProcAddr);
  return g_instance_link.gipa == nullptr ? nullptr : g_instance_link.gipa(instance, name);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) VKAPI_ATTR VkResult VKAPI_CALL
vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface* v) {
  if (v->loaderLayerInterfaceVersion < 2) return VK_ERROR_INITIALIZATION_FAILED;
  v->loaderLayerInterfaceVersion = 2;
  v->pfnGetInstanceProcAddr = &SpyGetInstanceProcAddr;
  v->pfnGetDeviceProcAddr = &SpyGetDeviceProcAddr;
  v->pfnGetPhysicalDeviceProcAddr = nullptr;
  return VK_SUCCESS;
}

extern "C" __attribute__((visibility("default"))) size_t bindery_spy_chain(int which, SpyChainEntry* out,
                                                                          size_t max) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const auto& chain = g_chains[which];
  for (size_t i = 0; i < chain.size() && i < max; ++i) out[i] = chain[i];
  return chain.size();
}
