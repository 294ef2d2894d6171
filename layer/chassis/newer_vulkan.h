// Vulkan types newer than the headers Debian 12 ships (1.3.239) that the chassis must
// understand to track state it would otherwise lose, or that a capability translates:
// vkCmdPushConstants2KHR and the other descriptor commands of VK_KHR_maintenance6,
// vkCmdBindShadersEXT (VK_EXT_shader_object) and VkBufferUsageFlags2CreateInfoKHR
// (VK_KHR_maintenance5); and the names and feature structure types of extensions a
// capability may hide (chassis/hidden_extensions.h). Declared here under our own names,
// with the registry's layouts and enum values, so the same code builds against newer
// headers too.
#pragma once

#include <cstdint>

#include <vulkan/vulkan.h>

namespace bindery {

// VK_KHR_maintenance5
inline constexpr VkStructureType kStypeBufferUsageFlags2CreateInfo = static_cast<VkStructureType>(1000470006);
inline constexpr uint64_t kBufferUsage2ShaderDeviceAddress = 0x00020000ull;
inline constexpr uint64_t kBufferUsage2TransferSrc = 0x00000001ull;
inline constexpr uint64_t kBufferUsage2TransferDst = 0x00000002ull;
struct BufferUsageFlags2CreateInfo {
  VkStructureType sType;
  const void* pNext;
  uint64_t usage;  // VkBufferUsageFlags2KHR
};

// VK_KHR_maintenance6
inline constexpr const char* kKhrMaintenance6 = "VK_KHR_maintenance6";
inline constexpr VkStructureType kStypeMaintenance6Features = static_cast<VkStructureType>(1000545000);
struct PushConstantsInfo {
  VkStructureType sType;
  const void* pNext;  // may hold a VkPipelineLayoutCreateInfo when layout is null
  VkPipelineLayout layout;
  VkShaderStageFlags stageFlags;
  uint32_t offset;
  uint32_t size;
  const void* pValues;
};
using PFN_CmdPushConstants2 = void(VKAPI_PTR*)(VkCommandBuffer, const PushConstantsInfo*);
// Every info struct below may also carry a VkPipelineLayoutCreateInfo in pNext when layout
// is null (dynamicPipelineLayout).
struct BindDescriptorSetsInfo {
  VkStructureType sType;
  const void* pNext;
  VkShaderStageFlags stageFlags;  // the bind points: those of the stages named
  VkPipelineLayout layout;
  uint32_t firstSet;
  uint32_t descriptorSetCount;
  const VkDescriptorSet* pDescriptorSets;
  uint32_t dynamicOffsetCount;
  const uint32_t* pDynamicOffsets;
};
struct PushDescriptorSetInfo {
  VkStructureType sType;
  const void* pNext;
  VkShaderStageFlags stageFlags;
  VkPipelineLayout layout;
  uint32_t set;
  uint32_t descriptorWriteCount;
  const VkWriteDescriptorSet* pDescriptorWrites;
};
struct PushDescriptorSetWithTemplateInfo {
  VkStructureType sType;
  const void* pNext;
  VkDescriptorUpdateTemplate descriptorUpdateTemplate;  // its bind point is the template's
  VkPipelineLayout layout;
  uint32_t set;
  const void* pData;
};
using PFN_CmdBindDescriptorSets2 = void(VKAPI_PTR*)(VkCommandBuffer, const BindDescriptorSetsInfo*);
using PFN_CmdPushDescriptorSet2 = void(VKAPI_PTR*)(VkCommandBuffer, const PushDescriptorSetInfo*);
using PFN_CmdPushDescriptorSetWithTemplate2 = void(VKAPI_PTR*)(VkCommandBuffer,
                                                               const PushDescriptorSetWithTemplateInfo*);

// VK_EXT_shader_object (VkShaderEXT is a non-dispatchable handle: 64 bits everywhere).
inline constexpr const char* kExtShaderObject = "VK_EXT_shader_object";
inline constexpr VkStructureType kStypeShaderObjectFeatures = static_cast<VkStructureType>(1000482000);
using ShaderObject = uint64_t;
using PFN_CmdBindShaders = void(VKAPI_PTR*)(VkCommandBuffer, uint32_t, const VkShaderStageFlagBits*,
                                            const ShaderObject*);

// Next-table entries for hooked functions that VkLayerDispatchTable (1.3.239) lacks.
struct NewerDeviceDispatch {
  PFN_CmdPushConstants2 CmdPushConstants2KHR = nullptr;
  PFN_CmdBindDescriptorSets2 CmdBindDescriptorSets2KHR = nullptr;
  PFN_CmdPushDescriptorSet2 CmdPushDescriptorSet2KHR = nullptr;
  PFN_CmdPushDescriptorSetWithTemplate2 CmdPushDescriptorSetWithTemplate2KHR = nullptr;
  PFN_CmdBindShaders CmdBindShadersEXT = nullptr;
};

}  // namespace bindery
