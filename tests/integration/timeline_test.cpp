// Timeline emulation (docs/timeline.md), in both configurations (timeline_rig.h): exposure, every
// direction of signal and wait, wait-before-signal, the semantics the Khronos layer got
// wrong, and queue order behind parked work. Validation below the layer stays silent.
#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include "integration/timeline_rig.h"

namespace bindery::test {
namespace {

constexpr uint64_t kSecond = 1'000'000'000ull;

class Timeline : public ::testing::TestWithParam<TimelineConfig> {
 protected:
  void SetUp() override {
    rig = std::make_unique<TimelineRig>(GetParam());
    ASSERT_TRUE(rig->ok()) << rig->h->error();
  }
  void TearDown() override {
    if (rig != nullptr && rig->ok() && !HasFailure() && !IsSkipped()) rig->ExpectClean();
  }
  std::unique_ptr<TimelineRig> rig;
};

TEST_P(Timeline, ExposesTheFeatureTheLimitAndNoExternalHandles) {
  VkPhysicalDeviceTimelineSemaphoreFeatures own{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES};
  VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, &own};
  VkPhysicalDeviceFeatures2 f{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &v12};
  vkGetPhysicalDeviceFeatures2(rig->h->physical_device(), &f);
  EXPECT_TRUE(v12.timelineSemaphore);
  EXPECT_TRUE(own.timelineSemaphore);
  VkPhysicalDeviceTimelineSemaphoreProperties limit{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_PROPERTIES};
  VkPhysicalDeviceProperties2 p{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &limit};
  vkGetPhysicalDeviceProperties2(rig->h->physical_device(), &p);
  EXPECT_GE(limit.maxTimelineSemaphoreValueDifference, (1ull << 31) - 1);
  uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(rig->h->physical_device(), nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> exts(count);
  vkEnumerateDeviceExtensionProperties(rig->h->physical_device(), nullptr, &count, exts.data());
  bool listed = false;
  for (const auto& e : exts) listed = listed || std::strcmp(e.extensionName, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME) == 0;
  EXPECT_TRUE(listed);
  VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  VkPhysicalDeviceExternalSemaphoreInfo info{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO, &type};
  info.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkExternalSemaphoreProperties ext{VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES};
  ext.externalSemaphoreFeatures = ~0u;
  vkGetPhysicalDeviceExternalSemaphoreProperties(rig->h->physical_device(), &info, &ext);
  EXPECT_EQ(ext.externalSemaphoreFeatures, 0u);
  EXPECT_EQ(ext.compatibleHandleTypes, 0u);
}

// Entry points are per device, but applications call one device's with another (the
// conformance suite's multi-queue tests create a second device without timelines and call
// the first one's vkCreateSemaphore and vkQueueSubmit; drivers tolerate it): on a device
// where timelines are not emulated, the layer passes such calls to that device's next layer
// (before, it dereferenced the missing emulation state and crashed).
TEST_P(Timeline, AnotherDevicesEntryPointsWorkOnADeviceWithoutEmulation) {
  auto create_semaphore = reinterpret_cast<PFN_vkCreateSemaphore>(vkGetDeviceProcAddr(rig->device, "vkCreateSemaphore"));
  auto wait_idle = reinterpret_cast<PFN_vkDeviceWaitIdle>(vkGetDeviceProcAddr(rig->device, "vkDeviceWaitIdle"));
  auto destroy_semaphore =
      reinterpret_cast<PFN_vkDestroySemaphore>(vkGetDeviceProcAddr(rig->device, "vkDestroySemaphore"));
  ASSERT_NE(create_semaphore, nullptr);
  ASSERT_NE(wait_idle, nullptr);
  ASSERT_NE(destroy_semaphore, nullptr);
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue.queueFamilyIndex = rig->h->queue_family();
  queue.queueCount = 1;
  queue.pQueuePriorities = &priority;
  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};  // no timelineSemaphore: no emulation
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue;
  VkDevice other = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateDevice(rig->h->physical_device(), &info, nullptr, &other), VK_SUCCESS);
  VkSemaphoreCreateInfo binary{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  VkSemaphore semaphore = VK_NULL_HANDLE;
  EXPECT_EQ(create_semaphore(other, &binary, nullptr, &semaphore), VK_SUCCESS);
  EXPECT_NE(semaphore, VK_NULL_HANDLE);
  EXPECT_EQ(wait_idle(other), VK_SUCCESS);
  destroy_semaphore(other, semaphore, nullptr);
  vkDestroyDevice(other, nullptr);
}

TEST_P(Timeline, HostToHost) {
  VkSemaphore s = rig->Timeline(3);
  EXPECT_EQ(rig->Value(s), 3u);
  EXPECT_EQ(rig->Wait({{s, 4}}, 1'000'000), VK_TIMEOUT);
  std::thread signaller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(rig->Signal(s, 7), VK_SUCCESS);
  });
  EXPECT_EQ(rig->Wait({{s, 6}}, 5 * kSecond), VK_SUCCESS);
  signaller.join();
  EXPECT_EQ(rig->Value(s), 7u);
}

TEST_P(Timeline, DeviceToHost) {
  VkSemaphore s = rig->Timeline();
  HostBuffer b = rig->h->CreateHostBuffer(4096, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  ASSERT_EQ(rig->Submit({}, {{s, 5}}, rig->Fill(b, 0xabcd1234u)), VK_SUCCESS);
  EXPECT_EQ(rig->Wait({{s, 5}}, 5 * kSecond), VK_SUCCESS);
  EXPECT_EQ(TimelineRig::Word(b, 1023), 0xabcd1234u);
  EXPECT_EQ(rig->Value(s), 5u);
  vkQueueWaitIdle(rig->queue);
  rig->h->Destroy(b);
}

TEST_P(Timeline, HostToDeviceWaitBeforeSignal) {
  VkSemaphore gate = rig->Timeline();
  VkSemaphore done = rig->Timeline();
  HostBuffer b = rig->h->CreateHostBuffer(4096, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  std::memset(b.mapped, 0, 4096);
  // Waits a value nobody has signalled: parked, and the call returns at once.
  ASSERT_EQ(rig->Submit({{gate, 2}}, {{done, 1}}, rig->Fill(b, 0x11111111u)), VK_SUCCESS);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(rig->Value(done), 0u);
  EXPECT_EQ(TimelineRig::Word(b), 0u) << "parked work ran before its wait was signalled";
  EXPECT_EQ(rig->Signal(gate, 1), VK_SUCCESS);  // not enough
  EXPECT_EQ(rig->Wait({{done, 1}}, 20'000'000), VK_TIMEOUT);
  EXPECT_EQ(rig->Signal(gate, 2), VK_SUCCESS);
  EXPECT_EQ(rig->Wait({{done, 1}}, 5 * kSecond), VK_SUCCESS);
  EXPECT_EQ(TimelineRig::Word(b), 0x11111111u);
  vkQueueWaitIdle(rig->queue);
  rig->h->Destroy(b);
}

TEST_P(Timeline, DeviceToDevice) {
  VkSemaphore s = rig->Timeline();
  HostBuffer b = rig->h->CreateHostBuffer(4096, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  ASSERT_EQ(rig->Submit({}, {{s, 1}}, rig->Fill(b, 1)), VK_SUCCESS);
  ASSERT_EQ(rig->Submit({{s, 1}}, {{s, 2}}, rig->Fill(b, 2)), VK_SUCCESS);
  ASSERT_EQ(rig->Submit({{s, 2}}, {{s, 3}}, rig->Fill(b, 3)), VK_SUCCESS);
  EXPECT_EQ(rig->Wait({{s, 3}}, 5 * kSecond), VK_SUCCESS);
  EXPECT_EQ(TimelineRig::Word(b), 3u);
  vkQueueWaitIdle(rig->queue);
  rig->h->Destroy(b);
}

// An application that learns by other means that a submission signalling a value is
// complete (its own later fence, a queue or device idle, a host wait of a value whose
// submission waited it) reads that value at once: the emulation must know a submission
// complete whenever the application can. (An emulation that fenced only some submissions
// and fenced the others on demand would read a stale value here: a fence made at the
// read signals later.) And a value polled with no later submission advances.
TEST_P(Timeline, CounterReadsAValueTheApplicationKnowsReached) {
  VkSemaphore s = rig->Timeline();
  VkSemaphore other = rig->Timeline();
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateFence(rig->device, &fci, nullptr, &fence), VK_SUCCESS);

  // The application's fence of a later call on the same queue.
  ASSERT_EQ(rig->Submit({}, {{s, 1}}), VK_SUCCESS);
  ASSERT_EQ(vkQueueSubmit(rig->queue, 0, nullptr, fence), VK_SUCCESS);
  ASSERT_EQ(vkWaitForFences(rig->device, 1, &fence, VK_TRUE, 5 * kSecond), VK_SUCCESS);
  EXPECT_EQ(rig->Value(s), 1u) << "after the application's later fence signalled";
  ASSERT_EQ(vkResetFences(rig->device, 1, &fence), VK_SUCCESS);

  // Its fence on a batch of its own after the signalling one.
  ASSERT_EQ(rig->Submit({}, {{s, 2}}), VK_SUCCESS);
  ASSERT_EQ(rig->Submit({}, {}, VK_NULL_HANDLE, fence), VK_SUCCESS);
  ASSERT_EQ(vkWaitForFences(rig->device, 1, &fence, VK_TRUE, 5 * kSecond), VK_SUCCESS);
  EXPECT_EQ(rig->Value(s), 2u) << "after the fence of a later batch signalled";

  // Queue and device idle.
  ASSERT_EQ(rig->Submit({}, {{s, 3}}), VK_SUCCESS);
  ASSERT_EQ(vkQueueWaitIdle(rig->queue), VK_SUCCESS);
  EXPECT_EQ(rig->Value(s), 3u) << "after vkQueueWaitIdle";
  ASSERT_EQ(rig->Submit({}, {{s, 4}}), VK_SUCCESS);
  ASSERT_EQ(vkDeviceWaitIdle(rig->device), VK_SUCCESS);
  EXPECT_EQ(rig->Value(s), 4u) << "after vkDeviceWaitIdle";

  // A host wait of a value whose submission waited this one on the device.
  ASSERT_EQ(rig->Submit({}, {{s, 5}}), VK_SUCCESS);
  ASSERT_EQ(rig->Submit({{s, 5}}, {{other, 1}}), VK_SUCCESS);
  ASSERT_EQ(rig->Wait({{other, 1}}, 5 * kSecond), VK_SUCCESS);
  EXPECT_EQ(rig->Value(s), 5u) << "after a host wait of a value that waited it";

  // Polled, with nothing submitted after it.
  ASSERT_EQ(rig->Submit({}, {{s, 6}}), VK_SUCCESS);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (rig->Value(s) < 6 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  EXPECT_EQ(rig->Value(s), 6u) << "a polled value must advance with no later submission";

  ASSERT_EQ(vkQueueWaitIdle(rig->queue), VK_SUCCESS);
  vkDestroyFence(rig->device, fence, nullptr);
}

TEST_P(Timeline, OneHostSignalReleasesManyParkedWaits) {
  VkSemaphore gate = rig->Timeline();
  std::vector<TimelineRig::Op> all;
  for (int i = 0; i < 16; ++i) {
    VkSemaphore out = rig->Timeline();
    ASSERT_EQ(rig->Submit({{gate, 1}}, {{out, 1}}), VK_SUCCESS);
    all.push_back({out, 1});
  }
  EXPECT_EQ(rig->Wait(all, 10'000'000, /*any=*/true), VK_TIMEOUT);
  EXPECT_EQ(rig->Signal(gate, 1), VK_SUCCESS);
  EXPECT_EQ(rig->Wait(all, 5 * kSecond), VK_SUCCESS);
  vkQueueWaitIdle(rig->queue);
}

TEST_P(Timeline, DeviceSignalFansOutToManyDeviceWaits) {
  VkSemaphore gate = rig->Timeline();
  ASSERT_EQ(rig->Submit({}, {{gate, 1}}), VK_SUCCESS);
  std::vector<TimelineRig::Op> all;
  for (int i = 0; i < 16; ++i) {
    VkSemaphore out = rig->Timeline();
    ASSERT_EQ(rig->Submit({{gate, 1}}, {{out, 1}}), VK_SUCCESS);
    all.push_back({out, 1});
  }
  EXPECT_EQ(rig->Wait(all, 5 * kSecond), VK_SUCCESS);
  vkQueueWaitIdle(rig->queue);
}

TEST_P(Timeline, ManySignalsOneWait) {
  std::vector<TimelineRig::Op> waits;
  std::vector<VkSemaphore> ins;
  for (int i = 0; i < 8; ++i) {
    ins.push_back(rig->Timeline());
    waits.push_back({ins.back(), 2});
  }
  // Half signalled by the device before the waiter, half by the host after it.
  for (int i = 1; i < 8; i += 2) ASSERT_EQ(rig->Submit({}, {{ins[i], 2}}), VK_SUCCESS);
  VkSemaphore done = rig->Timeline();
  ASSERT_EQ(rig->Submit(waits, {{done, 9}}), VK_SUCCESS);
  for (int i = 0; i < 8; i += 2) {
    EXPECT_EQ(rig->Wait({{done, 9}}, 1'000'000), VK_TIMEOUT);
    ASSERT_EQ(rig->Signal(ins[i], 2), VK_SUCCESS);
  }
  EXPECT_EQ(rig->Wait({{done, 9}}, 5 * kSecond), VK_SUCCESS);
  vkQueueWaitIdle(rig->queue);
}

TEST_P(Timeline, WaitLowerValueWhileTwoArePending) {
  VkSemaphore s = rig->Timeline();
  HostBuffer big = rig->h->CreateHostBuffer(64 << 20, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  ASSERT_EQ(rig->Submit({}, {{s, 5}}, rig->Fill(big, 5)), VK_SUCCESS);
  ASSERT_EQ(rig->Submit({}, {{s, 10}}, rig->Fill(big, 10)), VK_SUCCESS);
  VkSemaphore after = rig->Timeline();
  ASSERT_EQ(rig->Submit({{s, 3}}, {{after, 1}}), VK_SUCCESS);  // device wait on the lowest pending point (5)
  EXPECT_EQ(rig->Wait({{s, 3}}, 5 * kSecond), VK_SUCCESS);
  EXPECT_GE(rig->Value(s), 5u);
  EXPECT_EQ(rig->Wait({{after, 1}, {s, 10}}, 5 * kSecond), VK_SUCCESS);
  EXPECT_EQ(rig->Value(s), 10u);
  vkQueueWaitIdle(rig->queue);
  rig->h->Destroy(big);
}

TEST_P(Timeline, WaitAnyWithOneSemaphoreNeverSubmitted) {
  VkSemaphore never = rig->Timeline();
  VkSemaphore device = rig->Timeline();
  ASSERT_EQ(rig->Submit({}, {{device, 1}}), VK_SUCCESS);
  EXPECT_EQ(rig->Wait({{never, 1}, {device, 1}}, 5 * kSecond, /*any=*/true), VK_SUCCESS);
  EXPECT_EQ(rig->Wait({{never, 1}, {device, 1}}, 10'000'000, /*any=*/false), VK_TIMEOUT) << "wait-all must not pass";
  EXPECT_EQ(rig->Wait({{never, 1}}, 0, true), VK_TIMEOUT);
  vkQueueWaitIdle(rig->queue);
}

TEST_P(Timeline, FenceOnlySubmitWhileWorkIsParked) {
  VkSemaphore gate = rig->Timeline();
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateFence(rig->device, &fci, nullptr, &fence), VK_SUCCESS);
  ASSERT_EQ(rig->Submit({{gate, 1}}, {}), VK_SUCCESS);
  for (int i = 0; i < 4; ++i) ASSERT_EQ(vkQueueSubmit(rig->queue, 0, nullptr, i == 3 ? fence : VK_NULL_HANDLE), VK_SUCCESS);
  EXPECT_EQ(vkWaitForFences(rig->device, 1, &fence, VK_TRUE, 20'000'000), VK_TIMEOUT)
      << "the fence must stay behind the parked submission";
  ASSERT_EQ(rig->Signal(gate, 1), VK_SUCCESS);
  EXPECT_EQ(vkWaitForFences(rig->device, 1, &fence, VK_TRUE, 5 * kSecond), VK_SUCCESS);
  vkDestroyFence(rig->device, fence, nullptr);
}

TEST_P(Timeline, HostSignalBelowAPendingDeviceSignal) {
  VkSemaphore gate = rig->Timeline();
  VkSemaphore s = rig->Timeline();
  ASSERT_EQ(rig->Submit({{gate, 1}}, {{s, 10}}), VK_SUCCESS);  // s=10 parked behind the gate
  ASSERT_EQ(rig->Signal(s, 4), VK_SUCCESS);
  EXPECT_EQ(rig->Value(s), 4u);
  ASSERT_EQ(rig->Signal(gate, 1), VK_SUCCESS);
  EXPECT_EQ(rig->Wait({{s, 10}}, 5 * kSecond), VK_SUCCESS);
  EXPECT_EQ(rig->Value(s), 10u);
}

TEST_P(Timeline, Submit2WaitBeforeSignalAndBinaryInTheSameSubmissions) {
  VkSemaphore s = rig->Timeline();
  VkSemaphore binary = rig->Binary();
  HostBuffer b = rig->h->CreateHostBuffer(4096, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  ASSERT_EQ(rig->Submit2({{s, 1}}, {{s, 2}, {binary, 0}}, rig->Fill(b, 7)), VK_SUCCESS);  // parked
  ASSERT_EQ(rig->Submit2({{binary, 0}}, {{s, 3}}, rig->Fill(b, 8)), VK_SUCCESS);        // behind it
  ASSERT_EQ(rig->Signal(s, 1), VK_SUCCESS);
  EXPECT_EQ(rig->Wait({{s, 3}}, 5 * kSecond), VK_SUCCESS);
  EXPECT_EQ(TimelineRig::Word(b), 8u);
  vkQueueWaitIdle(rig->queue);
  rig->h->Destroy(b);
}

TEST_P(Timeline, BinaryWaitOnAParkedSignalParksToo) {
  VkSemaphore gate = rig->Timeline();
  VkSemaphore binary = rig->Binary();
  HostBuffer b = rig->h->CreateHostBuffer(4096, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  ASSERT_EQ(rig->Submit({{gate, 1}}, {{binary, 0}}, rig->Fill(b, 1)), VK_SUCCESS);
  ASSERT_EQ(rig->Submit({{binary, 0}}, {}, rig->Fill(b, 2)), VK_SUCCESS);
  std::thread signaller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    rig->Signal(gate, 1);
  });
  EXPECT_EQ(vkQueueWaitIdle(rig->queue), VK_SUCCESS) << "vkQueueWaitIdle includes parked work";
  signaller.join();
  EXPECT_EQ(TimelineRig::Word(b), 2u);
  rig->h->Destroy(b);
}

TEST_P(Timeline, DeviceWaitIdleIncludesParkedWork) {
  VkSemaphore gate = rig->Timeline();
  VkSemaphore done = rig->Timeline();
  ASSERT_EQ(rig->Submit({{gate, 1}}, {{done, 1}}), VK_SUCCESS);
  std::thread signaller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    rig->Signal(gate, 1);
  });
  EXPECT_EQ(vkDeviceWaitIdle(rig->device), VK_SUCCESS);
  signaller.join();
  EXPECT_EQ(rig->Value(done), 1u);
}

TEST_P(Timeline, NamesAndDestructionOfEmulatedSemaphores) {
  VkSemaphore s = rig->Timeline();
  auto set_name = reinterpret_cast<PFN_vkSetDebugUtilsObjectNameEXT>(
      vkGetInstanceProcAddr(rig->h->instance(), "vkSetDebugUtilsObjectNameEXT"));
  ASSERT_NE(set_name, nullptr);
  VkDebugUtilsObjectNameInfoEXT name{VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT};
  name.objectType = VK_OBJECT_TYPE_SEMAPHORE;
  name.objectHandle = reinterpret_cast<uint64_t>(s);
  name.pObjectName = "emulated timeline";
  EXPECT_EQ(set_name(rig->device, &name), VK_SUCCESS);
  // Used by the device, then destroyed with nothing pending.
  VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &type};
  for (int i = 0; i < 50; ++i) {
    VkSemaphore t = VK_NULL_HANDLE;
    ASSERT_EQ(vkCreateSemaphore(rig->device, &info, nullptr, &t), VK_SUCCESS);
    ASSERT_EQ(rig->Submit({}, {{t, 1}}), VK_SUCCESS);
    ASSERT_EQ(rig->Submit({{t, 1}}, {{s, static_cast<uint64_t>(i + 1)}}), VK_SUCCESS);
    ASSERT_EQ(rig->Wait({{s, static_cast<uint64_t>(i + 1)}}, 5 * kSecond), VK_SUCCESS);
    vkDestroySemaphore(rig->device, t, nullptr);
  }
}

// Device loss (injected by the no-timeline test layer: its vkQueueSubmit returns
// VK_ERROR_DEVICE_LOST) wakes every host waiter, including one waiting for a value nobody
// will ever signal, and fails parked work, its fence and everything after.
TEST_P(Timeline, DeviceLossWakesEveryWaiterAndFailsParkedWork) {
  if (GetParam() != TimelineConfig::kNoTimelineDriver) {
    GTEST_SKIP() << "device loss is injected by the no-timeline test layer (the NoTimelineDriver configuration)";
  }
  void* lib = dlopen(BINDERY_NO_TIMELINE_LIBRARY, RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(lib, nullptr);
  auto lose = reinterpret_cast<BinderyNoTimelineLoseDeviceFn>(dlsym(lib, "bindery_no_timeline_lose_device"));
  dlclose(lib);
  ASSERT_NE(lose, nullptr);
  VkSemaphore a = rig->Timeline(), b = rig->Timeline(), never = rig->Timeline();
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateFence(rig->device, &fci, nullptr, &fence), VK_SUCCESS);
  ASSERT_EQ(rig->Submit({{a, 1}}, {{b, 1}}), VK_SUCCESS);  // parked: a = 1 is not pending
  ASSERT_EQ(rig->Submit({{a, 2}}, {{b, 2}}, VK_NULL_HANDLE, fence), VK_SUCCESS);  // parked behind it
  std::atomic<int> woken{0};
  VkResult on_b = VK_SUCCESS, on_never = VK_SUCCESS;
  std::thread waiter_b([&] {
    on_b = rig->Wait({{b, 2}}, 10 * kSecond);
    ++woken;
  });
  std::thread waiter_never([&] {
    on_never = rig->Wait({{never, 1}}, 10 * kSecond);
    ++woken;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(woken.load(), 0) << "nothing could meet the waits yet";
  lose(1);
  const auto lost_at = std::chrono::steady_clock::now();
  // Releases the first parked batch: the driver answers VK_ERROR_DEVICE_LOST.
  ASSERT_EQ(rig->Signal(a, 1), VK_SUCCESS);
  waiter_b.join();
  waiter_never.join();
  const double woke_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - lost_at).count();
  EXPECT_EQ(on_b, VK_ERROR_DEVICE_LOST);
  EXPECT_EQ(on_never, VK_ERROR_DEVICE_LOST);
  EXPECT_LT(woke_ms, 1000.0) << "waiters are woken by the loss, not by their timeouts";
  EXPECT_EQ(vkWaitForFences(rig->device, 1, &fence, VK_TRUE, kSecond), VK_ERROR_DEVICE_LOST)
      << "the parked submission's fence fails";
  EXPECT_EQ(vkGetFenceStatus(rig->device, fence), VK_ERROR_DEVICE_LOST);
  EXPECT_EQ(vkQueueWaitIdle(rig->queue), VK_ERROR_DEVICE_LOST);
  EXPECT_EQ(rig->Submit({}, {{never, 1}}), VK_ERROR_DEVICE_LOST);
  uint64_t value = 0;
  EXPECT_EQ(vkGetSemaphoreCounterValue(rig->device, b, &value), VK_ERROR_DEVICE_LOST);
  EXPECT_EQ(rig->Wait({{b, 1}}, 0), VK_ERROR_DEVICE_LOST);
  lose(0);
  vkDestroyFence(rig->device, fence, nullptr);
}

INSTANTIATE_TEST_SUITE_P(Configs, Timeline, ::testing::Values(TimelineConfig::kForce, TimelineConfig::kNoTimelineDriver),
                         ConfigName);

// The layer's own extension list (vkEnumerateDeviceExtensionProperties naming the layer)
// names VK_KHR_timeline_semaphore only on a physical device where it emulates it.
bool LayerListsTimeline(const char* mode, bool no_timeline_driver) {
  ScopedEnv env("BINDERY_TIMELINE", mode);
  HarnessOptions options;
  if (no_timeline_driver) options.layers_between.push_back(kNoTimelineLayerName);
  VkHarness h(options);
  EXPECT_TRUE(h.ok()) << h.error();
  if (!h.ok()) return false;
  uint32_t n = 0;
  EXPECT_EQ(vkEnumerateDeviceExtensionProperties(h.physical_device(), "VK_LAYER_bindery", &n, nullptr), VK_SUCCESS);
  std::vector<VkExtensionProperties> props(n);
  EXPECT_EQ(vkEnumerateDeviceExtensionProperties(h.physical_device(), "VK_LAYER_bindery", &n, props.data()),
            VK_SUCCESS);
  bool listed = false;
  for (uint32_t i = 0; i < n; ++i) listed = listed || std::strcmp(props[i].extensionName, "VK_KHR_timeline_semaphore") == 0;
  // Whatever the layer lists, the full list has the extension in every one of these cases.
  uint32_t all = 0;
  EXPECT_EQ(vkEnumerateDeviceExtensionProperties(h.physical_device(), nullptr, &all, nullptr), VK_SUCCESS);
  std::vector<VkExtensionProperties> every(all);
  EXPECT_EQ(vkEnumerateDeviceExtensionProperties(h.physical_device(), nullptr, &all, every.data()), VK_SUCCESS);
  bool anywhere = false;
  for (uint32_t i = 0; i < all; ++i) {
    anywhere = anywhere || std::strcmp(every[i].extensionName, "VK_KHR_timeline_semaphore") == 0;
  }
  EXPECT_TRUE(anywhere);
  EXPECT_VALIDATION_SILENT(h);
  return listed;
}

// Pass-through is free: with auto on a driver that has timelines, the device's semaphore
// entry points are not Bindery's (the timeline capability installs no hook there).
TEST(TimelinePassThrough, AutoOverADriverWithTimelinesInstallsNoTimelineHook) {
  ScopedEnv env("BINDERY_TIMELINE", "auto");
  VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  v12.timelineSemaphore = VK_TRUE;
  HarnessOptions options;
  options.device_pnext = &v12;
  VkHarness h(options);
  ASSERT_TRUE(h.ok()) << h.error();
  for (const char* name : {"vkCreateSemaphore", "vkDestroySemaphore", "vkSignalSemaphore", "vkWaitSemaphores",
                           "vkGetSemaphoreCounterValue", "vkWaitForFences", "vkGetFenceStatus"}) {
    const auto fn = reinterpret_cast<void*>(vkGetDeviceProcAddr(h.device(), name));
    ASSERT_NE(fn, nullptr) << name;
    Dl_info where{};
    ASSERT_NE(dladdr(fn, &where), 0) << name;
    EXPECT_EQ(std::string(where.dli_fname).find("VkLayer_bindery.so"), std::string::npos)
        << name << " comes from Bindery: a timeline hook is installed on a driver that has timelines";
  }
  EXPECT_VALIDATION_SILENT(h);
}

TEST(TimelineExposure, TheLayerListsTheExtensionOnlyWhereItEmulates) {
  EXPECT_FALSE(LayerListsTimeline("auto", false)) << "auto over lavapipe (which has timelines) passes through";
  EXPECT_TRUE(LayerListsTimeline("force", false));
  EXPECT_TRUE(LayerListsTimeline("auto", true)) << "auto over a driver without timelines emulates";
  EXPECT_FALSE(LayerListsTimeline("off", false));
}

}  // namespace
}  // namespace bindery::test
