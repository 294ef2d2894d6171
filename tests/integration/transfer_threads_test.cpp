// Several threads record polyfilled transfers at once (docs/transfers.md), each into its
// own command pool and command buffer as Vulkan requires: the layer's shared state
// (command-buffer map and its per-thread cache, staging pool, kernels) must hold up.
// Every thread's buffers are then checked byte for byte against its own model.
#include <atomic>
#include <cstring>
#include <memory>
#include <thread>

#include "integration/transfer_model.h"

namespace bindery::test::transfer {
namespace {

constexpr int kThreads = 4;
constexpr int kRounds = 40;  // commands of each kind per thread
constexpr uint64_t kSlot = 4096;
constexpr uint64_t kBytes = kRounds * kSlot;

struct Worker {
  VkCommandPool pool = VK_NULL_HANDLE;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  HostBuffer fill, update, src, dst;
  std::unique_ptr<ByteModel> fill_model, update_model, dst_model;
  std::vector<uint8_t> source;
};

// Records kRounds fills, updates and copies at offsets that depend on the thread, each
// in its own slot (no hazards between them).
void Record(Worker& w, int thread, bool native_only) {
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  vkBeginCommandBuffer(w.cb, &begin);
  for (int i = 0; i < kRounds; ++i) {
    const uint64_t slot = uint64_t(i) * kSlot;
    uint64_t offset = (thread + i) % 8, size = 1000 + 37 * i + thread;
    if (native_only) {
      offset &= ~uint64_t{3};
      size &= ~uint64_t{3};
    }
    const uint32_t data = 0x01010101u * uint32_t(thread + 1) + uint32_t(i);
    vkCmdFillBuffer(w.cb, w.fill.buffer, slot + offset, size, data);
    w.fill_model->Fill(slot + offset, size, data);
    const std::vector<uint8_t> bytes = RandomBytes(size, uint32_t(thread * 1000 + i));
    vkCmdUpdateBuffer(w.cb, w.update.buffer, slot + offset, size, bytes.data());
    w.update_model->Update(slot + offset, bytes.data(), size);
    const VkBufferCopy region{slot + (offset + 1) % 8, slot + offset, size + 2};
    vkCmdCopyBuffer(w.cb, w.src.buffer, w.dst.buffer, 1, &region);
    w.dst_model->Copy(w.source.data(), region.srcOffset, region.dstOffset, region.size);
  }
  Rig::TransferHostReadBarrier(w.cb);
  vkEndCommandBuffer(w.cb);
}

class TransferThreads : public ::testing::TestWithParam<Config> {};

TEST_P(TransferThreads, RecordingOnSeveralThreadsAtOnce) {
  const Config& config = GetParam();
  Rig rig(config);
  ASSERT_TRUE(rig.ok()) << rig.error();
  VkHarness& h = rig.h();
  Worker workers[kThreads];
  for (int t = 0; t < kThreads; ++t) {
    Worker& w = workers[t];
    VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pci.queueFamilyIndex = h.queue_family();
    ASSERT_EQ(vkCreateCommandPool(h.device(), &pci, nullptr, &w.pool), VK_SUCCESS);
    VkCommandBufferAllocateInfo cbai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    cbai.commandPool = w.pool;
    cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cbai.commandBufferCount = 1;
    ASSERT_EQ(vkAllocateCommandBuffers(h.device(), &cbai, &w.cb), VK_SUCCESS);
    w.fill = rig.Buffer(kBytes);
    w.update = rig.Buffer(kBytes);
    w.src = rig.Buffer(kBytes);
    w.dst = rig.Buffer(kBytes);
    for (HostBuffer* b : {&w.fill, &w.update, &w.dst}) WriteCanary(b->mapped, kBytes);
    w.source = RandomBytes(kBytes, uint32_t(50 + t));
    std::memcpy(w.src.mapped, w.source.data(), kBytes);
    w.fill_model = std::make_unique<ByteModel>(kBytes);
    w.update_model = std::make_unique<ByteModel>(kBytes);
    w.dst_model = std::make_unique<ByteModel>(kBytes);
  }

  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();  // start together
      Record(workers[t], t, config.NativeOnly());
    });
  }
  for (std::thread& th : threads) th.join();

  VkCommandBuffer cbs[kThreads];
  for (int t = 0; t < kThreads; ++t) cbs[t] = workers[t].cb;
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = kThreads;
  si.pCommandBuffers = cbs;
  ASSERT_EQ(vkQueueSubmit(h.queue(), 1, &si, VK_NULL_HANDLE), VK_SUCCESS);
  ASSERT_EQ(vkQueueWaitIdle(h.queue()), VK_SUCCESS);
  for (int t = 0; t < kThreads; ++t) {
    SCOPED_TRACE("thread " + std::to_string(t));
    const Worker& w = workers[t];
    EXPECT_TRUE(SameBytes(w.fill.mapped, w.fill_model->data(), kBytes)) << "fills";
    EXPECT_TRUE(SameBytes(w.update.mapped, w.update_model->data(), kBytes)) << "updates";
    EXPECT_TRUE(SameBytes(w.dst.mapped, w.dst_model->data(), kBytes)) << "copies";
  }
  for (Worker& w : workers) vkDestroyCommandPool(h.device(), w.pool, nullptr);
  const Summary summary = rig.Finish();
  EXPECT_VALIDATION_SILENT(h);
  ExpectStrategyRan(config, summary, rig.compute_queue(), !config.NativeOnly(), true);
}

INSTANTIATE_TEST_SUITE_P(Transfer, TransferThreads, ::testing::Values(kLayerOff, kForceNative, kForceCompute, kAuto),
                         ConfigName);

}  // namespace
}  // namespace bindery::test::transfer
