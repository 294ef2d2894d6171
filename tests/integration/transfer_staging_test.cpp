// Work that needs staging memory is never dropped silently (docs/transfers.md): when the
// layer cannot get staging, the command buffer records the error and vkEndCommandBuffer
// returns it (as Mesa's command buffers do), so the application never submits a command
// buffer with missing writes. Updates that are aligned but larger than 64 KiB need no
// staging at all: they split into native updates.
//
// BINDERY_STAGING_LIMIT (bytes of staging memory per device) caps staging; 0 means none
// can be had.
//
// StagingComesFromFewBlocks (part 5): ~6 MB of staged updates cost two allocations (4 MiB
// blocks, not one per 64 KiB); freeing the command buffer trims the pool to one spare
// block, which the next recording reuses. The spy layer below Bindery counts the calls.
#include <cstring>

#include "integration/spy_access.h"
#include "integration/transfer_model.h"

namespace bindery::test::transfer {
namespace {

RigOptions NoStaging() {
  RigOptions options;
  options.env = {{"BINDERY_STAGING_LIMIT", "0"}};
  return options;
}

void ExpectSettingKnown(VkHarness& h) {
  EXPECT_FALSE(HasMessage(h.BinderyMessages(), "BINDERY-settings", "BINDERY_STAGING_LIMIT"))
      << "the layer does not know the setting:\n"
      << VkHarness::Format(h.BinderyMessages());
}

class TransferStaging : public ::testing::TestWithParam<Config> {};

TEST_P(TransferStaging, UnalignedFillWithoutStagingFailsEndCommandBuffer) {
  Rig rig(GetParam(), NoStaging());
  ASSERT_TRUE(rig.ok()) << rig.error();
  ExpectSettingKnown(rig.h());
  HostBuffer dst = rig.Buffer(4096);
  VkCommandBuffer cb = rig.Allocate();
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  ASSERT_EQ(vkBeginCommandBuffer(cb, &begin), VK_SUCCESS);
  vkCmdFillBuffer(cb, dst.buffer, 1, 10, 0x44332211u);  // edge bytes need staging
  const VkResult end = vkEndCommandBuffer(cb);
  EXPECT_TRUE(end == VK_ERROR_OUT_OF_DEVICE_MEMORY || end == VK_ERROR_OUT_OF_HOST_MEMORY)
      << "vkEndCommandBuffer returned " << end << " for a command buffer whose fill could not be recorded";

  // A reset clears the error: a valid recording afterwards ends fine and runs.
  ASSERT_EQ(vkResetCommandBuffer(cb, 0), VK_SUCCESS);
  ASSERT_EQ(vkBeginCommandBuffer(cb, &begin), VK_SUCCESS);
  ByteModel model = CanaryModel(dst, 4096);
  vkCmdFillBuffer(cb, dst.buffer, 8, 64, 0x44332211u);
  model.Fill(8, 64, 0x44332211u);
  rig.HostReadBarrier(cb);
  ASSERT_EQ(rig.Submit(cb), VK_SUCCESS);
  EXPECT_TRUE(SameBytes(dst.mapped, model.data(), 4096));
  rig.Finish();
  EXPECT_VALIDATION_SILENT(rig.h());
}

TEST_P(TransferStaging, UnalignedUpdateWithoutStagingFailsEndCommandBuffer) {
  Rig rig(GetParam(), NoStaging());
  ASSERT_TRUE(rig.ok()) << rig.error();
  ExpectSettingKnown(rig.h());
  HostBuffer dst = rig.Buffer(4096);
  const std::vector<uint8_t> data = RandomBytes(33, 3);
  VkCommandBuffer cb = rig.h().BeginCommands();
  vkCmdUpdateBuffer(cb, dst.buffer, 3, data.size(), data.data());  // captured into staging
  const VkResult end = vkEndCommandBuffer(cb);
  EXPECT_TRUE(end == VK_ERROR_OUT_OF_DEVICE_MEMORY || end == VK_ERROR_OUT_OF_HOST_MEMORY)
      << "vkEndCommandBuffer returned " << end << " for a command buffer whose update was dropped";
  vkFreeCommandBuffers(rig.h().device(), rig.h().command_pool(), 1, &cb);
  rig.Finish();
  EXPECT_VALIDATION_SILENT(rig.h());
}

TEST_P(TransferStaging, AlignedUpdateAbove64KiBNeedsNoStaging) {
  const Config& config = GetParam();
  Rig rig(config, NoStaging());
  ASSERT_TRUE(rig.ok()) << rig.error();
  ExpectSettingKnown(rig.h());
  constexpr uint64_t kBytes = 256 << 10;
  constexpr uint64_t kUpdate = 200 << 10;
  auto [dst, model] = rig.Canary(kBytes);
  std::vector<uint8_t> data = RandomBytes(kUpdate, 4);
  VkCommandBuffer cb = rig.h().BeginCommands();
  vkCmdUpdateBuffer(cb, dst.buffer, 4096, kUpdate, data.data());
  model.Update(4096, data.data(), kUpdate);
  std::memset(data.data(), 0x99, data.size());  // the update's data is taken at record time
  rig.TransferHostReadBarrier(cb);
  ASSERT_EQ(rig.h().SubmitAndWait(cb), VK_SUCCESS);
  EXPECT_TRUE(SameBytes(dst.mapped, model.data(), kBytes));
  const Summary summary = rig.Finish();
  EXPECT_VALIDATION_SILENT(rig.h());
  EXPECT_EQ(summary.edge_copies, 0u) << "an aligned update went through staging: " << summary.text;
}

// Records `count` unaligned 3001-byte updates (each captured whole into staging) into
// disjoint slots of `dst`; `model` follows.
void RecordStagedUpdates(VkCommandBuffer cb, HostBuffer& dst, ByteModel& model, uint32_t count, uint32_t seed) {
  constexpr uint64_t kSlot = 3008, kSize = 3001;
  const std::vector<uint8_t> data = RandomBytes(kSize, seed);
  for (uint32_t i = 0; i < count; ++i) {
    vkCmdUpdateBuffer(cb, dst.buffer, i * kSlot + 1, kSize, data.data());
    model.Update(i * kSlot + 1, data.data(), kSize);
  }
}

size_t Count(uint32_t kind) { return SpyEventsOf(kind).size(); }

TEST(TransferStagingPool, StagingComesFromFewBlocks) {
  RigOptions options;
  options.layers_between = {kSpyLayerName};
  Rig rig(kForceNative, options);
  ASSERT_TRUE(rig.ok()) << rig.error();
  VkHarness& h = rig.h();
  constexpr uint32_t kUpdates = 2000;  // ~6 MB of staging
  constexpr uint64_t kBytes = uint64_t{kUpdates} * 3008;
  auto [dst, model] = rig.Canary(kBytes);
  SpyClearEvents();

  VkCommandBuffer cb = h.BeginCommands();  // freed by SubmitAndWait
  RecordStagedUpdates(cb, dst, model, kUpdates, 1);
  Rig::TransferHostReadBarrier(cb);
  ASSERT_EQ(h.SubmitAndWait(cb), VK_SUCCESS);
  EXPECT_TRUE(SameBytes(dst.mapped, model.data(), kBytes));
  EXPECT_EQ(Count(kSpyAllocateMemory), 2u) << "~6 MB of staging should take two 4 MiB blocks";
  EXPECT_EQ(Count(kSpyFreeMemory), 1u) << "freeing the command buffer should keep one spare block";

  // The next recording reuses the spare block: no allocation.
  SpyClearEvents();
  cb = h.BeginCommands();
  RecordStagedUpdates(cb, dst, model, 100, 2);
  Rig::TransferHostReadBarrier(cb);
  ASSERT_EQ(h.SubmitAndWait(cb), VK_SUCCESS);
  EXPECT_TRUE(SameBytes(dst.mapped, model.data(), kBytes));
  EXPECT_EQ(Count(kSpyAllocateMemory), 0u);
  rig.Finish();
  EXPECT_VALIDATION_SILENT(h);
}

INSTANTIATE_TEST_SUITE_P(Transfer, TransferStaging, ::testing::Values(kForceNative, kForceCompute, kAuto), ConfigName);

}  // namespace
}  // namespace bindery::test::transfer
