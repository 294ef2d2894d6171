// Transfers at any byte, large: fills and copies of 16 MiB + 3 bytes at odd offsets,
// an update of 200 KiB (above vkCmdUpdateBuffer's 65536-byte limit) at offset 5, and
// VK_WHOLE_SIZE fills from odd offsets in buffers whose size is not a multiple of 4
// (to the very end, not rounded down). Compared byte for byte with the CPU model, with
// canary bytes around every range; validation below the layer must stay silent.
#include <cstring>

#include "integration/transfer_model.h"

namespace bindery::test::transfer {
namespace {

constexpr uint64_t kBig = (16ull << 20) + 3;  // 16 MiB + 3 bytes
constexpr uint64_t kRegion = kBig + 125;     // room for an offset and canary bytes after

class TransferLarge : public ::testing::TestWithParam<Config> {};

TEST_P(TransferLarge, Fill16MiBPlus3AtOffsets1And3) {
  const Config& config = GetParam();
  if (config.NativeOnly()) GTEST_SKIP() << "unaligned fills are invalid without the layer";
  Rig rig(config);
  ASSERT_TRUE(rig.ok()) << rig.error();
  const Summary summary = FillTwoAtOffsets1And3(rig, kBig, kRegion);
  ExpectStrategyRan(config, summary, rig.compute_queue(), true, true);
}

TEST_P(TransferLarge, Copy16MiBPlus3BetweenOffsets1And3) {
  const Config& config = GetParam();  // unaligned copies are valid Vulkan: every configuration
  Rig rig(config);
  ASSERT_TRUE(rig.ok()) << rig.error();
  const uint64_t bytes = 2 * kRegion;
  HostBuffer src = rig.Buffer(kRegion);
  HostBuffer dst = rig.Buffer(bytes);
  const std::vector<uint8_t> src_bytes = RandomContent(src, kRegion, 16);
  ByteModel model = CanaryModel(dst, bytes);

  VkCommandBuffer cb = rig.h().BeginCommands();
  const VkBufferCopy region{1, 3, kBig};  // src + 1 -> dst + 3
  vkCmdCopyBuffer(cb, src.buffer, dst.buffer, 1, &region);
  model.Copy(src_bytes.data(), 1, 3, kBig);
  CopyBuffer2(cb, src.buffer, dst.buffer, {3, kRegion + 1, kBig});  // src + 3 -> dst + 1 (second half)
  model.Copy(src_bytes.data(), 3, kRegion + 1, kBig);
  rig.HostReadBarrier(cb);
  ASSERT_EQ(rig.h().SubmitAndWait(cb), VK_SUCCESS);
  EXPECT_TRUE(SameBytes(dst.mapped, model.data(), bytes));
  EXPECT_TRUE(SameBytes(src.mapped, src_bytes.data(), kRegion)) << "the source changed";
  const Summary summary = rig.Finish();
  EXPECT_VALIDATION_SILENT(rig.h());
  ExpectStrategyRan(config, summary, rig.compute_queue(), false, false);
}

TEST_P(TransferLarge, Update200KiBAtOffset5) {
  const Config& config = GetParam();
  if (config.NativeOnly()) GTEST_SKIP() << "updates above 65536 bytes are invalid without the layer";
  Rig rig(config);
  ASSERT_TRUE(rig.ok()) << rig.error();
  constexpr uint64_t kSize = 200 * 1024;
  const uint64_t bytes = kSize + 64;
  auto [dst, model] = rig.Canary(bytes);
  const std::vector<uint8_t> data = RandomBytes(kSize, 200);
  std::vector<uint8_t> host = data;

  VkCommandBuffer cb = rig.h().BeginCommands();
  vkCmdUpdateBuffer(cb, dst.buffer, 5, kSize, host.data());
  model.Update(5, data.data(), kSize);
  rig.HostReadBarrier(cb);
  std::memset(host.data(), 0x99, host.size());  // the layer must have taken the data at record time
  ASSERT_EQ(rig.h().SubmitAndWait(cb), VK_SUCCESS);
  EXPECT_TRUE(SameBytes(dst.mapped, model.data(), bytes));
  const Summary summary = rig.Finish();
  EXPECT_VALIDATION_SILENT(rig.h());
  ExpectStrategyRan(config, summary, rig.compute_queue(), true, true);
}

TEST_P(TransferLarge, WholeSizeFillReachesTheLastByte) {
  const Config& config = GetParam();
  if (config.NativeOnly()) GTEST_SKIP() << "VK_WHOLE_SIZE rounds down without the layer";
  Rig rig(config);
  ASSERT_TRUE(rig.ok()) << rig.error();
  struct Case {
    uint64_t buffer_size, offset;
    uint32_t data;
  };
  const Case cases[] = {
      {4099, 7, 0x44332211u},               // odd offset, size % 4 == 3
      {(1ull << 20) + 1, 3, 0x5AC35AC3u},   // 1 MiB + 1 from offset 3
      {(4ull << 20) + 2, 4, 0xA5A5A5A5u},   // aligned offset: valid natively, so core rounding (4d)
      {6, 5, 0x44332211u},                  // one byte
      {kBig, 1, 0x44332211u},               // 16 MiB + 3 from offset 1
  };
  std::vector<HostBuffer> buffers;
  std::vector<ByteModel> models;
  VkCommandBuffer cb = rig.h().BeginCommands();
  for (const Case& c : cases) {
    buffers.push_back(rig.Buffer(c.buffer_size));
    WriteCanary(buffers.back().mapped, c.buffer_size);
    models.emplace_back(c.buffer_size);
    vkCmdFillBuffer(cb, buffers.back().buffer, c.offset, VK_WHOLE_SIZE, c.data);
    // From an aligned offset the call is valid without the layer and keeps its core
    // meaning: rounded down to whole words (TransferWholeSize covers that rule fully).
    const uint64_t reach = c.offset % 4 == 0 ? (c.buffer_size - c.offset) & ~uint64_t{3} : c.buffer_size - c.offset;
    models.back().Fill(c.offset, reach, c.data);
  }
  rig.HostReadBarrier(cb);
  ASSERT_EQ(rig.h().SubmitAndWait(cb), VK_SUCCESS);
  for (size_t i = 0; i < buffers.size(); ++i) {
    EXPECT_TRUE(SameBytes(buffers[i].mapped, models[i].data(), cases[i].buffer_size))
        << "buffer of " << cases[i].buffer_size << " bytes filled from offset " << cases[i].offset;
  }
  const Summary summary = rig.Finish();
  EXPECT_VALIDATION_SILENT(rig.h());
  ExpectStrategyRan(config, summary, rig.compute_queue(), true, true);
}

INSTANTIATE_TEST_SUITE_P(Transfer, TransferLarge,
                         ::testing::Values(kLayerOff, kTransfersOff, kForceNative, kForceCompute, kAuto), ConfigName);

}  // namespace
}  // namespace bindery::test::transfer
