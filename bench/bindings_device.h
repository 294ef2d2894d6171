// One device of the indirect-bindings benchmarks (bindings_benchmarks.h): native (no
// layer) or VK_LAYER_bindery with BINDERY_INDIRECT_BINDINGS=force, with the buffers,
// kernels, sets and pre-recorded command buffers the workloads need, made up front so that
// the timed loops only submit or create pipelines.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

#include "bench_harness.h"
#include "device_buffer.h"
#include "support/vk_harness.h"

namespace bindery::bench {

inline constexpr uint32_t kTinyDispatches = 10000;  // dispatches in the tiny-dispatch command buffer

// Harness options of a benchmark device (bench_harness.h).
inline test::HarnessOptions BindingsHarnessOptions(bool bindery, const void* device_pnext = nullptr) {
  return BenchHarnessOptions(bindery, device_pnext);
}

class BindingsDevice {
 public:
  explicit BindingsDevice(bool forced);
  ~BindingsDevice();
  BindingsDevice(const BindingsDevice&) = delete;
  BindingsDevice& operator=(const BindingsDevice&) = delete;

  // Empty on success. Runs both bandwidth kernels once and checks their result where the
  // memory can be read.
  std::string Init();

  const std::string& description() const { return description_; }
  uint64_t buffer_bytes() const { return buffer_bytes_; }

  // GPU seconds of one axpy pass (timestamps): descriptors, or the hand-written pointers.
  bool Bandwidth(bool pointers, double* seconds);
  // One submission of the kTinyDispatches command buffer, waited.
  bool Tiny();
  // A module never seen before (a patched constant) and a pipeline from it.
  bool CreateCold();
  // The same module again (its rewrite is cached on the forced side).
  bool CreateCached();

 private:
  // Driver shader disk caches off on both sides (Mesa, NVIDIA): pipeline creation must
  // compile, the same way in both columns.
  struct NoDriverCaches {
    EnvOverride mesa{"MESA_SHADER_CACHE_DISABLE", "true"};
    EnvOverride nvidia{"__GL_SHADER_DISK_CACHE", "0"};
  };

  bool SubmitWait(VkCommandBuffer cb);
  bool CreatePipeline(VkShaderModule module);
  std::string Record();

  EnvOverride env_;      // before harness_: the instance reads it
  EnvOverride ubo_env_;  // storage buffers only, whatever the caller's environment says
  VkPhysicalDeviceBufferDeviceAddressFeatures bda_;  // before harness_: it points here
  NoDriverCaches no_caches_;
  test::VkHarness harness_;
  std::string description_;
  double timestamp_period_ns_ = 1;
  uint64_t buffer_bytes_ = 0;
  DeviceBuffer buffers_[3];
  DeviceBuffer pointer_buffers_[3];  // the pointer kernel's, with addresses
  test::ComputeKernel axpy_, tiny_, pointers_;
  VkDescriptorSet set_ = VK_NULL_HANDLE, tiny_set_ = VK_NULL_HANDLE;
  VkQueryPool queries_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkCommandBuffer axpy_cb_ = VK_NULL_HANDLE, tiny_cb_ = VK_NULL_HANDLE, pointers_cb_ = VK_NULL_HANDLE;
  std::vector<uint32_t> axpy_words_;
  size_t magic_word_ = 0;
  uint32_t cold_counter_ = 0;
};

}  // namespace bindery::bench
