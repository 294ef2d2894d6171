// Small unaligned fills and updates recorded back to back are coalesced where the policy
// says so (the compute strategy here; NVIDIA under auto): queued, then written by one
// batched dispatch at the next flush point (transfer/small_writes.h). Whatever the
// strategy, the bytes must be exactly the model's:
//
// - ManyBackToBackThenBarrier: 600 fills and updates at every byte phase (disjoint: writes
//   to the same bytes without a barrier between them are a hazard validation reports),
//   then the host-read barrier.
// - FlushedAtEnd: no barrier after the writes, only vkEndCommandBuffer (which must flush).
// - FlushedBeforeOtherTransfers: a native copy reading bytes the queued writes produced,
//   after a barrier, and an aligned fill over part of them with no barrier (another
//   transfer command keeps its place after the queued writes).
#include <cstring>
#include <random>

#include "integration/transfer_model.h"
#include "support/vk_objects.h"

namespace bindery::test::transfer {
namespace {

class TransferSmallWrites : public ::testing::TestWithParam<Config> {};

constexpr uint64_t kBytes = 96 * 1024;

// Transfer writes -> transfer reads/writes, as an application orders a copy after fills.
void TransferBarrier(VkCommandBuffer cb) {
  RecordMemoryBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                      VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
}

// Records `count` small unaligned fills and updates into cb and the model, back to back
// below `limit` (disjoint): sizes 1..201, offsets at every phase.
void RecordSmallWrites(VkCommandBuffer cb, VkBuffer dst, ByteModel& model, uint32_t count, uint32_t seed,
                       uint64_t limit) {
  std::mt19937 rng(seed);
  const std::vector<uint8_t> source = RandomBytes(256, seed + 1);
  uint64_t at = 1;
  for (uint32_t i = 0; i < count; ++i) {
    uint64_t size = 1 + rng() % 200;
    if (size % 4 == 0) ++size;  // never a native-aligned command
    const uint64_t offset = at;
    if (offset + size > limit) break;
    at = offset + size + rng() % 9;
    if (rng() % 2 == 0) {
      const uint32_t pattern = 0xA0B0C0D0u ^ static_cast<uint32_t>(i * 0x01010101u);
      vkCmdFillBuffer(cb, dst, offset, size, pattern);
      model.Fill(offset, size, pattern);
    } else {
      vkCmdUpdateBuffer(cb, dst, offset, size, source.data());
      model.Update(offset, source.data(), size);
    }
  }
}

TEST_P(TransferSmallWrites, ManyBackToBackThenBarrier) {
  Rig rig(GetParam());
  ASSERT_TRUE(rig.ok()) << rig.error();
  auto [dst, model] = rig.Canary(kBytes);
  VkCommandBuffer cb = rig.h().BeginCommands();
  RecordSmallWrites(cb, dst.buffer, model, 600, 7, kBytes - 256);
  rig.HostReadBarrier(cb);
  ASSERT_EQ(rig.h().SubmitAndWait(cb), VK_SUCCESS);
  EXPECT_TRUE(SameBytes(dst.mapped, model.data(), kBytes));
  const Summary summary = rig.Finish();
  if (GetParam().Is("force", "compute")) {
    // 600 writes, at most 512 per dispatch.
    EXPECT_GT(summary.kernels, 0u) << summary.text;
    EXPECT_LE(summary.kernels, 3u) << "small writes were not coalesced: " << summary.text;
  }
  EXPECT_VALIDATION_SILENT(rig.h());
}

TEST_P(TransferSmallWrites, FlushedAtEnd) {
  Rig rig(GetParam());
  ASSERT_TRUE(rig.ok()) << rig.error();
  auto [dst, model] = rig.Canary(kBytes);
  VkCommandBuffer cb = rig.Allocate();
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  ASSERT_EQ(vkBeginCommandBuffer(cb, &begin), VK_SUCCESS);
  RecordSmallWrites(cb, dst.buffer, model, 40, 11, kBytes - 256);
  // No barrier: the submission's fence orders the writes before the host reads them.
  ASSERT_EQ(rig.Submit(cb), VK_SUCCESS);
  EXPECT_TRUE(SameBytes(dst.mapped, model.data(), kBytes));
  rig.Finish();
  EXPECT_VALIDATION_SILENT(rig.h());
}

TEST_P(TransferSmallWrites, FlushedBeforeOtherTransfers) {
  Rig rig(GetParam());
  ASSERT_TRUE(rig.ok()) << rig.error();
  auto [dst, model] = rig.Canary(kBytes);
  VkCommandBuffer cb = rig.h().BeginCommands();
  RecordSmallWrites(cb, dst.buffer, model, 100, 13, 8192);
  TransferBarrier(cb);
  // Copy the first 8 KiB the writes produced to the second half of the buffer.
  const VkBufferCopy copy{0, kBytes / 2, 8192};
  vkCmdCopyBuffer(cb, dst.buffer, dst.buffer, 1, &copy);
  std::vector<uint8_t> produced(model.data(), model.data() + 8192);
  model.Copy(produced.data(), 0, kBytes / 2, 8192);
  TransferBarrier(cb);
  // More small writes, then the same region written by a native fill after a barrier.
  RecordSmallWrites(cb, dst.buffer, model, 50, 17, 4096);
  TransferBarrier(cb);
  vkCmdFillBuffer(cb, dst.buffer, 1024, 512, 0x11223344u);
  model.Fill(1024, 512, 0x11223344u);
  rig.HostReadBarrier(cb);
  ASSERT_EQ(rig.h().SubmitAndWait(cb), VK_SUCCESS);
  EXPECT_TRUE(SameBytes(dst.mapped, model.data(), kBytes));
  rig.Finish();
  EXPECT_VALIDATION_SILENT(rig.h());
}

// Unaligned commands are only valid with the layer's transfers on.
INSTANTIATE_TEST_SUITE_P(Transfer, TransferSmallWrites, ::testing::Values(kForceNative, kForceCompute, kAuto),
                         ConfigName);

}  // namespace
}  // namespace bindery::test::transfer
