// vkCmdCopyBuffer2 reaches the driver untouched when no region needs the layer (docs/transfers.md,
// part 4f): the same VkCopyBufferInfo2 (pNext, regions and all), not a re-expression as
// vkCmdCopyBuffer that would lose its extension structures. The spy layer below Bindery
// records the calls that arrive. When a region does go to a kernel, the bytes are right.
#include <cstring>

#include "integration/spy_access.h"
#include "integration/transfer_model.h"

namespace bindery::test::transfer {
namespace {

constexpr uint64_t kBytes = 256 << 10;

class TransferCopy2 : public ::testing::TestWithParam<Config> {};

TEST_P(TransferCopy2, ForwardedUntouchedWhenNothingIsDiverted) {
  const Config& config = GetParam();
  Rig rig(config, WithSpy());
  ASSERT_TRUE(rig.ok()) << rig.error();
  auto [src, dst, source, model] = rig.Copy(kBytes, 9);

  // Regions too small for any kernel (no 16-byte block in the middle; one region: no batch).
  VkBufferCopy2 small{VK_STRUCTURE_TYPE_BUFFER_COPY_2};
  small.srcOffset = 64;
  small.dstOffset = 128;
  small.size = 12;
  VkCopyBufferInfo2 info{VK_STRUCTURE_TYPE_COPY_BUFFER_INFO_2};
  info.srcBuffer = src.buffer;
  info.dstBuffer = dst.buffer;
  info.regionCount = 1;
  info.pRegions = &small;
  model.Copy(source.data(), small.srcOffset, small.dstOffset, small.size);

  VkCommandBuffer cb = rig.h().BeginCommands();
  SpyClearEvents();
  vkCmdCopyBuffer2(cb, &info);
  const std::vector<SpyEvent> copies2 = SpyEventsOf(kSpyCmdCopyBuffer2);
  const std::vector<SpyEvent> copies1 = SpyEventsOf(kSpyCmdCopyBuffer);
  rig.HostReadBarrier(cb);
  ASSERT_EQ(rig.h().SubmitAndWait(cb), VK_SUCCESS);
  EXPECT_TRUE(SameBytes(dst.mapped, model.data(), kBytes));

  ASSERT_EQ(copies2.size(), 1u) << "vkCmdCopyBuffer2 did not reach the driver as itself (" << copies1.size()
                                << " vkCmdCopyBuffer calls instead)";
  EXPECT_EQ(copies2[0].info, &info) << "not the application's VkCopyBufferInfo2";
  EXPECT_EQ(copies2[0].regions, info.pRegions);
  EXPECT_EQ(copies2[0].count, 1u);
  EXPECT_TRUE(copies1.empty());
  rig.Finish();
  EXPECT_VALIDATION_SILENT(rig.h());
}

TEST_P(TransferCopy2, DivertedRegionsAreCopiedRight) {
  const Config& config = GetParam();
  Rig rig(config, WithSpy());
  ASSERT_TRUE(rig.ok()) << rig.error();
  auto [src, dst, source, model] = rig.Copy(kBytes, 10);
  VkBufferCopy2 regions[2] = {{VK_STRUCTURE_TYPE_BUFFER_COPY_2}, {VK_STRUCTURE_TYPE_BUFFER_COPY_2}};
  regions[0].srcOffset = 1;  // big and unaligned: a kernel under the compute strategy
  regions[0].dstOffset = 3;
  regions[0].size = kBytes / 2;
  regions[1].srcOffset = kBytes - 100;  // small
  regions[1].dstOffset = kBytes - 50;
  regions[1].size = 7;
  VkCopyBufferInfo2 info{VK_STRUCTURE_TYPE_COPY_BUFFER_INFO_2};
  info.srcBuffer = src.buffer;
  info.dstBuffer = dst.buffer;
  info.regionCount = 2;
  info.pRegions = regions;
  for (const VkBufferCopy2& r : regions) model.Copy(source.data(), r.srcOffset, r.dstOffset, r.size);
  VkCommandBuffer cb = rig.h().BeginCommands();
  vkCmdCopyBuffer2(cb, &info);
  rig.TransferHostReadBarrier(cb);
  ASSERT_EQ(rig.h().SubmitAndWait(cb), VK_SUCCESS);
  EXPECT_TRUE(SameBytes(dst.mapped, model.data(), kBytes));
  const Summary summary = rig.Finish();
  EXPECT_VALIDATION_SILENT(rig.h());
  if (config.Is("force", "compute")) {
    EXPECT_GE(summary.kernels, 1u) << summary.text;
  }
}

INSTANTIATE_TEST_SUITE_P(Transfer, TransferCopy2, ::testing::Values(kLayerOff, kForceNative, kForceCompute, kAuto),
                         ConfigName);

}  // namespace
}  // namespace bindery::test::transfer
