// A polyfill kernel leaves the application's compute state alone: the app binds its
// pipeline (tests/shaders/scale_add.comp), descriptor set and push constants, records an
// unaligned copy (its result is the dispatch's input) and an unaligned fill, with the
// barriers an application needs around transfers, then dispatches without binding
// anything again. The dispatch must have used the app's pipeline, set and push
// constants: its output equals the CPU model. Under ForceCompute the summary must show
// kernels ran, so the test cannot pass through the native path.
#include <cstring>

#include "integration/transfer_model.h"
#include "integration/scale_add_kernel.h"
#include "support/vk_objects.h"

namespace bindery::test::transfer {
namespace {

constexpr uint32_t kCount = 65536 + 17;  // elements; not a multiple of the workgroup size
constexpr uint64_t kInBytes = uint64_t{kCount} * 4;

class TransferStateRestore : public ::testing::TestWithParam<Config> {};

TEST_P(TransferStateRestore, DispatchAfterPolyfillUsesTheAppsPipelineSetAndPushConstants) {
  const Config& config = GetParam();
  Rig rig(config);
  ASSERT_TRUE(rig.ok()) << rig.error();
  VkHarness& h = rig.h();
  HostBuffer src = rig.Buffer(kInBytes + 16);
  HostBuffer in = rig.Buffer(kInBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  HostBuffer out = rig.Buffer(kInBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  const uint64_t kScratch = (1 << 20) + 64;
  HostBuffer scratch = rig.Buffer(kScratch);

  const std::vector<uint8_t> src_bytes = RandomBytes(kInBytes + 16, 42);
  std::memcpy(src.mapped, src_bytes.data(), src_bytes.size());
  ByteModel in_model(kInBytes);
  for (uint32_t i = 0; i < kCount; ++i) std::memcpy(in_model.data() + 4 * i, &i, 4);  // before the copy
  std::memcpy(in.mapped, in_model.data(), kInBytes);
  std::memset(out.mapped, 0xAB, kInBytes);
  WriteCanary(scratch.mapped, kScratch);
  ByteModel scratch_model(kScratch);

  ScaleAddKernel k = CreateScaleAdd(h, in.buffer, out.buffer);
  ASSERT_NE(k.set, VK_NULL_HANDLE);

  VkCommandBuffer cb = h.BeginCommands();
  const uint32_t params[3] = {3, 0x5a5a, kCount};
  BindScaleAdd(cb, k, params);

  // The dispatch's input: src + 1 -> in + 3, ending 2 bytes before the end of `in`.
  const VkBufferCopy region{1, 3, kInBytes - 5};
  vkCmdCopyBuffer(cb, src.buffer, in.buffer, 1, &region);
  in_model.Copy(src_bytes.data(), region.srcOffset, region.dstOffset, region.size);
  // Unrelated to the dispatch, but another kernel between the binds and the dispatch.
  if (!config.NativeOnly()) {
    vkCmdFillBuffer(cb, scratch.buffer, 1, (1 << 20) + 2, 0x44332211u);
    scratch_model.Fill(1, (1 << 20) + 2, 0x44332211u);
  }
  RecordMemoryBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
  vkCmdDispatch(cb, (kCount + 63) / 64, 1, 1);
  rig.HostReadBarrier(cb);
  ASSERT_EQ(h.SubmitAndWait(cb), VK_SUCCESS);

  EXPECT_TRUE(SameBytes(in.mapped, in_model.data(), kInBytes)) << "the copy";
  EXPECT_TRUE(SameBytes(scratch.mapped, scratch_model.data(), kScratch)) << "the fill";
  std::vector<uint32_t> want(kCount);
  for (uint32_t i = 0; i < kCount; ++i) {
    uint32_t v;
    std::memcpy(&v, in_model.data() + 4 * i, 4);
    want[i] = v * params[0] + (i ^ params[1]);
  }
  EXPECT_TRUE(SameBytes(out.mapped, want.data(), kInBytes, [](uint64_t b) {
    return "element " + std::to_string(b / 4);
  })) << "the dispatch after the polyfills (wrong pipeline, descriptor set or push constants?)";

  h.Destroy(k.kernel);
  const Summary summary = rig.Finish();
  EXPECT_VALIDATION_SILENT(h);
  ExpectStrategyRan(config, summary, rig.compute_queue(), !config.NativeOnly(), true);
  if (config.Is("force", "compute")) {
    EXPECT_GE(summary.kernels, 2u) << "the copy and the fill should each have run a kernel between the app's binds "
                                      "and its dispatch: "
                                   << summary.text;
  }
}

INSTANTIATE_TEST_SUITE_P(Transfer, TransferStateRestore, ::testing::Values(kLayerOff, kForceCompute, kAuto),
                         ConfigName);

}  // namespace
}  // namespace bindery::test::transfer
