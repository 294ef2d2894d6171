// Command-buffer lifetimes the layer's per-command-buffer state must follow (docs/transfers.md,
// part 6):
//
// - ResetCommandPoolForgetsTheRecording: a command buffer binds the application's compute
//   pipeline, pushes constants and records staged polyfills; vkResetCommandPool (with and
//   without RELEASE_RESOURCES); the pipeline is destroyed; the command buffer is recorded
//   again with kernels and no pipeline. If the layer still remembered the old recording
//   it would rebind a destroyed pipeline after its kernels.
// - HandleReusedAfterFree / HandleReusedAfterPoolDestroyed: the same, but the command
//   buffer is freed (or its pool destroyed) and a new one allocated, which drivers often
//   give the same handle value.
#include <cstring>

#include "integration/kernel_probe.h"
#include "scale_add_comp.h"

namespace bindery::test::transfer {
namespace {

constexpr uint64_t kStaged = 8192;

// The application's state a kernel must put back, in a pipeline that is destroyed after
// the recording that used it is gone.
void RecordAppState(VkCommandBuffer cb, const ComputeKernel& k, VkBuffer staged) {
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  ASSERT_EQ(vkBeginCommandBuffer(cb, &begin), VK_SUCCESS);
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.pipeline);
  const uint32_t params[3] = {1, 2, 3};
  vkCmdPushConstants(cb, k.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(params), params);
  vkCmdFillBuffer(cb, staged, 1, 101, 0x11223344u);  // staged edges
  const uint8_t bytes[7] = {1, 2, 3, 4, 5, 6, 7};
  vkCmdUpdateBuffer(cb, staged, 203, sizeof(bytes), bytes);  // staged update
  ASSERT_EQ(vkEndCommandBuffer(cb), VK_SUCCESS);
}

// The second recording: kernels (and staged edges) with no pipeline of the application's.
void RecordAndCheckKernels(Rig& rig, VkCommandBuffer cb, HostBuffer staged) {
  KernelCopyProbe probe(rig, 31);
  ByteModel model = CanaryModel(staged, kStaged);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  ASSERT_EQ(vkBeginCommandBuffer(cb, &begin), VK_SUCCESS);
  probe.Record(cb);
  vkCmdFillBuffer(cb, staged.buffer, 2, 5000, 0xA5A5A5A5u);
  model.Fill(2, 5000, 0xA5A5A5A5u);
  rig.HostReadBarrier(cb);
  ASSERT_EQ(rig.Submit(cb), VK_SUCCESS);
  EXPECT_TRUE(probe.Check()) << "the copy";
  EXPECT_TRUE(SameBytes(staged.mapped, model.data(), kStaged)) << "the fill";
}

void Finish(Rig& rig, const Config& config) {
  const Summary summary = rig.Finish();
  EXPECT_VALIDATION_SILENT(rig.h());
  ExpectStrategyRan(config, summary, rig.compute_queue(), true, true);
}

// A command pool of the device's queue family of its own, and in *cbai the allocate info
// of one primary command buffer from it.
VkResult CreatePool(const VkHarness& h, VkCommandBufferAllocateInfo* cbai) {
  VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pci.queueFamilyIndex = h.queue_family();
  *cbai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cbai->level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cbai->commandBufferCount = 1;
  return vkCreateCommandPool(h.device(), &pci, nullptr, &cbai->commandPool);
}

// The start both tests share: the rig, the staged buffer and a command pool of their own
// (each test then ends the pool its own way: reset, free or destroy).
struct OwnPoolStart {
  explicit OwnPoolStart(const Config& config) : rig(config) {}
  // Makes the staged buffer and the pool; a failure says why.
  ::testing::AssertionResult Start() {
    if (!rig.ok()) return ::testing::AssertionFailure() << rig.error();
    staged = rig.Buffer(kStaged);
    const VkResult created = CreatePool(rig.h(), &cbai);
    if (created != VK_SUCCESS) return ::testing::AssertionFailure() << "vkCreateCommandPool: " << created;
    return ::testing::AssertionSuccess();
  }
  Rig rig;
  HostBuffer staged;
  VkCommandBufferAllocateInfo cbai{};
};

class TransferLifetime : public ::testing::TestWithParam<Config> {};

TEST_P(TransferLifetime, ResetCommandPoolForgetsTheRecording) {
  const Config& config = GetParam();
  OwnPoolStart start(config);
  ASSERT_TRUE(start.Start());
  Rig& rig = start.rig;
  VkHarness& h = rig.h();
  VkCommandPool pool = start.cbai.commandPool;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  ASSERT_EQ(vkAllocateCommandBuffers(h.device(), &start.cbai, &cb), VK_SUCCESS);
  for (VkCommandPoolResetFlags flags : {VkCommandPoolResetFlags{0}, VkCommandPoolResetFlags{
                                                                        VK_COMMAND_POOL_RESET_RELEASE_RESOURCES_BIT}}) {
    SCOPED_TRACE("reset flags " + std::to_string(flags));
    ComputeKernel k = h.CreateKernel(scale_add_comp, sizeof(scale_add_comp), 2, 12);
    RecordAppState(cb, k, start.staged.buffer);
    ASSERT_EQ(vkResetCommandPool(h.device(), pool, flags), VK_SUCCESS);
    h.Destroy(k);
    RecordAndCheckKernels(rig, cb, start.staged);
    ASSERT_EQ(vkResetCommandPool(h.device(), pool, 0), VK_SUCCESS);
  }
  vkDestroyCommandPool(h.device(), pool, nullptr);
  Finish(rig, config);
}

// `free_only`: frees the command buffer (false: destroys its whole pool).
void RunHandleReuse(const Config& config, bool free_only) {
  OwnPoolStart start(config);
  ASSERT_TRUE(start.Start());
  Rig& rig = start.rig;
  VkHarness& h = rig.h();
  VkCommandPool pool = start.cbai.commandPool;
  int reused = 0;
  for (int round = 0; round < 3; ++round) {
    VkCommandBuffer old_cb = VK_NULL_HANDLE;
    ASSERT_EQ(vkAllocateCommandBuffers(h.device(), &start.cbai, &old_cb), VK_SUCCESS);
    ComputeKernel k = h.CreateKernel(scale_add_comp, sizeof(scale_add_comp), 2, 12);
    RecordAppState(old_cb, k, start.staged.buffer);
    if (free_only) {
      vkFreeCommandBuffers(h.device(), pool, 1, &old_cb);
    } else {
      vkDestroyCommandPool(h.device(), pool, nullptr);
      ASSERT_EQ(CreatePool(h, &start.cbai), VK_SUCCESS);
      pool = start.cbai.commandPool;
    }
    h.Destroy(k);
    VkCommandBuffer cb = VK_NULL_HANDLE;
    ASSERT_EQ(vkAllocateCommandBuffers(h.device(), &start.cbai, &cb), VK_SUCCESS);
    reused += cb == old_cb ? 1 : 0;
    RecordAndCheckKernels(rig, cb, start.staged);
    vkFreeCommandBuffers(h.device(), pool, 1, &cb);
  }
  std::printf("[ transfer ] %s: the driver reused the freed handle in %d of 3 rounds\n", config.name, reused);
  vkDestroyCommandPool(h.device(), pool, nullptr);
  Finish(rig, config);
}

TEST_P(TransferLifetime, HandleReusedAfterFree) { RunHandleReuse(GetParam(), true); }

TEST_P(TransferLifetime, HandleReusedAfterPoolDestroyed) { RunHandleReuse(GetParam(), false); }

// Polyfills are recorded in every test here: only configurations with the layer's
// transfers on.
INSTANTIATE_TEST_SUITE_P(Transfer, TransferLifetime, ::testing::Values(kForceNative, kForceCompute, kAuto), ConfigName);

}  // namespace
}  // namespace bindery::test::transfer
