// One device per transfer-benchmark configuration: no layer, or VK_LAYER_bindery with
// one transfer strategy. The layer reads its settings (BINDERY_* environment variables)
// at vkCreateInstance, so each configuration has its own instance, created with the
// variables set and restored afterwards.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

#include "bench_harness.h"
#include "device_buffer.h"
#include "support/vk_harness.h"

namespace bindery::bench {

enum class TransferConfig { kNoLayer = 0, kBinderyAuto, kBinderyNative, kBinderyCompute };
inline constexpr TransferConfig kTransferConfigs[] = {TransferConfig::kNoLayer, TransferConfig::kBinderyAuto,
                                                      TransferConfig::kBinderyNative, TransferConfig::kBinderyCompute};
inline constexpr size_t kTransferConfigCount = 4;

const char* ConfigName(TransferConfig config);  // "no layer", "bindery auto", ...
const char* ConfigSlug(TransferConfig config);  // "no-layer", "bindery-auto", ... (benchmark names)
inline bool UsesBindery(TransferConfig config) { return config != TransferConfig::kNoLayer; }

// Entry points from vkGetDeviceProcAddr: with the layer on they go straight into it.
struct TransferFns : TransferCmdFns {
  PFN_vkResetCommandPool ResetCommandPool = nullptr;
  PFN_vkBeginCommandBuffer BeginCommandBuffer = nullptr;
  PFN_vkEndCommandBuffer EndCommandBuffer = nullptr;
};

class TransferDevice {
 public:
  // Two device-local buffers (src, dst) of `buffer_bytes` each. Null + *error on failure.
  static std::unique_ptr<TransferDevice> Create(TransferConfig config, VkDeviceSize buffer_bytes, std::string* error);
  ~TransferDevice();
  TransferDevice(const TransferDevice&) = delete;
  TransferDevice& operator=(const TransferDevice&) = delete;

  TransferConfig config() const { return config_; }
  const TransferFns& fn() const { return fn_; }
  VkDevice device() const { return harness_->device(); }
  test::VkHarness& harness() { return *harness_; }
  const DeviceBuffer& src() const { return src_; }
  const DeviceBuffer& dst() const { return dst_; }
  VkCommandBuffer command_buffer() const { return cb_; }

  // Resets the pool and begins the command buffer; `one_time`: ONE_TIME_SUBMIT, else it
  // may be submitted again and again.
  VkResult Begin(bool one_time);
  VkResult End() { return fn_.EndCommandBuffer(cb_); }
  // A full ALL_COMMANDS -> ALL_COMMANDS memory barrier (writes before it visible after).
  void Barrier() const;
  // A barrier that makes all device writes visible to host reads.
  void BarrierToHost() const;
  void ResetTimestamps() const;
  void WriteTimestamp(uint32_t index, VkPipelineStageFlagBits stage) const;
  // Submits the command buffer and waits for it; "" on success, else what failed.
  std::string SubmitAndWait();
  // Seconds between timestamps 0 and 1 of the last completed submission.
  std::string ElapsedSeconds(double* seconds) const;

  // "deviceName; driver driverName driverInfo".
  std::string Description() const;
  std::string MemoryDescription() const;  // memory type of the benchmark buffers
  // The layer's transfer policy line, or why it is unknown ("" without the layer).
  std::string Policy() const;
  // Warnings and errors the layer reported so far (id: text).
  std::vector<std::string> LayerProblems() const;
  // Destroys the device; returns the layer's device summary (its counters), if it sent one.
  std::string Shutdown();

  // Set once a submission failed or hung: later benchmarks on this device are skipped.
  bool broken = false;
  std::string broken_reason;

 private:
  explicit TransferDevice(TransferConfig config) : config_(config) {}
  std::string Init(VkDeviceSize buffer_bytes);

  TransferConfig config_;
  bool log_level_set_by_us_ = false;
  std::unique_ptr<test::VkHarness> harness_;
  TransferFns fn_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cb_ = VK_NULL_HANDLE;
  VkQueryPool queries_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  double timestamp_period_ns_ = 1.0;
  uint64_t timestamp_mask_ = ~0ull;
  DeviceBuffer src_, dst_;
};

}  // namespace bindery::bench
