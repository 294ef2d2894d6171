// VK_KHR_maintenance6's descriptor commands as the registry defines them (the 1.3.239
// headers predate them): what tests/extras_layer implements and what tests call.
#pragma once

#include <cstdint>

#include <vulkan/vulkan.h>

namespace bindery::maintenance6 {

inline constexpr const char* kName = "VK_KHR_maintenance6";
inline constexpr VkStructureType kFeaturesType = static_cast<VkStructureType>(1000545000);
inline constexpr VkStructureType kBindDescriptorSetsInfoType = static_cast<VkStructureType>(1000545003);
inline constexpr VkStructureType kPushConstantsInfoType = static_cast<VkStructureType>(1000545004);
inline constexpr VkStructureType kPushDescriptorSetInfoType = static_cast<VkStructureType>(1000545005);
inline constexpr VkStructureType kPushDescriptorSetWithTemplateInfoType = static_cast<VkStructureType>(1000545006);

struct Features {
  VkStructureType sType = kFeaturesType;
  void* pNext = nullptr;
  VkBool32 maintenance6 = VK_FALSE;
};

struct BindDescriptorSetsInfo {
  VkStructureType sType = kBindDescriptorSetsInfoType;
  const void* pNext = nullptr;
  VkShaderStageFlags stageFlags = 0;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  uint32_t firstSet = 0;
  uint32_t descriptorSetCount = 0;
  const VkDescriptorSet* pDescriptorSets = nullptr;
  uint32_t dynamicOffsetCount = 0;
  const uint32_t* pDynamicOffsets = nullptr;
};

struct PushConstantsInfo {
  VkStructureType sType = kPushConstantsInfoType;
  const void* pNext = nullptr;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkShaderStageFlags stageFlags = 0;
  uint32_t offset = 0;
  uint32_t size = 0;
  const void* pValues = nullptr;
};

struct PushDescriptorSetInfo {
  VkStructureType sType = kPushDescriptorSetInfoType;
  const void* pNext = nullptr;
  VkShaderStageFlags stageFlags = 0;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  uint32_t set = 0;
  uint32_t descriptorWriteCount = 0;
  const VkWriteDescriptorSet* pDescriptorWrites = nullptr;
};

struct PushDescriptorSetWithTemplateInfo {
  VkStructureType sType = kPushDescriptorSetWithTemplateInfoType;
  const void* pNext = nullptr;
  VkDescriptorUpdateTemplate descriptorUpdateTemplate = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  uint32_t set = 0;
  const void* pData = nullptr;
};

using PFN_CmdBindDescriptorSets2 = void(VKAPI_PTR*)(VkCommandBuffer, const BindDescriptorSetsInfo*);
using PFN_CmdPushConstants2 = void(VKAPI_PTR*)(VkCommandBuffer, const PushConstantsInfo*);
using PFN_CmdPushDescriptorSet2 = void(VKAPI_PTR*)(VkCommandBuffer, const PushDescriptorSetInfo*);
using PFN_CmdPushDescriptorSetWithTemplate2 = void(VKAPI_PTR*)(VkCommandBuffer,
                                                               const PushDescriptorSetWithTemplateInfo*);

// The bind points a stageFlags names (ray tracing left out: lavapipe has none).
inline constexpr VkShaderStageFlags kGraphicsStages =
    VK_SHADER_STAGE_ALL_GRAPHICS | VK_SHADER_STAGE_TASK_BIT_EXT | VK_SHADER_STAGE_MESH_BIT_EXT;

}  // namespace bindery::maintenance6
