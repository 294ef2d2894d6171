// The loader's link info in vkCreateInstance / vkCreateDevice: the one walk of it.
//
// The chain may hold several VK_STRUCTURE_TYPE_LOADER_{INSTANCE,DEVICE}_CREATE_INFO
// structs (the loader also passes the loader-data callbacks and, for devices, other
// `function` kinds), in any order: only the one whose `function` is VK_LAYER_LINK_INFO
// carries the next layer.
#pragma once

#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

namespace bindery {

template <typename LayerCreateInfo>
LayerCreateInfo* FindLinkInfo(const void* chain, VkStructureType stype) {
  for (auto* s = static_cast<const VkBaseInStructure*>(chain); s != nullptr; s = s->pNext) {
    if (s->sType != stype) continue;
    auto* info = reinterpret_cast<LayerCreateInfo*>(const_cast<VkBaseInStructure*>(s));
    if (info->function == VK_LAYER_LINK_INFO) return info;
  }
  return nullptr;
}

inline VkLayerInstanceCreateInfo* FindInstanceLink(const VkInstanceCreateInfo* info) {
  return FindLinkInfo<VkLayerInstanceCreateInfo>(info->pNext, VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO);
}

inline VkLayerDeviceCreateInfo* FindDeviceLink(const VkDeviceCreateInfo* info) {
  return FindLinkInfo<VkLayerDeviceCreateInfo>(info->pNext, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO);
}

}  // namespace bindery
