// Each hook flushes the command buffer's queued small writes if they waited past a
// barrier, then calls down with the application's arguments.
#include "transfer/passthrough_transfer_hooks.h"

#include "transfer/transfer_capability.h"
#include "transfer/transfer_device.h"

namespace bindery::transfer {
namespace {

const VkLayerDispatchTable& CrossedFlushed(VkCommandBuffer cb) { return FlushThenNext(cb, FlushBefore::kCrossed); }

}  // namespace

VKAPI_ATTR void VKAPI_CALL CmdClearDepthStencilImage(VkCommandBuffer cb, VkImage image, VkImageLayout imageLayout, const VkClearDepthStencilValue* pDepthStencil, uint32_t rangeCount, const VkImageSubresourceRange* pRanges) {
  CrossedFlushed(cb).CmdClearDepthStencilImage(cb, image, imageLayout, pDepthStencil, rangeCount, pRanges);
}

VKAPI_ATTR void VKAPI_CALL CmdCopyQueryPoolResults(VkCommandBuffer cb, VkQueryPool queryPool, uint32_t firstQuery, uint32_t queryCount, VkBuffer dstBuffer, VkDeviceSize dstOffset, VkDeviceSize stride, VkQueryResultFlags flags) {
  CrossedFlushed(cb).CmdCopyQueryPoolResults(cb, queryPool, firstQuery, queryCount, dstBuffer, dstOffset, stride, flags);
}

VKAPI_ATTR void VKAPI_CALL CmdWriteBufferMarkerAMD(VkCommandBuffer cb, VkPipelineStageFlagBits pipelineStage, VkBuffer dstBuffer, VkDeviceSize dstOffset, uint32_t marker) {
  CrossedFlushed(cb).CmdWriteBufferMarkerAMD(cb, pipelineStage, dstBuffer, dstOffset, marker);
}

VKAPI_ATTR void VKAPI_CALL CmdWriteBufferMarker2AMD(VkCommandBuffer cb, VkPipelineStageFlags2 stage, VkBuffer dstBuffer, VkDeviceSize dstOffset, uint32_t marker) {
  CrossedFlushed(cb).CmdWriteBufferMarker2AMD(cb, stage, dstBuffer, dstOffset, marker);
}

VKAPI_ATTR void VKAPI_CALL CmdCopyMemoryIndirectNV(VkCommandBuffer cb, VkDeviceAddress copyBufferAddress, uint32_t copyCount, uint32_t stride) {
  CrossedFlushed(cb).CmdCopyMemoryIndirectNV(cb, copyBufferAddress, copyCount, stride);
}

VKAPI_ATTR void VKAPI_CALL CmdCopyMemoryToImageIndirectNV(VkCommandBuffer cb, VkDeviceAddress copyBufferAddress, uint32_t copyCount, uint32_t stride, VkImage dstImage, VkImageLayout dstImageLayout, const VkImageSubresourceLayers* pImageSubresources) {
  CrossedFlushed(cb).CmdCopyMemoryToImageIndirectNV(cb, copyBufferAddress, copyCount, stride, dstImage, dstImageLayout, pImageSubresources);
}

}  // namespace bindery::transfer
