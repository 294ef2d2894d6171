#include "core/chain_edit.h"

#include <vulkan/vk_layer.h>

#include "core/pnext.h"

namespace bindery {

std::size_t KnownStructSize(VkStructureType stype) {
  switch (stype) {
    case VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO: return sizeof(VkLayerDeviceCreateInfo);
    case VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO: return sizeof(VkLayerInstanceCreateInfo);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2: return sizeof(VkPhysicalDeviceFeatures2);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES: return sizeof(VkPhysicalDeviceVulkan11Features);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES: return sizeof(VkPhysicalDeviceVulkan12Features);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES: return sizeof(VkPhysicalDeviceVulkan13Features);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES:
      return sizeof(VkPhysicalDeviceBufferDeviceAddressFeatures);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES: return sizeof(VkPhysicalDevice8BitStorageFeatures);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES:
      return sizeof(VkPhysicalDevice16BitStorageFeatures);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES:
      return sizeof(VkPhysicalDeviceTimelineSemaphoreFeatures);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DESCRIPTOR_INDEXING_FEATURES:
      return sizeof(VkPhysicalDeviceDescriptorIndexingFeatures);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES:
      return sizeof(VkPhysicalDeviceSynchronization2Features);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES:
      return sizeof(VkPhysicalDeviceShaderFloat16Int8Features);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SCALAR_BLOCK_LAYOUT_FEATURES:
      return sizeof(VkPhysicalDeviceScalarBlockLayoutFeatures);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES:
      return sizeof(VkPhysicalDeviceVulkanMemoryModelFeatures);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES:
      return sizeof(VkPhysicalDeviceHostQueryResetFeatures);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DYNAMIC_RENDERING_FEATURES:
      return sizeof(VkPhysicalDeviceDynamicRenderingFeatures);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_FEATURES:
      return sizeof(VkPhysicalDeviceMaintenance4Features);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT:
      return sizeof(VkPhysicalDeviceRobustness2FeaturesEXT);
    case VK_STRUCTURE_TYPE_DEVICE_GROUP_DEVICE_CREATE_INFO: return sizeof(VkDeviceGroupDeviceCreateInfo);
    case VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO: return sizeof(VkMemoryAllocateFlagsInfo);
    case VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO: return sizeof(VkMemoryDedicatedAllocateInfo);
    case VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO: return sizeof(VkExportMemoryAllocateInfo);
    case VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR: return sizeof(VkImportMemoryFdInfoKHR);
    case VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT: return sizeof(VkImportMemoryHostPointerInfoEXT);
    case VK_STRUCTURE_TYPE_MEMORY_PRIORITY_ALLOCATE_INFO_EXT: return sizeof(VkMemoryPriorityAllocateInfoEXT);
    case VK_STRUCTURE_TYPE_MEMORY_OPAQUE_CAPTURE_ADDRESS_ALLOCATE_INFO:
      return sizeof(VkMemoryOpaqueCaptureAddressAllocateInfo);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES_EXT:
      return sizeof(VkPhysicalDeviceBufferDeviceAddressFeaturesEXT);
    case VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO: return sizeof(VkExternalMemoryBufferCreateInfo);
    case VK_STRUCTURE_TYPE_BUFFER_OPAQUE_CAPTURE_ADDRESS_CREATE_INFO:
      return sizeof(VkBufferOpaqueCaptureAddressCreateInfo);
    case VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_CREATE_INFO_EXT:
      return sizeof(VkBufferDeviceAddressCreateInfoEXT);
    case VK_STRUCTURE_TYPE_DEDICATED_ALLOCATION_BUFFER_CREATE_INFO_NV:
      return sizeof(VkDedicatedAllocationBufferCreateInfoNV);
    default:
      // VkBufferUsageFlags2CreateInfoKHR (maintenance5) is newer than these headers.
      if (stype == static_cast<VkStructureType>(1000470006)) return 24;
      return 0;
  }
}

const VkBaseInStructure* ChainEditor::Find(VkStructureType stype) const {
  return FindInChain<VkBaseInStructure>(first_, stype);
}

void* ChainEditor::CopyStruct(const void* s, std::size_t size) {
  storage_.emplace_back(new unsigned char[size]);
  std::memcpy(storage_.back().get(), s, size);
  return storage_.back().get();
}

bool ChainEditor::FindWithCopyablePrefix(VkStructureType stype, const VkBaseInStructure** target,
                                         std::vector<const VkBaseInStructure*>* prefix) const {
  for (auto* s = static_cast<const VkBaseInStructure*>(first_); s != nullptr; s = s->pNext) {
    if (s->sType == stype) {
      *target = s;
      return true;
    }
    if (KnownStructSize(s->sType) == 0) return false;
    prefix->push_back(s);
  }
  return false;
}

void ChainEditor::CopyPrefixOnto(const std::vector<const VkBaseInStructure*>& prefix, const void* tail) {
  // Copy back to front, each copy pointing at the copy after it; the last at `tail`.
  const void* next = tail;
  for (auto it = prefix.rbegin(); it != prefix.rend(); ++it) {
    auto* c = static_cast<VkBaseOutStructure*>(CopyStruct(*it, KnownStructSize((*it)->sType)));
    c->pNext = static_cast<VkBaseOutStructure*>(const_cast<void*>(next));
    next = c;
  }
  first_ = next;
}

void* ChainEditor::ModifyStruct(VkStructureType stype, std::size_t size) {
  std::vector<const VkBaseInStructure*> prefix;
  const VkBaseInStructure* target = nullptr;
  if (!FindWithCopyablePrefix(stype, &target, &prefix)) return nullptr;
  void* copy = CopyStruct(target, size);
  CopyPrefixOnto(prefix, copy);
  return copy;
}

bool ChainEditor::Remove(VkStructureType stype) {
  while (Find(stype) != nullptr) {
    std::vector<const VkBaseInStructure*> prefix;
    const VkBaseInStructure* target = nullptr;
    if (!FindWithCopyablePrefix(stype, &target, &prefix)) return false;
    CopyPrefixOnto(prefix, target->pNext);  // the prefix now skips the target
  }
  return true;
}

}  // namespace bindery
