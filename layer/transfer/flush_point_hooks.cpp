// The flush points of coalesced small writes (transfer/coalesced_writes.h) that are not the
// capability's own transfer commands: every command through which a later command can be
// ordered after, or observe, a transfer write. Each flushes the command buffer's queued
// writes, then goes down unchanged. Installed only where the device coalesces.
//
// A query's begin flushes *before* the query starts (the tracking stage above marks a query
// that counts dispatches active only after the begin went down), so the flush may still be a
// dispatch; inside such a query nothing is queued (no kernel may run there), so its end has
// nothing to flush into it.
#include "transfer/flush_point_hooks.h"

#include "transfer/transfer_capability.h"
#include "transfer/transfer_device.h"
#include "transfer/transfer_only_barriers.h"

namespace bindery::transfer {
namespace {

const VkLayerDispatchTable& Flushed(VkCommandBuffer cb) { return FlushThenNext(cb, FlushBefore::kAny); }

// At a barrier: writes may wait past one that only makes transfer commands wait.
const VkLayerDispatchTable& FlushedOrCrossed(VkCommandBuffer cb, bool transfer_only) {
  return FlushThenNext(cb, transfer_only ? FlushBefore::kTransferOnlyBarrier : FlushBefore::kAny);
}

}  // namespace

VKAPI_ATTR void VKAPI_CALL CmdPipelineBarrier(VkCommandBuffer cb, VkPipelineStageFlags src, VkPipelineStageFlags dst,
                                              VkDependencyFlags flags, uint32_t memory_count,
                                              const VkMemoryBarrier* memory, uint32_t buffer_count,
                                              const VkBufferMemoryBarrier* buffers, uint32_t image_count,
                                              const VkImageMemoryBarrier* images) {
  const bool transfer_only =
      WaitsOnlyForTransfers(dst, flags, memory_count, memory, buffer_count, buffers, image_count, images);
  FlushedOrCrossed(cb, transfer_only)
      .CmdPipelineBarrier(cb, src, dst, flags, memory_count, memory, buffer_count, buffers, image_count, images);
}
VKAPI_ATTR void VKAPI_CALL CmdPipelineBarrier2(VkCommandBuffer cb, const VkDependencyInfo* info) {
  FlushedOrCrossed(cb, WaitsOnlyForTransfers(info)).CmdPipelineBarrier2(cb, info);
}
VKAPI_ATTR void VKAPI_CALL CmdPipelineBarrier2KHR(VkCommandBuffer cb, const VkDependencyInfo* info) {
  FlushedOrCrossed(cb, WaitsOnlyForTransfers(info)).CmdPipelineBarrier2KHR(cb, info);
}

VKAPI_ATTR void VKAPI_CALL CmdWaitEvents(VkCommandBuffer cb, uint32_t event_count, const VkEvent* events,
                                         VkPipelineStageFlags src, VkPipelineStageFlags dst, uint32_t memory_count,
                                         const VkMemoryBarrier* memory, uint32_t buffer_count,
                                         const VkBufferMemoryBarrier* buffers, uint32_t image_count,
                                         const VkImageMemoryBarrier* images) {
  Flushed(cb).CmdWaitEvents(cb, event_count, events, src, dst, memory_count, memory, buffer_count, buffers,
                            image_count, images);
}
VKAPI_ATTR void VKAPI_CALL CmdWaitEvents2(VkCommandBuffer cb, uint32_t count, const VkEvent* events,
                                          const VkDependencyInfo* infos) {
  Flushed(cb).CmdWaitEvents2(cb, count, events, infos);
}
VKAPI_ATTR void VKAPI_CALL CmdWaitEvents2KHR(VkCommandBuffer cb, uint32_t count, const VkEvent* events,
                                             const VkDependencyInfo* infos) {
  Flushed(cb).CmdWaitEvents2KHR(cb, count, events, infos);
}

VKAPI_ATTR void VKAPI_CALL CmdSetEvent(VkCommandBuffer cb, VkEvent event, VkPipelineStageFlags stages) {
  Flushed(cb).CmdSetEvent(cb, event, stages);
}
VKAPI_ATTR void VKAPI_CALL CmdSetEvent2(VkCommandBuffer cb, VkEvent event, const VkDependencyInfo* info) {
  Flushed(cb).CmdSetEvent2(cb, event, info);
}
VKAPI_ATTR void VKAPI_CALL CmdSetEvent2KHR(VkCommandBuffer cb, VkEvent event, const VkDependencyInfo* info) {
  Flushed(cb).CmdSetEvent2KHR(cb, event, info);
}

VKAPI_ATTR void VKAPI_CALL CmdWriteTimestamp(VkCommandBuffer cb, VkPipelineStageFlagBits stage, VkQueryPool pool,
                                             uint32_t query) {
  Flushed(cb).CmdWriteTimestamp(cb, stage, pool, query);
}
VKAPI_ATTR void VKAPI_CALL CmdWriteTimestamp2(VkCommandBuffer cb, VkPipelineStageFlags2 stage, VkQueryPool pool,
                                              uint32_t query) {
  Flushed(cb).CmdWriteTimestamp2(cb, stage, pool, query);
}
VKAPI_ATTR void VKAPI_CALL CmdWriteTimestamp2KHR(VkCommandBuffer cb, VkPipelineStageFlags2 stage, VkQueryPool pool,
                                                 uint32_t query) {
  Flushed(cb).CmdWriteTimestamp2KHR(cb, stage, pool, query);
}
VKAPI_ATTR void VKAPI_CALL CmdBeginQuery(VkCommandBuffer cb, VkQueryPool pool, uint32_t query,
                                         VkQueryControlFlags flags) {
  Flushed(cb).CmdBeginQuery(cb, pool, query, flags);
}
VKAPI_ATTR void VKAPI_CALL CmdEndQuery(VkCommandBuffer cb, VkQueryPool pool, uint32_t query) {
  Flushed(cb).CmdEndQuery(cb, pool, query);
}
VKAPI_ATTR void VKAPI_CALL CmdBeginQueryIndexedEXT(VkCommandBuffer cb, VkQueryPool pool, uint32_t query,
                                                   VkQueryControlFlags flags, uint32_t index) {
  Flushed(cb).CmdBeginQueryIndexedEXT(cb, pool, query, flags, index);
}
VKAPI_ATTR void VKAPI_CALL CmdEndQueryIndexedEXT(VkCommandBuffer cb, VkQueryPool pool, uint32_t query,
                                                 uint32_t index) {
  Flushed(cb).CmdEndQueryIndexedEXT(cb, pool, query, index);
}

VKAPI_ATTR void VKAPI_CALL CmdBeginRenderPass(VkCommandBuffer cb, const VkRenderPassBeginInfo* info,
                                              VkSubpassContents contents) {
  Flushed(cb).CmdBeginRenderPass(cb, info, contents);
}
VKAPI_ATTR void VKAPI_CALL CmdBeginRenderPass2(VkCommandBuffer cb, const VkRenderPassBeginInfo* info,
                                               const VkSubpassBeginInfo* subpass) {
  Flushed(cb).CmdBeginRenderPass2(cb, info, subpass);
}
VKAPI_ATTR void VKAPI_CALL CmdBeginRenderPass2KHR(VkCommandBuffer cb, const VkRenderPassBeginInfo* info,
                                                  const VkSubpassBeginInfo* subpass) {
  Flushed(cb).CmdBeginRenderPass2KHR(cb, info, subpass);
}
VKAPI_ATTR void VKAPI_CALL CmdBeginRendering(VkCommandBuffer cb, const VkRenderingInfo* info) {
  Flushed(cb).CmdBeginRendering(cb, info);
}
VKAPI_ATTR void VKAPI_CALL CmdBeginRenderingKHR(VkCommandBuffer cb, const VkRenderingInfo* info) {
  Flushed(cb).CmdBeginRenderingKHR(cb, info);
}

VKAPI_ATTR void VKAPI_CALL CmdExecuteCommands(VkCommandBuffer cb, uint32_t count, const VkCommandBuffer* buffers) {
  Flushed(cb).CmdExecuteCommands(cb, count, buffers);
}

VKAPI_ATTR VkResult VKAPI_CALL EndCommandBuffer(VkCommandBuffer cb) { return Flushed(cb).EndCommandBuffer(cb); }


bool SmallWritesPlanned(const DevicePlan& p) {
  const auto& plan = static_cast<const TransferPlan&>(p);
  return plan.kernels && plan.policy.small_write_max != 0;
}

}  // namespace bindery::transfer
