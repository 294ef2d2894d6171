// A program that needs timeline semaphores with wait-before-signal: it submits a fill that
// waits for value 1 of a timeline semaphore nobody has signalled yet and signals 2, checks
// that the fill is held back, signals 1 from the host, and waits on the host for 2. It
// knows nothing about Bindery and enables validation itself. scripts/demo runs it over
// tests/no_timeline_layer (a driver without timeline semaphores): without Bindery the
// device offers no timelineSemaphore and the program cannot run; with Bindery (default
// timeline=auto) the layer emulates them and only binary semaphores reach the driver.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

#include "demo_report.h"
#include "support/vk_harness.h"
#include "support/vk_objects.h"

namespace {

constexpr const char* kTag = "demo-timeline";
constexpr uint32_t kPattern = 0x600DCAFE;
constexpr VkDeviceSize kBytes = 4096;

bool DeviceHasTimelines() {
  bindery::test::HarnessOptions options;
  options.bindery = false;
  options.api_version = VK_API_VERSION_1_2;
  bindery::test::VkHarness probe(options);
  if (!probe.ok()) return false;
  VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &v12};
  vkGetPhysicalDeviceFeatures2(probe.physical_device(), &features);
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(probe.physical_device(), &props);
  std::printf("%s: %s: timelineSemaphore %s\n", kTag, props.deviceName, v12.timelineSemaphore ? "VK_TRUE" : "VK_FALSE");
  return v12.timelineSemaphore == VK_TRUE;
}

bool Filled(const bindery::test::HostBuffer& b) {
  const auto* words = static_cast<const uint32_t*>(b.mapped);
  for (VkDeviceSize i = 0; i < kBytes / 4; ++i) {
    if (words[i] != kPattern) return false;
  }
  return true;
}

}  // namespace

int main() {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  if (!DeviceHasTimelines()) {
    return bindery::demo::Verdict(kTag, false, "the device has no timeline semaphores: the program cannot run");
  }
  VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  v12.timelineSemaphore = VK_TRUE;
  bindery::test::HarnessOptions options;
  options.bindery = false;
  options.api_version = VK_API_VERSION_1_2;
  options.device_pnext = &v12;
  options.queue_flags = VK_QUEUE_TRANSFER_BIT;
  bindery::test::VkHarness h(options);
  if (!h.ok()) return bindery::demo::Verdict(kTag, false, h.error());
  VkDevice d = h.device();

  VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO, nullptr, VK_SEMAPHORE_TYPE_TIMELINE, 0};
  VkSemaphoreCreateInfo sci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &type};
  VkSemaphore timeline = VK_NULL_HANDLE;
  if (vkCreateSemaphore(d, &sci, nullptr, &timeline) != VK_SUCCESS) {
    return bindery::demo::Verdict(kTag, false, "vkCreateSemaphore (timeline) failed");
  }
  bindery::test::HostBuffer buffer = h.CreateHostBuffer(kBytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  std::memset(buffer.mapped, 0, kBytes);

  VkCommandBuffer cb = h.BeginCommands();
  vkCmdFillBuffer(cb, buffer.buffer, 0, kBytes, kPattern);
  bindery::test::BarrierToHost(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
  vkEndCommandBuffer(cb);
  const uint64_t wait_value = 1, signal_value = 2;
  VkTimelineSemaphoreSubmitInfo values{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  values.waitSemaphoreValueCount = 1;
  values.pWaitSemaphoreValues = &wait_value;
  values.signalSemaphoreValueCount = 1;
  values.pSignalSemaphoreValues = &signal_value;
  const VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO, &values};
  si.waitSemaphoreCount = 1;
  si.pWaitSemaphores = &timeline;
  si.pWaitDstStageMask = &wait_stage;
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cb;
  si.signalSemaphoreCount = 1;
  si.pSignalSemaphores = &timeline;
  VkResult r = vkQueueSubmit(h.queue(), 1, &si, VK_NULL_HANDLE);
  std::printf("%s: submitted a fill that waits for value 1 (not signalled by anyone yet) and signals 2: %d\n", kTag,
              r);

  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  uint64_t value = 99;
  vkGetSemaphoreCounterValue(d, timeline, &value);
  const bool held = value == 0 && !Filled(buffer);
  std::printf("%s: 200 ms later: counter %llu, buffer %s\n", kTag, static_cast<unsigned long long>(value),
              Filled(buffer) ? "filled (the wait was not honoured)" : "untouched (the fill is held back)");

  VkSemaphoreSignalInfo signal{VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO, nullptr, timeline, 1};
  vkSignalSemaphore(d, &signal);
  VkSemaphoreWaitInfo wait{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
  wait.semaphoreCount = 1;
  wait.pSemaphores = &timeline;
  wait.pValues = &signal_value;
  const auto start = std::chrono::steady_clock::now();
  const VkResult waited = vkWaitSemaphores(d, &wait, 10ull * 1000 * 1000 * 1000);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  vkGetSemaphoreCounterValue(d, timeline, &value);
  const bool filled = Filled(buffer);
  std::printf("%s: host signalled 1; vkWaitSemaphores(value 2) = %d after %.1f ms; counter %llu; buffer %s\n", kTag,
              waited, ms, static_cast<unsigned long long>(value), filled ? "filled" : "NOT filled");

  vkQueueWaitIdle(h.queue());
  vkFreeCommandBuffers(d, h.command_pool(), 1, &cb);
  vkDestroySemaphore(d, timeline, nullptr);
  h.Destroy(buffer);
  h.DestroyDevice();
  size_t printed = 0;
  const size_t problems = bindery::demo::ReportValidation(kTag, h, &printed);
  if (r != VK_SUCCESS || waited != VK_SUCCESS) return bindery::demo::Verdict(kTag, false, "a call failed");
  if (!held) return bindery::demo::Verdict(kTag, false, "the fill ran before its wait was signalled");
  if (!filled || value != 2) return bindery::demo::Verdict(kTag, false, "the fill did not run after the signal");
  if (problems != 0) return bindery::demo::Verdict(kTag, false, "validation reported problems");
  return bindery::demo::Verdict(kTag, true, "held until the host signal, then ran; validation silent");
}
