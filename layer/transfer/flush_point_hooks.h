// The flush points of coalesced small writes (flush_point_hooks.cpp), installed by the
// transfers capability where SmallWritesPlanned (transfer/coalesced_writes.h).
#pragma once

#include <vulkan/vulkan.h>

namespace bindery::transfer {

VKAPI_ATTR void VKAPI_CALL CmdPipelineBarrier(VkCommandBuffer cb, VkPipelineStageFlags src, VkPipelineStageFlags dst,
                                              VkDependencyFlags flags, uint32_t memory_count,
                                              const VkMemoryBarrier* memory, uint32_t buffer_count,
                                              const VkBufferMemoryBarrier* buffers, uint32_t image_count,
                                              const VkImageMemoryBarrier* images);
VKAPI_ATTR void VKAPI_CALL CmdPipelineBarrier2(VkCommandBuffer cb, const VkDependencyInfo* info);
VKAPI_ATTR void VKAPI_CALL CmdPipelineBarrier2KHR(VkCommandBuffer cb, const VkDependencyInfo* info);
VKAPI_ATTR void VKAPI_CALL CmdWaitEvents(VkCommandBuffer cb, uint32_t event_count, const VkEvent* events,
                                         VkPipelineStageFlags src, VkPipelineStageFlags dst, uint32_t memory_count,
                                         const VkMemoryBarrier* memory, uint32_t buffer_count,
                                         const VkBufferMemoryBarrier* buffers, uint32_t image_count,
                                         const VkImageMemoryBarrier* images);
VKAPI_ATTR void VKAPI_CALL CmdWaitEvents2(VkCommandBuffer cb, uint32_t count, const VkEvent* events,
                                          const VkDependencyInfo* infos);
VKAPI_ATTR void VKAPI_CALL CmdWaitEvents2KHR(VkCommandBuffer cb, uint32_t count, const VkEvent* events,
                                             const VkDependencyInfo* infos);
VKAPI_ATTR void VKAPI_CALL CmdSetEvent(VkCommandBuffer cb, VkEvent event, VkPipelineStageFlags stages);
VKAPI_ATTR void VKAPI_CALL CmdSetEvent2(VkCommandBuffer cb, VkEvent event, const VkDependencyInfo* info);
VKAPI_ATTR void VKAPI_CALL CmdSetEvent2KHR(VkCommandBuffer cb, VkEvent event, const VkDependencyInfo* info);
VKAPI_ATTR void VKAPI_CALL CmdWriteTimestamp(VkCommandBuffer cb, VkPipelineStageFlagBits stage, VkQueryPool pool,
                                             uint32_t query);
VKAPI_ATTR void VKAPI_CALL CmdWriteTimestamp2(VkCommandBuffer cb, VkPipelineStageFlags2 stage, VkQueryPool pool,
                                              uint32_t query);
VKAPI_ATTR void VKAPI_CALL CmdWriteTimestamp2KHR(VkCommandBuffer cb, VkPipelineStageFlags2 stage, VkQueryPool pool,
                                                 uint32_t query);
VKAPI_ATTR void VKAPI_CALL CmdBeginQuery(VkCommandBuffer cb, VkQueryPool pool, uint32_t query,
                                         VkQueryControlFlags flags);
VKAPI_ATTR void VKAPI_CALL CmdEndQuery(VkCommandBuffer cb, VkQueryPool pool, uint32_t query);
VKAPI_ATTR void VKAPI_CALL CmdBeginQueryIndexedEXT(VkCommandBuffer cb, VkQueryPool pool, uint32_t query,
                                                   VkQueryControlFlags flags, uint32_t index);
VKAPI_ATTR void VKAPI_CALL CmdEndQueryIndexedEXT(VkCommandBuffer cb, VkQueryPool pool, uint32_t query,
                                                 uint32_t index);
VKAPI_ATTR void VKAPI_CALL CmdBeginRenderPass(VkCommandBuffer cb, const VkRenderPassBeginInfo* info,
                                              VkSubpassContents contents);
VKAPI_ATTR void VKAPI_CALL CmdBeginRenderPass2(VkCommandBuffer cb, const VkRenderPassBeginInfo* info,
                                               const VkSubpassBeginInfo* subpass);
VKAPI_ATTR void VKAPI_CALL CmdBeginRenderPass2KHR(VkCommandBuffer cb, const VkRenderPassBeginInfo* info,
                                                  const VkSubpassBeginInfo* subpass);
VKAPI_ATTR void VKAPI_CALL CmdBeginRendering(VkCommandBuffer cb, const VkRenderingInfo* info);
VKAPI_ATTR void VKAPI_CALL CmdBeginRenderingKHR(VkCommandBuffer cb, const VkRenderingInfo* info);
VKAPI_ATTR void VKAPI_CALL CmdExecuteCommands(VkCommandBuffer cb, uint32_t count, const VkCommandBuffer* buffers);
VKAPI_ATTR VkResult VKAPI_CALL EndCommandBuffer(VkCommandBuffer cb);

}  // namespace bindery::transfer
