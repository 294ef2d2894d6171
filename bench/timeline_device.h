// One device with timeline semaphores and the three timeline workloads the benchmarks
// measure (bindery_bench's timeline/* rows, bindery_probe's timeline group):
//   round trip  a submit waiting a value (made first: it waits before signal), the host
//               signal of that value, the host wait of the value the submit signals;
//   chained     kTimelineChain submits, each waiting the value the previous one signals,
//               then a host wait of the last value (reported per submit);
//   fan-out     kTimelineFanOut submissions waiting one value, one host signal releasing
//               them all, a host wait of all they signal;
//   binary floor  what the emulation sends the driver for the chained workload, made by
//               hand with binary semaphores and fences: per submit, a wait of the previous
//               submit's semaphore, two signalled semaphores (a point's direct and spare
//               one) and a fence; then one submit waiting the spares (unsignalling them)
//               and a fence wait (reported per chained submit). No emulation can chain
//               faster on that driver than this. Its variants drop the spare and/or keep
//               one fence per chain only, to price each object on a driver (with the layer
//               on, each fenced submit also gets the layer's fence watch: compare natively).
// Entry points come from vkGetDeviceProcAddr (as a performance-minded application calls
// them).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

#include "bench_harness.h"
#include "support/vk_harness.h"

namespace bindery::bench {

enum class TimelineMode { kNative, kPassThrough, kEmulated };
inline constexpr int kTimelineModes = 3;

inline constexpr uint32_t kTimelineChain = 32;   // submits per chained iteration
inline constexpr uint32_t kTimelineFanOut = 16;  // submissions waiting one host signal

class TimelineDevice {
 public:
  // `mode` sets BINDERY_TIMELINE for the device's instance (force for kEmulated, auto
  // otherwise).
  explicit TimelineDevice(TimelineMode mode);
  // Bindery by name or not; `timeline_setting` null leaves BINDERY_TIMELINE as the
  // environment has it (bindery_probe: scripts/bench-compare sets it per configuration).
  TimelineDevice(bool bindery, const char* timeline_setting);
  ~TimelineDevice();
  TimelineDevice(const TimelineDevice&) = delete;
  TimelineDevice& operator=(const TimelineDevice&) = delete;

  // Empty on success.
  std::string Init();

  VkDevice device() const { return harness_.device(); }
  VkPhysicalDevice physical_device() const { return harness_.physical_device(); }

  bool RoundTrip();
  // The same round trip with the time of each call added to phase_ns() (0: the submit,
  // 1: the host signal, 2: the host wait): where the round trip's time goes on a driver.
  bool RoundTripPhases();
  // The round trip with the host wait done by polling vkGetSemaphoreCounterValue instead of
  // blocking in vkWaitSemaphores: what a blocking wait's wake-up costs on a driver.
  bool RoundTripPolled();
  const uint64_t* phase_ns() const { return phase_ns_; }
  void ResetPhases() { phase_ns_[0] = phase_ns_[1] = phase_ns_[2] = 0; }
  bool Chain();
  bool FanOut();
  bool BinaryFloor() { return BinaryChain(2, true); }
  bool BinaryOneSignalFenced() { return BinaryChain(1, true); }
  bool BinaryTwoSignalsOneFence() { return BinaryChain(2, false); }
  bool BinaryOneSignalOneFence() { return BinaryChain(1, false); }

 private:
  VkSemaphore Create();
  std::string CreateBinaryFloorObjects();
  // kTimelineChain binary-chained submits, each signalling `signals` (1: the chain's, 2:
  // and a spare) with a fence each (`fence_each`) or none; then one submit waiting what is
  // left signalled, with the fence the host waits.
  bool BinaryChain(uint32_t signals, bool fence_each);
  bool Submit(VkSemaphore wait, uint64_t wait_value, VkSemaphore signal, uint64_t signal_value);
  bool Signal(VkSemaphore s, uint64_t value);
  bool Wait(const VkSemaphore* s, const uint64_t* values, uint32_t count);

  EnvOverride env_;  // before harness_: the instance reads it
  VkPhysicalDeviceVulkan12Features feature_;
  test::VkHarness harness_;
  PFN_vkQueueSubmit submit_ = nullptr;
  PFN_vkSignalSemaphore signal_ = nullptr;
  PFN_vkWaitSemaphores wait_ = nullptr;
  PFN_vkGetSemaphoreCounterValue counter_ = nullptr;
  uint64_t phase_ns_[3] = {0, 0, 0};
  std::vector<VkSemaphore> all_;
  VkSemaphore host_ = VK_NULL_HANDLE, done_ = VK_NULL_HANDLE, chain_ = VK_NULL_HANDLE;
  VkSemaphore fan_[kTimelineFanOut]{};
  // BinaryFloor: binary semaphores (the chain's and the spares) and fences.
  std::vector<VkSemaphore> binary_;
  std::vector<VkFence> fences_;
  uint64_t value_ = 0;        // host_, done_ and fan_ move together
  uint64_t chain_value_ = 0;  // chain_
};

}  // namespace bindery::bench
