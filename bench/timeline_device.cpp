#include "timeline_device.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iterator>

namespace bindery::bench {

namespace {

constexpr uint64_t kWaitNs = 5'000'000'000ull;  // a wait that takes this long is a failure

VkPhysicalDeviceVulkan12Features TimelineFeature() {
  VkPhysicalDeviceVulkan12Features f{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  f.timelineSemaphore = VK_TRUE;
  return f;
}

}  // namespace

TimelineDevice::TimelineDevice(TimelineMode mode)
    : TimelineDevice(mode != TimelineMode::kNative, mode == TimelineMode::kEmulated ? "force" : "auto") {}

TimelineDevice::TimelineDevice(bool bindery, const char* timeline_setting)
    : env_("BINDERY_TIMELINE", timeline_setting != nullptr ? timeline_setting : std::getenv("BINDERY_TIMELINE")),
      feature_(TimelineFeature()),
      harness_(BenchHarnessOptions(bindery, &feature_)) {}

TimelineDevice::~TimelineDevice() {
  if (harness_.device() == VK_NULL_HANDLE) return;
  vkDeviceWaitIdle(harness_.device());
  for (VkSemaphore s : all_) vkDestroySemaphore(harness_.device(), s, nullptr);
  for (VkSemaphore s : binary_) vkDestroySemaphore(harness_.device(), s, nullptr);
  for (VkFence f : fences_) vkDestroyFence(harness_.device(), f, nullptr);
}

std::string TimelineDevice::CreateBinaryFloorObjects() {
  // The chain's semaphores (kTimelineChain + 1) and one spare per submit.
  binary_.assign(2 * kTimelineChain + 1, VK_NULL_HANDLE);
  fences_.assign(kTimelineChain + 1, VK_NULL_HANDLE);
  VkSemaphoreCreateInfo si{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  for (VkSemaphore& s : binary_) {
    if (vkCreateSemaphore(harness_.device(), &si, nullptr, &s) != VK_SUCCESS) return "vkCreateSemaphore failed";
  }
  VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  for (VkFence& f : fences_) {
    if (vkCreateFence(harness_.device(), &fi, nullptr, &f) != VK_SUCCESS) return "vkCreateFence failed";
  }
  return {};
}

bool TimelineDevice::BinaryChain(uint32_t signals, bool fence_each) {
  VkPipelineStageFlags all[kTimelineChain + 1];
  std::fill(std::begin(all), std::end(all), VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
  VkSemaphore* chain = binary_.data();                      // kTimelineChain + 1
  VkSemaphore* spares = binary_.data() + kTimelineChain + 1;  // kTimelineChain
  for (uint32_t i = 0; i < kTimelineChain; ++i) {
    VkSemaphore out[2] = {chain[i + 1], spares[i]};
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    if (i > 0) {
      submit.waitSemaphoreCount = 1;
      submit.pWaitSemaphores = &chain[i];
      submit.pWaitDstStageMask = all;
    }
    submit.signalSemaphoreCount = signals;
    submit.pSignalSemaphores = out;
    if (submit_(harness_.queue(), 1, &submit, fence_each ? fences_[i] : VK_NULL_HANDLE) != VK_SUCCESS) return false;
  }
  // Every semaphore still signalled is waited once, so the next call starts unsignalled.
  VkSemaphore left[kTimelineChain + 1];
  uint32_t count = 0;
  if (signals == 2) {
    std::copy(spares, spares + kTimelineChain, left);
    count = kTimelineChain;
  }
  left[count++] = chain[kTimelineChain];
  VkSubmitInfo unsignal{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  unsignal.waitSemaphoreCount = count;
  unsignal.pWaitSemaphores = left;
  unsignal.pWaitDstStageMask = all;
  if (submit_(harness_.queue(), 1, &unsignal, fences_[kTimelineChain]) != VK_SUCCESS) return false;
  const VkDevice d = harness_.device();
  if (vkWaitForFences(d, 1, &fences_[kTimelineChain], VK_TRUE, kWaitNs) != VK_SUCCESS) return false;
  if (!fence_each) return vkResetFences(d, 1, &fences_[kTimelineChain]) == VK_SUCCESS;
  return vkResetFences(d, static_cast<uint32_t>(fences_.size()), fences_.data()) == VK_SUCCESS;
}

std::string TimelineDevice::Init() {
  if (!harness_.ok()) return harness_.error();
  const VkDevice d = harness_.device();
  submit_ = reinterpret_cast<PFN_vkQueueSubmit>(vkGetDeviceProcAddr(d, "vkQueueSubmit"));
  signal_ = reinterpret_cast<PFN_vkSignalSemaphore>(vkGetDeviceProcAddr(d, "vkSignalSemaphore"));
  wait_ = reinterpret_cast<PFN_vkWaitSemaphores>(vkGetDeviceProcAddr(d, "vkWaitSemaphores"));
  counter_ = reinterpret_cast<PFN_vkGetSemaphoreCounterValue>(vkGetDeviceProcAddr(d, "vkGetSemaphoreCounterValue"));
  if (submit_ == nullptr || signal_ == nullptr || wait_ == nullptr || counter_ == nullptr) {
    return "vkGetDeviceProcAddr returned null";
  }
  host_ = Create();
  done_ = Create();
  chain_ = Create();
  for (VkSemaphore& s : fan_) s = Create();
  for (VkSemaphore s : all_) {
    if (s == VK_NULL_HANDLE) return "vkCreateSemaphore (timeline) failed";
  }
  return CreateBinaryFloorObjects();
}

bool TimelineDevice::RoundTrip() {
  ++value_;
  if (!Submit(host_, value_, done_, value_)) return false;
  if (!Signal(host_, value_)) return false;
  return Wait(&done_, &value_, 1);
}

bool TimelineDevice::RoundTripPhases() {
  using Clock = std::chrono::steady_clock;
  auto ns = [](Clock::time_point a, Clock::time_point b) {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count());
  };
  ++value_;
  const Clock::time_point t0 = Clock::now();
  if (!Submit(host_, value_, done_, value_)) return false;
  const Clock::time_point t1 = Clock::now();
  if (!Signal(host_, value_)) return false;
  const Clock::time_point t2 = Clock::now();
  if (!Wait(&done_, &value_, 1)) return false;
  const Clock::time_point t3 = Clock::now();
  phase_ns_[0] += ns(t0, t1);
  phase_ns_[1] += ns(t1, t2);
  phase_ns_[2] += ns(t2, t3);
  return true;
}

bool TimelineDevice::RoundTripPolled() {
  ++value_;
  if (!Submit(host_, value_, done_, value_)) return false;
  if (!Signal(host_, value_)) return false;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::nanoseconds(kWaitNs);
  for (uint64_t v = 0;;) {
    if (counter_(harness_.device(), done_, &v) != VK_SUCCESS) return false;
    if (v >= value_) return true;
    if (std::chrono::steady_clock::now() > give_up) return false;
  }
}

bool TimelineDevice::Chain() {
  for (uint32_t i = 0; i < kTimelineChain; ++i) {
    if (!Submit(chain_, chain_value_, chain_, chain_value_ + 1)) return false;
    ++chain_value_;
  }
  return Wait(&chain_, &chain_value_, 1);
}

bool TimelineDevice::FanOut() {
  ++value_;
  for (VkSemaphore s : fan_) {
    if (!Submit(host_, value_, s, value_)) return false;
  }
  if (!Signal(host_, value_)) return false;
  uint64_t values[kTimelineFanOut];
  std::fill(std::begin(values), std::end(values), value_);
  return Wait(fan_, values, kTimelineFanOut);
}

VkSemaphore TimelineDevice::Create() {
  VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  info.pNext = &type;
  VkSemaphore s = VK_NULL_HANDLE;
  if (vkCreateSemaphore(harness_.device(), &info, nullptr, &s) != VK_SUCCESS) s = VK_NULL_HANDLE;
  all_.push_back(s);
  return s;
}

bool TimelineDevice::Submit(VkSemaphore wait, uint64_t wait_value, VkSemaphore signal, uint64_t signal_value) {
  VkTimelineSemaphoreSubmitInfo values{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  values.waitSemaphoreValueCount = 1;
  values.pWaitSemaphoreValues = &wait_value;
  values.signalSemaphoreValueCount = 1;
  values.pSignalSemaphoreValues = &signal_value;
  const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.pNext = &values;
  submit.waitSemaphoreCount = 1;
  submit.pWaitSemaphores = &wait;
  submit.pWaitDstStageMask = &stage;
  submit.signalSemaphoreCount = 1;
  submit.pSignalSemaphores = &signal;
  return submit_(harness_.queue(), 1, &submit, VK_NULL_HANDLE) == VK_SUCCESS;
}

bool TimelineDevice::Signal(VkSemaphore s, uint64_t value) {
  VkSemaphoreSignalInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
  info.semaphore = s;
  info.value = value;
  return signal_(harness_.device(), &info) == VK_SUCCESS;
}

bool TimelineDevice::Wait(const VkSemaphore* s, const uint64_t* values, uint32_t count) {
  VkSemaphoreWaitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
  info.semaphoreCount = count;
  info.pSemaphores = s;
  info.pValues = values;
  return wait_(harness_.device(), &info, kWaitNs) == VK_SUCCESS;
}

}  // namespace bindery::bench
