#include "transfer/transfer_only_barriers.h"

namespace bindery::transfer {
namespace {

// Synchronization2 stages that only transfer commands execute in.
constexpr VkPipelineStageFlags2 kTransferStages2 = VK_PIPELINE_STAGE_2_TRANSFER_BIT | VK_PIPELINE_STAGE_2_COPY_BIT |
                                                   VK_PIPELINE_STAGE_2_RESOLVE_BIT | VK_PIPELINE_STAGE_2_BLIT_BIT |
                                                   VK_PIPELINE_STAGE_2_CLEAR_BIT;

bool TransferOnly2(VkPipelineStageFlags2 stages) { return stages != 0 && (stages & ~kTransferStages2) == 0; }

bool SameFamily(uint32_t src, uint32_t dst) { return src == dst; }

}  // namespace

bool WaitsOnlyForTransfers(VkPipelineStageFlags dst_stages, VkDependencyFlags flags, uint32_t memory_count,
                           const VkMemoryBarrier* memory, uint32_t buffer_count, const VkBufferMemoryBarrier* buffers,
                           uint32_t image_count, const VkImageMemoryBarrier* images) {
  if (dst_stages != VK_PIPELINE_STAGE_TRANSFER_BIT || flags != 0) return false;
  for (uint32_t i = 0; i < memory_count; ++i) {
    if (memory[i].pNext != nullptr) return false;
  }
  for (uint32_t i = 0; i < buffer_count; ++i) {
    const VkBufferMemoryBarrier& b = buffers[i];
    if (b.pNext != nullptr || !SameFamily(b.srcQueueFamilyIndex, b.dstQueueFamilyIndex)) return false;
  }
  for (uint32_t i = 0; i < image_count; ++i) {
    const VkImageMemoryBarrier& b = images[i];
    if (b.pNext != nullptr || b.oldLayout != b.newLayout || !SameFamily(b.srcQueueFamilyIndex, b.dstQueueFamilyIndex)) {
      return false;
    }
  }
  return true;
}

bool WaitsOnlyForTransfers(const VkDependencyInfo* info) {
  if (info == nullptr || info->pNext != nullptr || info->dependencyFlags != 0) return false;
  const uint32_t total = info->memoryBarrierCount + info->bufferMemoryBarrierCount + info->imageMemoryBarrierCount;
  if (total == 0) return false;  // an execution-only dependency with no stage named here: flush
  for (uint32_t i = 0; i < info->memoryBarrierCount; ++i) {
    const VkMemoryBarrier2& b = info->pMemoryBarriers[i];
    if (b.pNext != nullptr || !TransferOnly2(b.dstStageMask)) return false;
  }
  for (uint32_t i = 0; i < info->bufferMemoryBarrierCount; ++i) {
    const VkBufferMemoryBarrier2& b = info->pBufferMemoryBarriers[i];
    if (b.pNext != nullptr || !TransferOnly2(b.dstStageMask) ||
        !SameFamily(b.srcQueueFamilyIndex, b.dstQueueFamilyIndex)) {
      return false;
    }
  }
  for (uint32_t i = 0; i < info->imageMemoryBarrierCount; ++i) {
    const VkImageMemoryBarrier2& b = info->pImageMemoryBarriers[i];
    if (b.pNext != nullptr || !TransferOnly2(b.dstStageMask) || b.oldLayout != b.newLayout ||
        !SameFamily(b.srcQueueFamilyIndex, b.dstQueueFamilyIndex)) {
      return false;
    }
  }
  return true;
}

}  // namespace bindery::transfer
