// The command-buffer state around a transfer kernel that the spec lets a dispatch see or be
// seen by, beside queries (transfer_queries_test.cpp); docs/transfers.md, "What a kernel could
// change", says why the rest needs nothing:
//
// - DeviceMaskAroundKernels: a device made as a device group (of lavapipe's one physical
//   device), command buffers begun with a device mask and vkCmdSetDeviceMask recorded: a
//   dispatch runs on the devices of the current mask, like the copy or fill it stands in for;
//   the kernels still run (a group of one keeps them: docs/transfers.md) and validation stays
//   silent. A group of several physical devices keeps them off (unit.TransferDeviceGroups.*).
// - DebugLabelsAroundKernels: the application's debug-utils label regions and inserted labels
//   around and between kernels: labels only annotate (tools show the kernels inside the
//   region), and validation below sees balanced regions.
#include <cstring>

#include "integration/transfer_model.h"

namespace bindery::test::transfer {
namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kBytes = 6 * kMiB;

class TransferCommandContext : public ::testing::TestWithParam<Config> {};

// A kernel copy and a large unaligned fill (a kernel, or NVIDIA's realigned middle with its
// edge dispatch) into `dst`, with the model.
void RecordKernels(VkCommandBuffer cb, CopyBuffers& c) {
  const VkBufferCopy region{0, 0, 2 * kMiB};
  vkCmdCopyBuffer(cb, c.src.buffer, c.dst.buffer, 1, &region);
  c.model.Copy(c.source.data(), 0, 0, 2 * kMiB);
  vkCmdFillBuffer(cb, c.dst.buffer, 3 * kMiB + 1, 2 * kMiB + 2, 0x5A6B7C8Du);
  c.model.Fill(3 * kMiB + 1, 2 * kMiB + 2, 0x5A6B7C8Du);
}

TEST_P(TransferCommandContext, DeviceMaskAroundKernels) {
  RigOptions options;
  options.device_group = true;
  Rig rig(GetParam(), options);
  ASSERT_TRUE(rig.ok()) << rig.error();
  CopyBuffers c = rig.Copy(kBytes, 41);
  VkCommandBuffer cb = rig.Allocate();
  VkDeviceGroupCommandBufferBeginInfo mask{VK_STRUCTURE_TYPE_DEVICE_GROUP_COMMAND_BUFFER_BEGIN_INFO};
  mask.deviceMask = 1;
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.pNext = &mask;
  ASSERT_EQ(vkBeginCommandBuffer(cb, &begin), VK_SUCCESS);
  vkCmdSetDeviceMask(cb, 1);
  RecordKernels(cb, c);
  vkCmdSetDeviceMask(cb, 1);
  rig.HostReadBarrier(cb);
  ASSERT_EQ(rig.Submit(cb), VK_SUCCESS);
  EXPECT_TRUE(SameBytes(c.dst.mapped, c.model.data(), kBytes));
  EXPECT_VALIDATION_SILENT(rig.h());
  const Summary summary = rig.Finish();
  EXPECT_GT(summary.kernels, 0u) << "a device group of one keeps the kernels: " << summary.text;
}

TEST_P(TransferCommandContext, DebugLabelsAroundKernels) {
  Rig rig(GetParam());
  ASSERT_TRUE(rig.ok()) << rig.error();
  auto begin_label = reinterpret_cast<PFN_vkCmdBeginDebugUtilsLabelEXT>(
      vkGetInstanceProcAddr(rig.h().instance(), "vkCmdBeginDebugUtilsLabelEXT"));
  auto insert_label = reinterpret_cast<PFN_vkCmdInsertDebugUtilsLabelEXT>(
      vkGetInstanceProcAddr(rig.h().instance(), "vkCmdInsertDebugUtilsLabelEXT"));
  auto end_label = reinterpret_cast<PFN_vkCmdEndDebugUtilsLabelEXT>(
      vkGetInstanceProcAddr(rig.h().instance(), "vkCmdEndDebugUtilsLabelEXT"));
  ASSERT_TRUE(begin_label != nullptr && insert_label != nullptr && end_label != nullptr);
  CopyBuffers c = rig.Copy(kBytes, 43);
  VkCommandBuffer cb = rig.Allocate();
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  ASSERT_EQ(vkBeginCommandBuffer(cb, &begin), VK_SUCCESS);
  VkDebugUtilsLabelEXT label{VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT};
  label.pLabelName = "the application's transfers";
  begin_label(cb, &label);
  RecordKernels(cb, c);
  label.pLabelName = "between";
  insert_label(cb, &label);
  end_label(cb);
  rig.HostReadBarrier(cb);
  ASSERT_EQ(rig.Submit(cb), VK_SUCCESS);
  EXPECT_TRUE(SameBytes(c.dst.mapped, c.model.data(), kBytes));
  EXPECT_VALIDATION_SILENT(rig.h());
  const Summary summary = rig.Finish();
  EXPECT_GT(summary.kernels, 0u) << summary.text;
}

INSTANTIATE_TEST_SUITE_P(Transfer, TransferCommandContext, ::testing::Values(kForceCompute, kAutoNvidiaPolicy),
                         ConfigName);

}  // namespace
}  // namespace bindery::test::transfer
