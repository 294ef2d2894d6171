// The layer's kernels run in the compute stage, but the application synchronises its
// transfers with transfer-scoped dependencies only. The barriers the layer puts around
// its kernels must chain with every way an application can express those dependencies
// (docs/transfers.md, "When it falls back"), not only legacy vkCmdPipelineBarrier:
//
// - vkCmdPipelineBarrier2 with the synchronization2 stages COPY and CLEAR;
// - events: vkCmdSetEvent2/vkCmdWaitEvents2, and legacy vkCmdSetEvent/vkCmdWaitEvents;
// - a binary semaphore between two vkQueueSubmit2 batches, its stage masks COPY.
//
// Each test writes buffer A by transfers (an unaligned copy, and where the layer is on an
// unaligned fill: kernels under the compute strategy), makes those writes available to a
// second transfer reading A into B by the mechanism under test, and reads B on the host
// after a TRANSFER -> HOST dependency that names no compute stage. Synchronization
// validation below the layer must stay silent and the bytes must match the model.
#include <cstring>

#include "integration/transfer_model.h"

namespace bindery::test::transfer {
namespace {

constexpr uint64_t kBytes = 512 << 10;

// A -> B through two transfer steps; the models say what A and B must hold.
class TwoSteps {
 public:
  TwoSteps(Rig& rig, const Config& config)
      : native_only_(config.NativeOnly()),
        src_(rig.Buffer(kBytes)),
        a_(rig.Buffer(kBytes)),
        b_(rig.Buffer(kBytes)),
        a_model_(kBytes),
        b_model_(kBytes) {
    source_ = RandomBytes(kBytes, 21);
    std::memcpy(src_.mapped, source_.data(), kBytes);
    WriteCanary(a_.mapped, kBytes);
    WriteCanary(b_.mapped, kBytes);
  }

  // Writes A: an unaligned copy into its first half and, where the layer makes it
  // valid, an unaligned fill of its second half.
  void WriteA(VkCommandBuffer cb) {
    const VkBufferCopy region{1, 3, kBytes / 2 - 8};
    vkCmdCopyBuffer(cb, src_.buffer, a_.buffer, 1, &region);
    a_model_.Copy(source_.data(), region.srcOffset, region.dstOffset, region.size);
    if (!native_only_) {
      vkCmdFillBuffer(cb, a_.buffer, kBytes / 2 + 1, kBytes / 2 - 6, 0x5AC35AC3u);
      a_model_.Fill(kBytes / 2 + 1, kBytes / 2 - 6, 0x5AC35AC3u);
    }
  }

  // Reads all of A into B (shifted: an unaligned copy, a kernel under compute).
  void ReadAIntoB(VkCommandBuffer cb) {
    const VkBufferCopy region{0, 5, kBytes - 16};
    vkCmdCopyBuffer(cb, a_.buffer, b_.buffer, 1, &region);
    b_model_.Copy(a_model_.data(), region.srcOffset, region.dstOffset, region.size);
  }

  void Check() const {
    EXPECT_TRUE(SameBytes(a_.mapped, a_model_.data(), kBytes)) << "buffer A";
    EXPECT_TRUE(SameBytes(b_.mapped, b_model_.data(), kBytes)) << "buffer B";
  }

 private:
  bool native_only_;
  HostBuffer src_, a_, b_;
  ByteModel a_model_, b_model_;
  std::vector<uint8_t> source_;
};

VkMemoryBarrier2 TransferToTransfer() {
  VkMemoryBarrier2 barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
  barrier.srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT | VK_PIPELINE_STAGE_2_CLEAR_BIT;
  barrier.srcAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT;
  barrier.dstStageMask = VK_PIPELINE_STAGE_2_COPY_BIT;
  barrier.dstAccessMask = VK_ACCESS_2_TRANSFER_READ_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT;
  return barrier;
}

// COPY writes -> host reads, through vkCmdPipelineBarrier2.
void CopyToHost2(VkCommandBuffer cb) {
  VkMemoryBarrier2 barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
  barrier.srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT;
  barrier.srcAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT;
  barrier.dstStageMask = VK_PIPELINE_STAGE_2_HOST_BIT;
  barrier.dstAccessMask = VK_ACCESS_2_HOST_READ_BIT;
  VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
  dep.memoryBarrierCount = 1;
  dep.pMemoryBarriers = &barrier;
  vkCmdPipelineBarrier2(cb, &dep);
}

RigOptions Sync2() {
  static VkPhysicalDeviceVulkan13Features v13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  v13.synchronization2 = VK_TRUE;
  RigOptions options;
  options.device_pnext = &v13;
  return options;
}

void Finish(Rig& rig, const Config& config) {
  const Summary summary = rig.Finish();
  EXPECT_VALIDATION_SILENT(rig.h());
  ExpectStrategyRan(config, summary, rig.compute_queue(), !config.NativeOnly(), false);
  if (config.Is("force", "compute")) {
    EXPECT_GE(summary.kernels, 2u) << "both steps should have run kernels: " << summary.text;
  }
}

class TransferSync : public ::testing::TestWithParam<Config> {};

TEST_P(TransferSync, PipelineBarrier2ChainsWithKernels) {
  const Config& config = GetParam();
  Rig rig(config, Sync2());
  ASSERT_TRUE(rig.ok()) << rig.error();
  TwoSteps steps(rig, config);
  VkCommandBuffer cb = rig.h().BeginCommands();
  steps.WriteA(cb);
  const VkMemoryBarrier2 barrier = TransferToTransfer();
  VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
  dep.memoryBarrierCount = 1;
  dep.pMemoryBarriers = &barrier;
  vkCmdPipelineBarrier2(cb, &dep);
  steps.ReadAIntoB(cb);
  CopyToHost2(cb);
  ASSERT_EQ(rig.h().SubmitAndWait(cb), VK_SUCCESS);
  steps.Check();
  Finish(rig, config);
}

TEST_P(TransferSync, Events2ChainWithKernels) {
  const Config& config = GetParam();
  Rig rig(config, Sync2());
  ASSERT_TRUE(rig.ok()) << rig.error();
  VkHarness& h = rig.h();
  VkEventCreateInfo eci{VK_STRUCTURE_TYPE_EVENT_CREATE_INFO};
  eci.flags = VK_EVENT_CREATE_DEVICE_ONLY_BIT;
  VkEvent event = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateEvent(h.device(), &eci, nullptr, &event), VK_SUCCESS);
  TwoSteps steps(rig, config);
  VkCommandBuffer cb = h.BeginCommands();
  steps.WriteA(cb);
  const VkMemoryBarrier2 barrier = TransferToTransfer();
  VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
  dep.memoryBarrierCount = 1;
  dep.pMemoryBarriers = &barrier;
  vkCmdSetEvent2(cb, event, &dep);
  vkCmdWaitEvents2(cb, 1, &event, &dep);
  steps.ReadAIntoB(cb);
  CopyToHost2(cb);
  ASSERT_EQ(h.SubmitAndWait(cb), VK_SUCCESS);
  steps.Check();
  vkDestroyEvent(h.device(), event, nullptr);
  Finish(rig, config);
}

TEST_P(TransferSync, LegacyEventsChainWithKernels) {
  const Config& config = GetParam();
  Rig rig(config);
  ASSERT_TRUE(rig.ok()) << rig.error();
  VkHarness& h = rig.h();
  VkEventCreateInfo eci{VK_STRUCTURE_TYPE_EVENT_CREATE_INFO};
  VkEvent event = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateEvent(h.device(), &eci, nullptr, &event), VK_SUCCESS);
  TwoSteps steps(rig, config);
  VkCommandBuffer cb = h.BeginCommands();
  steps.WriteA(cb);
  vkCmdSetEvent(cb, event, VK_PIPELINE_STAGE_TRANSFER_BIT);
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  vkCmdWaitEvents(cb, 1, &event, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 1, &barrier, 0,
                  nullptr, 0, nullptr);
  steps.ReadAIntoB(cb);
  Rig::TransferHostReadBarrier(cb);
  ASSERT_EQ(h.SubmitAndWait(cb), VK_SUCCESS);
  steps.Check();
  vkDestroyEvent(h.device(), event, nullptr);
  Finish(rig, config);
}

TEST_P(TransferSync, SemaphoreBetweenSubmitsChainsWithKernels) {
  const Config& config = GetParam();
  Rig rig(config, Sync2());
  ASSERT_TRUE(rig.ok()) << rig.error();
  VkHarness& h = rig.h();
  VkSemaphoreCreateInfo sci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  VkSemaphore semaphore = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateSemaphore(h.device(), &sci, nullptr, &semaphore), VK_SUCCESS);
  TwoSteps steps(rig, config);
  VkCommandBuffer first = rig.Allocate(), second = rig.Allocate();
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  ASSERT_EQ(vkBeginCommandBuffer(first, &begin), VK_SUCCESS);
  steps.WriteA(first);
  ASSERT_EQ(vkEndCommandBuffer(first), VK_SUCCESS);
  ASSERT_EQ(vkBeginCommandBuffer(second, &begin), VK_SUCCESS);
  steps.ReadAIntoB(second);
  CopyToHost2(second);
  ASSERT_EQ(vkEndCommandBuffer(second), VK_SUCCESS);

  VkSemaphoreSubmitInfo signal{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
  signal.semaphore = semaphore;
  signal.stageMask = VK_PIPELINE_STAGE_2_COPY_BIT | VK_PIPELINE_STAGE_2_CLEAR_BIT;
  VkSemaphoreSubmitInfo wait = signal;
  wait.stageMask = VK_PIPELINE_STAGE_2_COPY_BIT;
  VkCommandBufferSubmitInfo cbs[2] = {{VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO},
                                      {VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO}};
  cbs[0].commandBuffer = first;
  cbs[1].commandBuffer = second;
  VkSubmitInfo2 submits[2] = {{VK_STRUCTURE_TYPE_SUBMIT_INFO_2}, {VK_STRUCTURE_TYPE_SUBMIT_INFO_2}};
  submits[0].commandBufferInfoCount = 1;
  submits[0].pCommandBufferInfos = &cbs[0];
  submits[0].signalSemaphoreInfoCount = 1;
  submits[0].pSignalSemaphoreInfos = &signal;
  submits[1].waitSemaphoreInfoCount = 1;
  submits[1].pWaitSemaphoreInfos = &wait;
  submits[1].commandBufferInfoCount = 1;
  submits[1].pCommandBufferInfos = &cbs[1];
  ASSERT_EQ(vkQueueSubmit2(h.queue(), 2, submits, VK_NULL_HANDLE), VK_SUCCESS);
  ASSERT_EQ(vkQueueWaitIdle(h.queue()), VK_SUCCESS);
  steps.Check();
  vkDestroySemaphore(h.device(), semaphore, nullptr);
  Finish(rig, config);
}

INSTANTIATE_TEST_SUITE_P(Transfer, TransferSync, ::testing::Values(kLayerOff, kForceNative, kForceCompute, kAuto),
                         ConfigName);

}  // namespace
}  // namespace bindery::test::transfer
