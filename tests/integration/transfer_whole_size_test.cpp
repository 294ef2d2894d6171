// vkCmdFillBuffer with VK_WHOLE_SIZE keeps its core meaning where the call is valid
// without the layer (docs/transfers.md, "The transparency rule"): from a 4-byte
// aligned offset the size is rounded down to a multiple of 4, so the last 1-3 bytes of a
// buffer whose remaining size is not a multiple of 4 stay untouched. Only a call that is
// invalid natively (unaligned offset), or a device that enabled
// VK_BINDERY_transfer_any_alignment, fills to the last byte.
//
// Buffers of 1027 bytes (the small, staged path) and 1 MiB + 3 (native or kernel
// middle), offsets 0 and 8 (aligned) and 1 (unaligned), under every configuration.
#include <cstring>

#include "integration/transfer_model.h"

namespace bindery::test::transfer {
namespace {

constexpr uint64_t kSizes[] = {1027, (1 << 20) + 3};
constexpr uint32_t kPattern = 0x44332211u;

// Records one WHOLE_SIZE fill per buffer size at `offset` and compares with `reach`:
// the model fills [offset, reach(size)).
template <typename Reach>
void FillWholeSize(Rig& rig, uint64_t offset, Reach&& reach) {
  for (uint64_t size : kSizes) {
    SCOPED_TRACE("buffer of " + std::to_string(size) + " bytes, offset " + std::to_string(offset));
    auto [dst, model] = rig.Canary(size);
    model.Fill(offset, reach(size) - offset, kPattern);
    VkCommandBuffer cb = rig.h().BeginCommands();
    vkCmdFillBuffer(cb, dst.buffer, offset, VK_WHOLE_SIZE, kPattern);
    rig.HostReadBarrier(cb);
    ASSERT_EQ(rig.h().SubmitAndWait(cb), VK_SUCCESS);
    EXPECT_TRUE(SameBytes(dst.mapped, model.data(), size, [&](uint64_t b) {
      return b >= reach(size) ? std::string("past the fill's core size") : std::string("inside the fill");
    }));
  }
}

uint64_t RoundedDown(uint64_t offset, uint64_t size) { return offset + ((size - offset) & ~uint64_t{3}); }

class TransferWholeSize : public ::testing::TestWithParam<Config> {};

TEST_P(TransferWholeSize, AlignedOffsetRoundsDownLikeCoreVulkan) {
  const Config& config = GetParam();
  Rig rig(config);
  ASSERT_TRUE(rig.ok()) << rig.error();
  for (uint64_t offset : {uint64_t{0}, uint64_t{8}}) {
    FillWholeSize(rig, offset, [&](uint64_t size) { return RoundedDown(offset, size); });
  }
  rig.Finish();
  EXPECT_VALIDATION_SILENT(rig.h());
}

TEST_P(TransferWholeSize, UnalignedOffsetFillsToTheLastByte) {
  const Config& config = GetParam();
  if (config.NativeOnly()) GTEST_SKIP() << "an unaligned fill is not valid without the layer";
  Rig rig(config);
  ASSERT_TRUE(rig.ok()) << rig.error();
  FillWholeSize(rig, 1, [](uint64_t size) { return size; });
  rig.Finish();
  EXPECT_VALIDATION_SILENT(rig.h());
}

TEST_P(TransferWholeSize, WithTheExtensionAlignedOffsetFillsToTheLastByte) {
  const Config& config = GetParam();
  if (config.NativeOnly()) GTEST_SKIP() << "the extension exists only with the layer's transfers on";
  Rig rig(config, UINT32_MAX, {VK_BINDERY_TRANSFER_ANY_ALIGNMENT_EXTENSION_NAME});
  ASSERT_TRUE(rig.ok()) << rig.error();
  for (uint64_t offset : {uint64_t{0}, uint64_t{8}}) {
    FillWholeSize(rig, offset, [](uint64_t size) { return size; });
  }
  rig.Finish();
  EXPECT_VALIDATION_SILENT(rig.h());
}

INSTANTIATE_TEST_SUITE_P(Transfer, TransferWholeSize,
                         ::testing::Values(kLayerOff, kTransfersOff, kForceNative, kForceCompute, kAuto), ConfigName);

}  // namespace
}  // namespace bindery::test::transfer
