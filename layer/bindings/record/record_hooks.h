// The Vulkan commands the record hooks take: binds, pushes, pipeline binds, and every draw
// and dispatch.
#pragma once

#include <vulkan/vulkan.h>

#include "chassis/newer_vulkan.h"

namespace bindery::bindings {

class RecordStore;

// bind_hooks.cpp
VKAPI_ATTR void VKAPI_CALL CmdBindDescriptorSets(VkCommandBuffer, VkPipelineBindPoint, VkPipelineLayout, uint32_t,
                                                 uint32_t, const VkDescriptorSet*, uint32_t, const uint32_t*);
VKAPI_ATTR void VKAPI_CALL CmdPushConstants(VkCommandBuffer, VkPipelineLayout, VkShaderStageFlags, uint32_t, uint32_t,
                                            const void*);

// push_descriptor_hooks.cpp
VKAPI_ATTR void VKAPI_CALL CmdPushDescriptorSetKHR(VkCommandBuffer, VkPipelineBindPoint, VkPipelineLayout, uint32_t,
                                                   uint32_t, const VkWriteDescriptorSet*);
VKAPI_ATTR void VKAPI_CALL CmdPushDescriptorSetWithTemplateKHR(VkCommandBuffer, VkDescriptorUpdateTemplate,
                                                               VkPipelineLayout, uint32_t, const void*);

// The hooks' work for a device their caller found already (`found`), so that a command finds
// it once: the slow paths of the hooks above, which maintenance6_hooks.cpp's 2-commands
// call too. BindDescriptorSetsSlow takes nullptr for a device the caller's table did not
// answer; the others take a device where layouts convert (or, for pushes, widen).
// Out of line (gnu::noinline): the hooks' pass-through stays a tail call without a frame.
[[gnu::noinline]] void BindDescriptorSetsSlow(VkCommandBuffer, VkPipelineBindPoint, VkPipelineLayout, uint32_t,
                                              uint32_t, const VkDescriptorSet*, uint32_t, const uint32_t*,
                                              RecordStore* found);
[[gnu::noinline]] void PushConstantsConverting(RecordStore& found, VkCommandBuffer, VkPipelineLayout,
                                               VkShaderStageFlags, uint32_t, uint32_t, const void*);
void PushDescriptorSetConverting(RecordStore& found, VkCommandBuffer, VkPipelineBindPoint, VkPipelineLayout, uint32_t,
                                 uint32_t, const VkWriteDescriptorSet*);
void PushDescriptorSetWithTemplateConverting(RecordStore& found, VkCommandBuffer, VkDescriptorUpdateTemplate,
                                             VkPipelineLayout, uint32_t, const void*);

// maintenance6_hooks.cpp (VK_KHR_maintenance6; the info structs are chassis/newer_vulkan.h's)
VKAPI_ATTR void VKAPI_CALL CmdBindDescriptorSets2KHR(VkCommandBuffer, const BindDescriptorSetsInfo*);
VKAPI_ATTR void VKAPI_CALL CmdPushConstants2KHR(VkCommandBuffer, const PushConstantsInfo*);
VKAPI_ATTR void VKAPI_CALL CmdPushDescriptorSet2KHR(VkCommandBuffer, const PushDescriptorSetInfo*);
VKAPI_ATTR void VKAPI_CALL CmdPushDescriptorSetWithTemplate2KHR(VkCommandBuffer,
                                                                const PushDescriptorSetWithTemplateInfo*);

// draw_hooks.cpp: pipeline binds and every draw and dispatch command.
VKAPI_ATTR void VKAPI_CALL CmdBindPipeline(VkCommandBuffer, VkPipelineBindPoint, VkPipeline);
VKAPI_ATTR void VKAPI_CALL CmdDraw(VkCommandBuffer, uint32_t, uint32_t, uint32_t, uint32_t);
VKAPI_ATTR void VKAPI_CALL CmdDrawIndexed(VkCommandBuffer, uint32_t, uint32_t, uint32_t, int32_t, uint32_t);
VKAPI_ATTR void VKAPI_CALL CmdDrawMultiEXT(VkCommandBuffer, uint32_t, const VkMultiDrawInfoEXT*, uint32_t, uint32_t,
                                           uint32_t);
VKAPI_ATTR void VKAPI_CALL CmdDrawMultiIndexedEXT(VkCommandBuffer, uint32_t, const VkMultiDrawIndexedInfoEXT*, uint32_t,
                                                  uint32_t, uint32_t, const int32_t*);
VKAPI_ATTR void VKAPI_CALL CmdDrawIndirect(VkCommandBuffer, VkBuffer, VkDeviceSize, uint32_t, uint32_t);
VKAPI_ATTR void VKAPI_CALL CmdDrawIndexedIndirect(VkCommandBuffer, VkBuffer, VkDeviceSize, uint32_t, uint32_t);
VKAPI_ATTR void VKAPI_CALL CmdDrawIndirectByteCountEXT(VkCommandBuffer, uint32_t, uint32_t, VkBuffer, VkDeviceSize,
                                                       uint32_t, uint32_t);
#define BINDERY_COUNT_DRAW_DECL(name)                                                                   \
  VKAPI_ATTR void VKAPI_CALL name(VkCommandBuffer, VkBuffer, VkDeviceSize, VkBuffer, VkDeviceSize, uint32_t, \
                                  uint32_t);
BINDERY_COUNT_DRAW_DECL(CmdDrawIndirectCount)
BINDERY_COUNT_DRAW_DECL(CmdDrawIndexedIndirectCount)
BINDERY_COUNT_DRAW_DECL(CmdDrawIndirectCountKHR)
BINDERY_COUNT_DRAW_DECL(CmdDrawIndexedIndirectCountKHR)
BINDERY_COUNT_DRAW_DECL(CmdDrawIndirectCountAMD)
BINDERY_COUNT_DRAW_DECL(CmdDrawIndexedIndirectCountAMD)
BINDERY_COUNT_DRAW_DECL(CmdDrawMeshTasksIndirectCountEXT)
BINDERY_COUNT_DRAW_DECL(CmdDrawMeshTasksIndirectCountNV)
#undef BINDERY_COUNT_DRAW_DECL
VKAPI_ATTR void VKAPI_CALL CmdDrawMeshTasksEXT(VkCommandBuffer, uint32_t, uint32_t, uint32_t);
VKAPI_ATTR void VKAPI_CALL CmdDrawMeshTasksIndirectEXT(VkCommandBuffer, VkBuffer, VkDeviceSize, uint32_t, uint32_t);
VKAPI_ATTR void VKAPI_CALL CmdDrawMeshTasksNV(VkCommandBuffer, uint32_t, uint32_t);
VKAPI_ATTR void VKAPI_CALL CmdDrawMeshTasksIndirectNV(VkCommandBuffer, VkBuffer, VkDeviceSize, uint32_t, uint32_t);
VKAPI_ATTR void VKAPI_CALL CmdDrawClusterHUAWEI(VkCommandBuffer, uint32_t, uint32_t, uint32_t);
VKAPI_ATTR void VKAPI_CALL CmdDrawClusterIndirectHUAWEI(VkCommandBuffer, VkBuffer, VkDeviceSize);
VKAPI_ATTR void VKAPI_CALL CmdDispatch(VkCommandBuffer, uint32_t, uint32_t, uint32_t);
VKAPI_ATTR void VKAPI_CALL CmdDispatchBase(VkCommandBuffer, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t);
VKAPI_ATTR void VKAPI_CALL CmdDispatchBaseKHR(VkCommandBuffer, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t,
                                              uint32_t);
VKAPI_ATTR void VKAPI_CALL CmdDispatchIndirect(VkCommandBuffer, VkBuffer, VkDeviceSize);

}  // namespace bindery::bindings
