// Which barriers queued small writes may wait past (transfer/transfer_only_barriers.h).
#include <gtest/gtest.h>

#include "transfer/transfer_only_barriers.h"

namespace bindery::transfer {
namespace {

VkMemoryBarrier Memory() {
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  b.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  return b;
}

bool Legacy(VkPipelineStageFlags dst, VkDependencyFlags flags = 0, const VkBufferMemoryBarrier* buffer = nullptr,
            const VkImageMemoryBarrier* image = nullptr) {
  const VkMemoryBarrier memory = Memory();
  return WaitsOnlyForTransfers(dst, flags, 1, &memory, buffer != nullptr ? 1 : 0, buffer, image != nullptr ? 1 : 0,
                               image);
}

TEST(TransferOnlyBarriers, LegacyTransferToTransferQualifies) {
  EXPECT_TRUE(Legacy(VK_PIPELINE_STAGE_TRANSFER_BIT));
  EXPECT_TRUE(WaitsOnlyForTransfers(VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0, nullptr, 0, nullptr));
}

TEST(TransferOnlyBarriers, LegacyOtherDestinationStagesFlush) {
  EXPECT_FALSE(Legacy(VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT));
  EXPECT_FALSE(Legacy(VK_PIPELINE_STAGE_HOST_BIT));
  EXPECT_FALSE(Legacy(VK_PIPELINE_STAGE_ALL_COMMANDS_BIT));
  EXPECT_FALSE(Legacy(VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT));
  EXPECT_FALSE(Legacy(0));
}

TEST(TransferOnlyBarriers, LegacyDependencyFlagsOwnershipTransfersAndLayoutChangesFlush) {
  EXPECT_FALSE(Legacy(VK_PIPELINE_STAGE_TRANSFER_BIT, VK_DEPENDENCY_BY_REGION_BIT));
  VkBufferMemoryBarrier buffer{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
  buffer.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  buffer.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  EXPECT_TRUE(Legacy(VK_PIPELINE_STAGE_TRANSFER_BIT, 0, &buffer));
  buffer.srcQueueFamilyIndex = 0;
  buffer.dstQueueFamilyIndex = 1;  // a release
  EXPECT_FALSE(Legacy(VK_PIPELINE_STAGE_TRANSFER_BIT, 0, &buffer));
  VkImageMemoryBarrier image{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  image.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  image.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  image.oldLayout = image.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
  EXPECT_TRUE(Legacy(VK_PIPELINE_STAGE_TRANSFER_BIT, 0, nullptr, &image));
  image.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;  // a layout transition writes the image's memory
  EXPECT_FALSE(Legacy(VK_PIPELINE_STAGE_TRANSFER_BIT, 0, nullptr, &image));
}

TEST(TransferOnlyBarriers, LegacyExtensionStructsFlush) {
  VkMemoryBarrier memory = Memory();
  const VkMemoryBarrier other = Memory();
  memory.pNext = &other;
  EXPECT_FALSE(WaitsOnlyForTransfers(VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &memory, 0, nullptr, 0, nullptr));
}

VkMemoryBarrier2 Memory2(VkPipelineStageFlags2 dst) {
  VkMemoryBarrier2 b{VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
  b.srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT;
  b.srcAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT;
  b.dstStageMask = dst;
  b.dstAccessMask = VK_ACCESS_2_TRANSFER_READ_BIT;
  return b;
}

bool Sync2(const VkMemoryBarrier2& memory) {
  VkDependencyInfo info{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
  info.memoryBarrierCount = 1;
  info.pMemoryBarriers = &memory;
  return WaitsOnlyForTransfers(&info);
}

TEST(TransferOnlyBarriers, Sync2TransferStagesQualify) {
  EXPECT_TRUE(Sync2(Memory2(VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT)));
  EXPECT_TRUE(Sync2(Memory2(VK_PIPELINE_STAGE_2_COPY_BIT | VK_PIPELINE_STAGE_2_CLEAR_BIT)));
  EXPECT_TRUE(Sync2(Memory2(VK_PIPELINE_STAGE_2_BLIT_BIT | VK_PIPELINE_STAGE_2_RESOLVE_BIT)));
}

TEST(TransferOnlyBarriers, Sync2OtherStagesAndShapesFlush) {
  EXPECT_FALSE(Sync2(Memory2(VK_PIPELINE_STAGE_2_COPY_BIT | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT)));
  EXPECT_FALSE(Sync2(Memory2(VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT)));
  EXPECT_FALSE(Sync2(Memory2(VK_PIPELINE_STAGE_2_HOST_BIT)));
  EXPECT_FALSE(Sync2(Memory2(VK_PIPELINE_STAGE_2_ACCELERATION_STRUCTURE_COPY_BIT_KHR)));
  EXPECT_FALSE(Sync2(Memory2(VK_PIPELINE_STAGE_2_NONE)));
  VkDependencyInfo empty{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
  EXPECT_FALSE(WaitsOnlyForTransfers(&empty));
  EXPECT_FALSE(WaitsOnlyForTransfers(nullptr));

  const VkMemoryBarrier2 memory = Memory2(VK_PIPELINE_STAGE_2_COPY_BIT);
  VkDependencyInfo info{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
  info.memoryBarrierCount = 1;
  info.pMemoryBarriers = &memory;
  info.dependencyFlags = VK_DEPENDENCY_BY_REGION_BIT;
  EXPECT_FALSE(WaitsOnlyForTransfers(&info));
  info.dependencyFlags = 0;
  VkBufferMemoryBarrier2 release{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2};
  release.dstStageMask = VK_PIPELINE_STAGE_2_COPY_BIT;
  release.srcQueueFamilyIndex = 0;
  release.dstQueueFamilyIndex = 2;
  info.bufferMemoryBarrierCount = 1;
  info.pBufferMemoryBarriers = &release;
  EXPECT_FALSE(WaitsOnlyForTransfers(&info));
  release.dstQueueFamilyIndex = 0;
  EXPECT_TRUE(WaitsOnlyForTransfers(&info));
  VkImageMemoryBarrier2 transition{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2};
  transition.dstStageMask = VK_PIPELINE_STAGE_2_COPY_BIT;
  transition.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  transition.newLayout = VK_IMAGE_LAYOUT_GENERAL;
  info.imageMemoryBarrierCount = 1;
  info.pImageMemoryBarriers = &transition;
  EXPECT_FALSE(WaitsOnlyForTransfers(&info));
}

}  // namespace
}  // namespace bindery::transfer
