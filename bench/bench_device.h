// One benchmark device: a harness instance + device with VK_LAYER_bindery on or off
// (never validation), plus everything the record workloads need, created up front so
// that the timed loops only record.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <vulkan/vulkan.h>

#include "bench_harness.h"
#include "support/vk_harness.h"

namespace bindery::bench {

// Dispatches recorded into one command buffer per benchmark iteration.
inline constexpr uint32_t kDispatchesPerIteration = 1000;
// Sets written once at setup that the pre-built-sets workload binds in turn.
inline constexpr uint32_t kPrebuiltSets = 16;

// The recording loops' entry points (bench_harness.h).
using DeviceFns = RecordFns;

class BenchDevice {
 public:
  // Returns null and fills *error when anything fails.
  static std::unique_ptr<BenchDevice> Create(bool bindery, std::string* error);
  ~BenchDevice();
  BenchDevice(const BenchDevice&) = delete;
  BenchDevice& operator=(const BenchDevice&) = delete;

  bool bindery() const { return bindery_; }
  VkDevice device() const { return harness_.device(); }
  const DeviceFns& fn() const { return fn_; }
  VkCommandPool command_pool() const { return command_pool_; }
  VkCommandBuffer command_buffer() const { return command_buffer_; }
  VkDescriptorPool set_pool() const { return set_pool_; }
  const test::ComputeKernel& four_buffers() const { return four_buffers_; }
  const test::ComputeKernel& push_addresses() const { return push_addresses_; }
  const test::HostBuffer& buffer(int i) const { return buffers_[i]; }
  // Set i of four_buffers()'s layout, written once with the four buffers.
  VkDescriptorSet prebuilt_set(uint32_t i) const { return prebuilt_sets_[i]; }
  // "deviceName; driver driverName driverInfo" from VkPhysicalDevice[Driver]Properties.
  std::string Description() const;

 private:
  explicit BenchDevice(bool bindery);
  std::string Init();

  bool bindery_;
  VkPhysicalDeviceBufferDeviceAddressFeatures bda_features_;  // before harness_: it points here
  test::VkHarness harness_;
  DeviceFns fn_;
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  VkCommandBuffer command_buffer_ = VK_NULL_HANDLE;
  VkDescriptorPool set_pool_ = VK_NULL_HANDLE;
  test::ComputeKernel four_buffers_;
  test::ComputeKernel push_addresses_;
  test::HostBuffer buffers_[4];
  VkDescriptorSet prebuilt_sets_[kPrebuiltSets] = {};
};

}  // namespace bindery::bench
