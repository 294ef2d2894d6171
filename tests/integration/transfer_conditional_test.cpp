// A copy recorded inside the application's conditional-rendering block still happens
// when the layer runs it as a compute kernel (dispatches obey conditional rendering,
// copies do not), and the block is active again afterwards: the application's own
// dispatch inside it is still discarded.
#include <cstring>

#include "integration/transfer_model.h"
#include "integration/scale_add_kernel.h"

namespace bindery::test::transfer {
namespace {

class TransferConditionalRendering : public ::testing::TestWithParam<Config> {};

TEST_P(TransferConditionalRendering, CopyKernelRunsAndTheBlockResumes) {
  const Config& config = GetParam();
  Rig rig(config, UINT32_MAX, {VK_EXT_CONDITIONAL_RENDERING_EXTENSION_NAME});
  ASSERT_TRUE(rig.ok()) << rig.error();
  VkHarness& h = rig.h();
  constexpr uint64_t kBytes = 256 * 1024 + 5;
  constexpr uint32_t kElements = 1024;
  HostBuffer src = rig.Buffer(kBytes + 8);
  HostBuffer dst = rig.Buffer(kBytes + 8);
  HostBuffer predicate = rig.Buffer(4, VK_BUFFER_USAGE_CONDITIONAL_RENDERING_BIT_EXT);
  HostBuffer in = rig.Buffer(kElements * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  HostBuffer out = rig.Buffer(kElements * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  const std::vector<uint8_t> bytes = RandomBytes(kBytes + 8, 7);
  std::memcpy(src.mapped, bytes.data(), bytes.size());
  WriteCanary(dst.mapped, kBytes + 8);
  std::memset(predicate.mapped, 0, 4);  // zero: commands inside the block are discarded
  std::memset(in.mapped, 1, kElements * 4);
  std::memset(out.mapped, 0xAB, kElements * 4);

  ScaleAddKernel k = CreateScaleAdd(h, in.buffer, out.buffer);
  ASSERT_NE(k.set, VK_NULL_HANDLE);
  auto begin_conditional = reinterpret_cast<PFN_vkCmdBeginConditionalRenderingEXT>(
      vkGetDeviceProcAddr(h.device(), "vkCmdBeginConditionalRenderingEXT"));
  auto end_conditional = reinterpret_cast<PFN_vkCmdEndConditionalRenderingEXT>(
      vkGetDeviceProcAddr(h.device(), "vkCmdEndConditionalRenderingEXT"));
  ASSERT_NE(begin_conditional, nullptr);

  VkCommandBuffer cb = rig.Allocate();
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  ASSERT_EQ(vkBeginCommandBuffer(cb, &begin), VK_SUCCESS);
  const uint32_t params[3] = {5, 9, kElements};
  BindScaleAdd(cb, k, params);
  VkConditionalRenderingBeginInfoEXT cond{VK_STRUCTURE_TYPE_CONDITIONAL_RENDERING_BEGIN_INFO_EXT};
  cond.buffer = predicate.buffer;
  begin_conditional(cb, &cond);
  const VkBufferCopy region{1, 3, kBytes};
  vkCmdCopyBuffer(cb, src.buffer, dst.buffer, 1, &region);
  vkCmdDispatch(cb, kElements / 64, 1, 1);  // discarded by the predicate
  end_conditional(cb);
  rig.HostReadBarrier(cb);
  ASSERT_EQ(rig.Submit(cb), VK_SUCCESS);

  ByteModel model(kBytes + 8);
  model.Copy(bytes.data(), 1, 3, kBytes);
  EXPECT_TRUE(SameBytes(dst.mapped, model.data(), kBytes + 8));
  for (uint32_t i = 0; i < kElements; ++i) {
    ASSERT_EQ(static_cast<uint32_t*>(out.mapped)[i], 0xABABABABu) << "the dispatch inside the block ran, element " << i;
  }
  h.Destroy(k.kernel);
  const Summary summary = rig.Finish();
  if (config.Is("force", "compute")) {
    EXPECT_GT(summary.kernels, 0u) << summary.text;
  }
  EXPECT_VALIDATION_SILENT(h);
}

INSTANTIATE_TEST_SUITE_P(Transfer, TransferConditionalRendering, ::testing::Values(kLayerOff, kForceCompute, kAuto),
                         ConfigName);

}  // namespace
}  // namespace bindery::test::transfer
