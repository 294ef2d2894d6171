// One vkCmdCopyBuffer with many small regions at every byte phase, packed so that
// neighbouring regions share destination words: the batched-regions kernel must write
// exactly each region's bytes (atomics on shared words), byte for byte like the model.
#include <cstring>
#include <random>

#include "integration/transfer_model.h"

namespace bindery::test::transfer {
namespace {

class TransferBatch : public ::testing::TestWithParam<Config> {};

TEST_P(TransferBatch, ManySmallAdjacentRegionsInOneCall) {
  const Config& config = GetParam();
  Rig rig(config);
  ASSERT_TRUE(rig.ok()) << rig.error();
  constexpr uint64_t kBytes = 64 * 1024;
  auto [src, dst, bytes, model] = rig.Copy(kBytes, 99);

  // Destination ranges back to back (with an occasional gap), sizes 1..40, sources from
  // random offsets; regions do not overlap in the destination, as Vulkan requires.
  std::mt19937 rng(5);
  std::vector<VkBufferCopy> regions;
  for (uint64_t at = 1; regions.size() < 600;) {
    const uint64_t size = 1 + rng() % 40;
    const uint64_t src_offset = rng() % (kBytes - 64);
    regions.push_back({src_offset, at, size});
    model.Copy(bytes.data(), src_offset, at, size);
    at += size + (rng() % 5 == 0 ? rng() % 7 : 0);
  }
  VkCommandBuffer cb = rig.h().BeginCommands();
  vkCmdCopyBuffer(cb, src.buffer, dst.buffer, static_cast<uint32_t>(regions.size()), regions.data());
  rig.HostReadBarrier(cb);
  ASSERT_EQ(rig.h().SubmitAndWait(cb), VK_SUCCESS);
  EXPECT_TRUE(SameBytes(dst.mapped, model.data(), kBytes));
  const Summary summary = rig.Finish();
  if (config.Is("force", "compute")) {
    EXPECT_EQ(summary.kernels, 1u) << "one dispatch for the whole batch: " << summary.text;
  }
  EXPECT_VALIDATION_SILENT(rig.h());
}

INSTANTIATE_TEST_SUITE_P(Transfer, TransferBatch, ::testing::Values(kLayerOff, kForceNative, kForceCompute, kAuto),
                         ConfigName);

}  // namespace
}  // namespace bindery::test::transfer
