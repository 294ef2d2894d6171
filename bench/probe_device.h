// bindery_probe's one device: a harness instance + device with VK_LAYER_bindery on or
// off (never validation), the device-level entry points the workloads call, a
// timestamp query pool and a fence. One process measures one configuration (the driver,
// scripts/bench-compare, runs each configuration in its own process), so nothing here
// knows about the others.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

#include "bench_harness.h"
#include "device_buffer.h"
#include "support/vk_harness.h"

namespace bindery::bench {

// Device-level entry points: the recording loops' (bench_harness.h) and the probes' own.
struct ProbeFns : RecordFns, TransferCmdFns {
  PFN_vkWaitForFences WaitForFences = nullptr;
  PFN_vkResetFences ResetFences = nullptr;
};

// A compute pipeline over `bindings` storage buffers in set 0 and `push_bytes` of push
// constants, with its own descriptor pool of `sets` sets.
struct ProbeKernel {
  test::ComputeKernel kernel;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  uint32_t bindings = 0;
};

class ProbeDevice {
 public:
  // Bindery on or off; the configuration's BINDERY_* settings come from the environment.
  explicit ProbeDevice(bool bindery);
  // A device made from `options` (its bindery flag is `bindery`'s): one shaped as a given
  // application makes its own (probe_ggml.cpp). What options point to must outlive it.
  ProbeDevice(bool bindery, const test::HarnessOptions& options);
  ~ProbeDevice();
  ProbeDevice(const ProbeDevice&) = delete;
  ProbeDevice& operator=(const ProbeDevice&) = delete;

  // Empty when ready, else what failed.
  const std::string& error() const { return error_; }
  bool bindery() const { return bindery_; }
  VkDevice device() const { return harness_.device(); }
  VkPhysicalDevice physical_device() const { return harness_.physical_device(); }
  const ProbeFns& fn() const { return fn_; }
  VkCommandBuffer command_buffer() const { return cb_; }
  bool is_cpu() const { return properties_.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU; }
  const VkPhysicalDeviceLimits& limits() const { return properties_.limits; }
  // "deviceName; driver driverName driverInfo".
  std::string Description() const;

  // Reset the pool, begin, record(cb), end. False if any step failed.
  bool Record(const std::function<bool(VkCommandBuffer)>& record) const;
  // Submits the recorded command buffer and waits for it. False on failure.
  bool SubmitAndWait() const;
  // Records timestamps (top of pipe / bottom of pipe) around `body`, runs it and returns
  // the GPU nanoseconds between them; negative on failure.
  double GpuNs(const std::function<bool(VkCommandBuffer)>& body) const;

  ProbeKernel CreateKernel(const uint32_t* spirv, size_t bytes, uint32_t bindings, uint32_t push_bytes,
                           uint32_t sets);
  void Destroy(ProbeKernel& k);
  // A buffer in the GPU's own memory (storage + transfer usage); empty on failure.
  DeviceBuffer CreateBuffer(VkDeviceSize size, VkBufferUsageFlags extra_usage = 0);
  void Destroy(DeviceBuffer& b) { DestroyDeviceBuffer(device(), b); }
  // A mapped host-visible buffer (the harness's); empty on failure.
  test::HostBuffer CreateHostBuffer(VkDeviceSize size, VkBufferUsageFlags usage) {
    return harness_.CreateHostBuffer(size, usage);
  }
  void Destroy(test::HostBuffer& b) { harness_.Destroy(b); }

 private:
  std::string Init();

  bool bindery_;
  VkPhysicalDeviceBufferDeviceAddressFeatures bda_;  // before harness_: it points here
  // shaderInt64, as inference runtimes enable it: rewritten shaders then carry 64-bit
  // addresses and indices (the path buffers beyond 4 GiB need), not uvec2 ones.
  VkPhysicalDeviceFeatures features_;  // before harness_: it points here
  test::VkHarness harness_;
  std::string error_;
  ProbeFns fn_;
  VkPhysicalDeviceProperties properties_{};
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cb_ = VK_NULL_HANDLE;
  VkQueryPool queries_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  bool timestamps_ = false;
};

// What one workload measured in this process: the row and the value (lower is better).
struct ProbeResult {
  std::string row;
  std::string unit;
  double value = 0;
};

// Which rows to measure (bindery_probe --rows): a row is measured when its name contains
// one of the substrings, or when none was given (every row). Profiling one row alone
// (scripts/profile-record) needs the others skipped.
void SetRowFilter(std::vector<std::string> substrings);
bool RowWanted(const std::string& row);

// Median of the samples (the samples are reordered).
double Median(std::vector<double>& samples);

// This thread's CPU time: a busy machine's preemptions do not count.
double ThreadNs();

// Median CPU ns per command of `record` (`commands` commands per command buffer) over
// `samples` recordings after `warm_up` ones; < 0 on failure.
template <typename Fn>
double PerCommandNs(const ProbeDevice& d, Fn&& record, int warm_up, int samples, uint32_t commands) {
  for (int i = 0; i < warm_up; ++i) {
    if (!d.Record(record)) return -1;
  }
  std::vector<double> ns;
  for (int i = 0; i < samples; ++i) {
    const double t0 = ThreadNs();
    if (!d.Record(record)) return -1;
    ns.push_back((ThreadNs() - t0) / commands);
  }
  return Median(ns);
}

// The record rows' shape (probe_record.cpp, probe_passthrough.cpp, probe_push_descriptors.cpp):
// kRecordCommands commands per command buffer, recorded kRecordWarmUp times, then timed
// kRecordSamples times. Median CPU ns per command of `record`; < 0 on failure.
inline constexpr uint32_t kRecordCommands = 1000;
inline constexpr int kRecordWarmUp = 10;
inline constexpr int kRecordSamples = 15;
template <typename Fn>
double PerRecordedCommandNs(const ProbeDevice& d, Fn&& record) {
  return PerCommandNs(d, record, kRecordWarmUp, kRecordSamples, kRecordCommands);
}

// Median GPU ns of `body` over `samples` runs after `warm_up` ones (the first also checks
// that timestamps work); < 0 on failure.
template <typename Fn>
double MedianGpuNs(const ProbeDevice& d, Fn&& body, int warm_up, int samples) {
  for (int i = 0; i < warm_up; ++i) {
    if (d.GpuNs(body) < 0) return -1;
  }
  std::vector<double> ns;
  for (int i = 0; i < samples; ++i) {
    const double one = d.GpuNs(body);
    if (one < 0) return -1;
    ns.push_back(one);
  }
  return Median(ns);
}

// A set of `k`'s layout from its own pool (through the device's entry points), or null.
VkDescriptorSet AllocateProbeSet(const ProbeDevice& d, const ProbeKernel& k);
// Writes `count` (at most 4) storage-buffer bindings of `set`: binding i is buffers[i]
// from `offset`, `range` bytes.
void WriteStorageSet(const ProbeDevice& d, VkDescriptorSet set, const DeviceBuffer* buffers, uint32_t count,
                     VkDeviceSize offset, VkDeviceSize range);

}  // namespace bindery::bench
