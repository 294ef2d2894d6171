// vkQueueBindSparse with emulated timeline semaphores (docs/timeline.md), in both configurations:
// parked behind a wait that is not pending yet, relayed to binary semaphores, its signals
// seen by later submissions and host waits; the driver gets binary semaphores only.
// Real sparse binding (a sparse buffer's memory bound behind a wait-before-signal, data
// checked through it) needs a device with sparseBinding and a queue family with
// SPARSE_BINDING (not lavapipe: it skips there, the H100 runs it). The semaphore handling
// alone is also tested on lavapipe through the no-timeline test layer's stand-in, which
// turns a vkQueueBindSparse that binds nothing into the equivalent vkQueueSubmit.
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "integration/timeline_rig.h"
#include "support/vk_objects.h"

namespace bindery::test {
namespace {

constexpr uint64_t kSecond = 1'000'000'000ull;

// Empty when the first physical device can bind sparse buffers with a compute queue
// (the harness uses devices[0]); otherwise why not.
std::string SparseUnsupported() {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_3;
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  VkInstance instance = VK_NULL_HANDLE;
  if (vkCreateInstance(&ici, nullptr, &instance) != VK_SUCCESS) return "vkCreateInstance failed";
  std::string why;
  uint32_t n = 0;
  vkEnumeratePhysicalDevices(instance, &n, nullptr);
  std::vector<VkPhysicalDevice> devices(n);
  vkEnumeratePhysicalDevices(instance, &n, devices.data());
  if (n == 0) {
    why = "no physical device";
  } else {
    VkPhysicalDeviceFeatures f{};
    vkGetPhysicalDeviceFeatures(devices[0], &f);
    uint32_t families = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(devices[0], &families, nullptr);
    std::vector<VkQueueFamilyProperties> props(families);
    vkGetPhysicalDeviceQueueFamilyProperties(devices[0], &families, props.data());
    bool queue = false;
    for (const VkQueueFamilyProperties& p : props) {
      const VkQueueFlags want = VK_QUEUE_COMPUTE_BIT | VK_QUEUE_SPARSE_BINDING_BIT;
      queue = queue || (p.queueFlags & want) == want;
    }
    if (!f.sparseBinding) {
      why = "the device has no sparseBinding feature (lavapipe has none)";
    } else if (!queue) {
      why = "the device has no queue family with both COMPUTE and SPARSE_BINDING";
    }
  }
  vkDestroyInstance(instance, nullptr);
  return why;
}

template <typename Fn>
Fn NoTimelineFunction(const char* name) {
  void* lib = dlopen(BINDERY_NO_TIMELINE_LIBRARY, RTLD_NOW | RTLD_NOLOAD);
  if (lib == nullptr) return nullptr;
  auto fn = reinterpret_cast<Fn>(dlsym(lib, name));
  dlclose(lib);
  return fn;
}

class TimelineSparse : public ::testing::TestWithParam<TimelineConfig> {};

TEST_P(TimelineSparse, BindsABufferBehindAWaitBeforeSignalAndTheDataGoesThroughIt) {
  const std::string unsupported = SparseUnsupported();
  if (!unsupported.empty()) GTEST_SKIP() << unsupported;
  RigOptions options;
  options.sparse_binding = true;
  TimelineRig rig(GetParam(), options);
  ASSERT_TRUE(rig.ok()) << rig.h->error();
  const VkDevice device = rig.device;

  constexpr VkDeviceSize kSize = 1 << 20;
  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.flags = VK_BUFFER_CREATE_SPARSE_BINDING_BIT;
  bci.size = kSize;
  bci.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  VkBuffer sparse = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateBuffer(device, &bci, nullptr, &sparse), VK_SUCCESS);
  VkMemoryRequirements req{};
  vkGetBufferMemoryRequirements(device, sparse, &req);
  VkPhysicalDeviceMemoryProperties mem{};
  vkGetPhysicalDeviceMemoryProperties(rig.h->physical_device(), &mem);
  uint32_t type = UINT32_MAX;
  for (uint32_t i = 0; i < mem.memoryTypeCount && type == UINT32_MAX; ++i) {
    if ((req.memoryTypeBits & (1u << i)) &&
        (mem.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0) {
      type = i;
    }
  }
  for (uint32_t i = 0; i < mem.memoryTypeCount && type == UINT32_MAX; ++i) {
    if (req.memoryTypeBits & (1u << i)) type = i;
  }
  ASSERT_NE(type, UINT32_MAX);
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = type;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  ASSERT_EQ(vkAllocateMemory(device, &mai, nullptr, &memory), VK_SUCCESS);
  HostBuffer out = rig.h->CreateHostBuffer(kSize, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  std::memset(out.mapped, 0, kSize);

  VkSemaphore gate = rig.Timeline();
  VkSemaphore s = rig.Timeline();
  // 1. The bind waits a value nobody has signalled: parked (the call returns at once).
  VkSparseMemoryBind bind{};
  bind.size = req.size;
  bind.memory = memory;
  VkSparseBufferMemoryBindInfo buffer_bind{sparse, 1, &bind};
  ASSERT_EQ(rig.BindSparse({{gate, 1}}, {{s, 1}}, &buffer_bind), VK_SUCCESS);
  bind = {};  // the application's arrays are gone after the call: the layer kept its own copy
  buffer_bind = {};
  // 2. Fills the sparse buffer and copies it out once the bind signalled s = 1.
  VkCommandBuffer cb = rig.Begin();
  vkCmdFillBuffer(cb, sparse, 0, kSize, 0x5a5a1234u);
  RecordMemoryBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                      VK_ACCESS_TRANSFER_READ_BIT);
  VkBufferCopy region{0, 0, kSize};
  vkCmdCopyBuffer(cb, sparse, out.buffer, 1, &region);
  BarrierToHost(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
  vkEndCommandBuffer(cb);
  ASSERT_EQ(rig.Submit({{s, 1}}, {{s, 2}}, cb), VK_SUCCESS);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(rig.Value(s), 0u) << "the parked bind (or the copy behind it) ran before its wait was signalled";
  EXPECT_EQ(TimelineRig::Word(out), 0u);
  // 3. The host signal releases the bind, then the copy.
  ASSERT_EQ(rig.Signal(gate, 1), VK_SUCCESS);
  ASSERT_EQ(rig.Wait({{s, 2}}, 5 * kSecond), VK_SUCCESS);
  EXPECT_EQ(TimelineRig::Word(out, 0), 0x5a5a1234u);
  EXPECT_EQ(TimelineRig::Word(out, kSize / 4 - 1), 0x5a5a1234u);
  // 4. Not parked: the unbind waits a value a submission signals (a relay inside the
  // vkQueueBindSparse call) and signals the next one, with a fence.
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateFence(device, &fci, nullptr, &fence), VK_SUCCESS);
  ASSERT_EQ(rig.Submit({{s, 2}}, {{s, 3}}), VK_SUCCESS);
  VkSparseMemoryBind unbind{};
  unbind.size = req.size;
  VkSparseBufferMemoryBindInfo buffer_unbind{sparse, 1, &unbind};
  ASSERT_EQ(rig.BindSparse({{s, 3}}, {{s, 4}}, &buffer_unbind, fence), VK_SUCCESS);
  EXPECT_EQ(vkWaitForFences(device, 1, &fence, VK_TRUE, 5 * kSecond), VK_SUCCESS);
  EXPECT_EQ(rig.Wait({{s, 4}}, 5 * kSecond), VK_SUCCESS);
  EXPECT_EQ(rig.Value(s), 4u);
  vkQueueWaitIdle(rig.queue);
  vkDestroyFence(device, fence, nullptr);
  vkDestroyBuffer(device, sparse, nullptr);
  vkFreeMemory(device, memory, nullptr);
  rig.h->Destroy(out);
  rig.ExpectClean();
}

TEST_P(TimelineSparse, SemaphoresOnlyThroughTheTestLayersStandIn) {
  if (GetParam() != TimelineConfig::kNoTimelineDriver) {
    GTEST_SKIP() << "the semaphore-only vkQueueBindSparse stand-in is the no-timeline test layer's (NoTimelineDriver "
                    "configuration); real sparse binding is the test above";
  }
  if (SparseUnsupported().empty()) {
    GTEST_SKIP() << "the device binds sparse resources: the test above binds for real, no stand-in needed";
  }
  TimelineRig rig(GetParam());
  ASSERT_TRUE(rig.ok()) << rig.h->error();
  auto stand_in = NoTimelineFunction<BinderyNoTimelineSemaphoreOnlySparseFn>("bindery_no_timeline_semaphore_only_sparse");
  auto calls = NoTimelineFunction<BinderyNoTimelineBindSparseCallsFn>("bindery_no_timeline_bind_sparse_calls");
  ASSERT_NE(stand_in, nullptr);
  ASSERT_NE(calls, nullptr);
  stand_in(1);
  VkSemaphore gate = rig.Timeline();
  VkSemaphore s = rig.Timeline();
  VkSemaphore binary = rig.Binary();
  HostBuffer b = rig.h->CreateHostBuffer(4096, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  std::memset(b.mapped, 0, 4096);
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence parked_fence = VK_NULL_HANDLE, fence = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateFence(rig.device, &fci, nullptr, &parked_fence), VK_SUCCESS);
  ASSERT_EQ(vkCreateFence(rig.device, &fci, nullptr, &fence), VK_SUCCESS);

  // Wait-before-signal: parked, nothing reaches the driver yet.
  ASSERT_EQ(rig.BindSparse({{gate, 1}}, {{s, 1}, {binary, 0}}), VK_SUCCESS);
  ASSERT_EQ(rig.Submit({{s, 1}, {binary, 0}}, {{s, 2}}, rig.Fill(b, 7)), VK_SUCCESS);  // behind it
  ASSERT_EQ(vkQueueBindSparse(rig.queue, 0, nullptr, parked_fence), VK_SUCCESS);      // fence-only, behind both
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(calls(), 0u) << "a parked vkQueueBindSparse reached the driver";
  EXPECT_EQ(rig.Value(s), 0u);
  EXPECT_EQ(vkGetFenceStatus(rig.device, parked_fence), VK_NOT_READY);
  ASSERT_EQ(rig.Signal(gate, 1), VK_SUCCESS);
  ASSERT_EQ(rig.Wait({{s, 2}}, 5 * kSecond), VK_SUCCESS);
  EXPECT_EQ(TimelineRig::Word(b), 7u);
  EXPECT_EQ(vkWaitForFences(rig.device, 1, &parked_fence, VK_TRUE, 5 * kSecond), VK_SUCCESS);
  EXPECT_GE(calls(), 2u);  // the released bind and the fence-only call

  // Not parked: a wait on a value a submission signals is relayed inside the bind call.
  ASSERT_EQ(rig.Submit({}, {{s, 3}}), VK_SUCCESS);
  ASSERT_EQ(rig.BindSparse({{s, 3}}, {{s, 4}}, nullptr, fence), VK_SUCCESS);
  EXPECT_EQ(vkWaitForFences(rig.device, 1, &fence, VK_TRUE, 5 * kSecond), VK_SUCCESS);
  EXPECT_EQ(rig.Wait({{s, 4}}, 5 * kSecond), VK_SUCCESS);
  // A wait already reached, and a bind that only waits.
  ASSERT_EQ(rig.BindSparse({{s, 4}}, {}), VK_SUCCESS);
  EXPECT_EQ(vkQueueWaitIdle(rig.queue), VK_SUCCESS);
  vkDestroyFence(rig.device, parked_fence, nullptr);
  vkDestroyFence(rig.device, fence, nullptr);
  rig.h->Destroy(b);
  rig.ExpectClean();
}

INSTANTIATE_TEST_SUITE_P(Configs, TimelineSparse,
                         ::testing::Values(TimelineConfig::kForce, TimelineConfig::kNoTimelineDriver), ConfigName);

}  // namespace
}  // namespace bindery::test
