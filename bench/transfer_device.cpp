#include "transfer_device.h"

#include <cstdlib>
#include <utility>

namespace bindery::bench {
namespace {

// How long a submission may take before the device counts as hung (a 1 GiB compute copy
// on a CPU driver takes seconds, not minutes).
constexpr uint64_t kFenceTimeoutNs = 120ull * 1000 * 1000 * 1000;

// Sets environment variables for the lifetime of the object, then puts back what was
// there before (or unsets them).
class ScopedEnvironment {
 public:
  ScopedEnvironment() = default;
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;
  ~ScopedEnvironment() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->had_value) {
        setenv(it->name.c_str(), it->value.c_str(), 1);
      } else {
        unsetenv(it->name.c_str());
      }
    }
  }
  void Set(const char* name, const char* value) {
    const char* old = std::getenv(name);
    saved_.push_back({name, old != nullptr, old != nullptr ? old : ""});
    setenv(name, value, 1);
  }

 private:
  struct Saved {
    std::string name;
    bool had_value;
    std::string value;
  };
  std::vector<Saved> saved_;
};

const char* StrategyValue(TransferConfig config) {
  switch (config) {
    case TransferConfig::kBinderyAuto:
      return "auto";
    case TransferConfig::kBinderyNative:
      return "native";
    case TransferConfig::kBinderyCompute:
      return "compute";
    case TransferConfig::kNoLayer:
      break;
  }
  return nullptr;
}

}  // namespace

const char* ConfigName(TransferConfig config) {
  switch (config) {
    case TransferConfig::kNoLayer:
      return "no layer";
    case TransferConfig::kBinderyAuto:
      return "bindery auto";
    case TransferConfig::kBinderyNative:
      return "bindery native";
    case TransferConfig::kBinderyCompute:
      return "bindery compute";
  }
  return "?";
}

const char* ConfigSlug(TransferConfig config) {
  switch (config) {
    case TransferConfig::kNoLayer:
      return "no-layer";
    case TransferConfig::kBinderyAuto:
      return "bindery-auto";
    case TransferConfig::kBinderyNative:
      return "bindery-native";
    case TransferConfig::kBinderyCompute:
      return "bindery-compute";
  }
  return "?";
}

std::unique_ptr<TransferDevice> TransferDevice::Create(TransferConfig config, VkDeviceSize buffer_bytes,
                                                       std::string* error) {
  std::unique_ptr<TransferDevice> d(new TransferDevice(config));
  std::string e = d->Init(buffer_bytes);
  if (e.empty()) return d;
  *error = std::string(ConfigName(config)) + " device: " + e;
  return nullptr;
}

std::string TransferDevice::Init(VkDeviceSize buffer_bytes) {
  test::HarnessOptions options;
  options.bindery = UsesBindery(config_);
  options.validation = false;  // never measure the validation layer
  {
    ScopedEnvironment env;
    if (options.bindery) {
      env.Set("BINDERY_TRANSFERS", "auto");
      env.Set("BINDERY_TRANSFER_STRATEGY", StrategyValue(config_));
      // The layer names its transfer policy at debug level (device creation only); keep a
      // level the user chose.
      if (std::getenv("BINDERY_LOG_LEVEL") == nullptr) {
        env.Set("BINDERY_LOG_LEVEL", "debug");
        log_level_set_by_us_ = true;
      }
    }
    harness_ = std::make_unique<test::VkHarness>(options);
  }
  if (!harness_->ok()) return harness_->error();
  const VkDevice dev = device();

  const bool ok = LoadDeviceFn(dev, "vkResetCommandPool", &fn_.ResetCommandPool) &&
                  LoadDeviceFn(dev, "vkBeginCommandBuffer", &fn_.BeginCommandBuffer) &&
                  LoadDeviceFn(dev, "vkEndCommandBuffer", &fn_.EndCommandBuffer) && LoadTransferCmdFns(dev, &fn_);
  if (!ok) return "vkGetDeviceProcAddr returned null for a core command";

  // Timestamps on the harness's queue.
  uint32_t family_count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(harness_->physical_device(), &family_count, nullptr);
  std::vector<VkQueueFamilyProperties> families(family_count);
  vkGetPhysicalDeviceQueueFamilyProperties(harness_->physical_device(), &family_count, families.data());
  const uint32_t valid_bits = families[harness_->queue_family()].timestampValidBits;
  if (valid_bits == 0) return "the queue family has no timestamps (timestampValidBits 0)";
  timestamp_mask_ = valid_bits >= 64 ? ~0ull : (1ull << valid_bits) - 1;
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(harness_->physical_device(), &props);
  timestamp_period_ns_ = props.limits.timestampPeriod;

  VkQueryPoolCreateInfo qpci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  qpci.queryType = VK_QUERY_TYPE_TIMESTAMP;
  qpci.queryCount = 2;
  if (vkCreateQueryPool(dev, &qpci, nullptr, &queries_) != VK_SUCCESS) return "vkCreateQueryPool failed";
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  if (vkCreateFence(dev, &fci, nullptr, &fence_) != VK_SUCCESS) return "vkCreateFence failed";
  // Our own pool without RESET_COMMAND_BUFFER: the whole pool is reset per recording.
  VkCommandPoolCreateInfo cpci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  cpci.queueFamilyIndex = harness_->queue_family();
  if (vkCreateCommandPool(dev, &cpci, nullptr, &pool_) != VK_SUCCESS) return "vkCreateCommandPool failed";
  VkCommandBufferAllocateInfo cbai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cbai.commandPool = pool_;
  cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cbai.commandBufferCount = 1;
  if (vkAllocateCommandBuffers(dev, &cbai, &cb_) != VK_SUCCESS) return "vkAllocateCommandBuffers failed";

  constexpr VkBufferUsageFlags kUsage =
      VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  std::string error;
  src_ = CreateDeviceBuffer(harness_->physical_device(), dev, buffer_bytes, kUsage, &error);
  if (src_.buffer == VK_NULL_HANDLE) return "source buffer: " + error;
  dst_ = CreateDeviceBuffer(harness_->physical_device(), dev, buffer_bytes, kUsage, &error);
  if (dst_.buffer == VK_NULL_HANDLE) return "destination buffer: " + error;
  return {};
}

TransferDevice::~TransferDevice() { Shutdown(); }

std::string TransferDevice::Shutdown() {
  if (harness_ == nullptr) return {};
  const VkDevice dev = device();
  if (dev != VK_NULL_HANDLE) {
    vkDeviceWaitIdle(dev);
    DestroyDeviceBuffer(dev, src_);
    DestroyDeviceBuffer(dev, dst_);
    if (pool_ != VK_NULL_HANDLE) vkDestroyCommandPool(dev, pool_, nullptr);
    if (fence_ != VK_NULL_HANDLE) vkDestroyFence(dev, fence_, nullptr);
    if (queries_ != VK_NULL_HANDLE) vkDestroyQueryPool(dev, queries_, nullptr);
    pool_ = VK_NULL_HANDLE;
    cb_ = VK_NULL_HANDLE;
    fence_ = VK_NULL_HANDLE;
    queries_ = VK_NULL_HANDLE;
    harness_->DestroyDevice();
  }
  std::string summary;
  for (const test::Message& m : harness_->Messages()) {
    if (m.id != "BINDERY-summary") continue;
    summary = m.text;
    const std::string prefix = "device summary: ";
    if (summary.rfind(prefix, 0) == 0) summary.erase(0, prefix.size());
  }
  harness_.reset();
  return summary;
}

VkResult TransferDevice::Begin(bool one_time) {
  fn_.ResetCommandPool(device(), pool_, 0);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = one_time ? VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT : 0;
  return fn_.BeginCommandBuffer(cb_, &begin);
}

void TransferDevice::Barrier() const {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
  fn_.CmdPipelineBarrier(cb_, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &barrier, 0,
                         nullptr, 0, nullptr);
}

void TransferDevice::BarrierToHost() const {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  fn_.CmdPipelineBarrier(cb_, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0,
                         nullptr, 0, nullptr);
}

void TransferDevice::ResetTimestamps() const { fn_.CmdResetQueryPool(cb_, queries_, 0, 2); }

void TransferDevice::WriteTimestamp(uint32_t index, VkPipelineStageFlagBits stage) const {
  fn_.CmdWriteTimestamp(cb_, stage, queries_, index);
}

std::string TransferDevice::SubmitAndWait() {
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cb_;
  VkResult r = fn_.QueueSubmit(harness_->queue(), 1, &si, fence_);
  if (r != VK_SUCCESS) return "vkQueueSubmit failed: " + std::to_string(r);
  r = vkWaitForFences(device(), 1, &fence_, VK_TRUE, kFenceTimeoutNs);
  if (r == VK_TIMEOUT)
    return "the submission did not finish within " + std::to_string(kFenceTimeoutNs / 1000000000) + " s";
  if (r != VK_SUCCESS) return "vkWaitForFences failed: " + std::to_string(r);
  r = vkResetFences(device(), 1, &fence_);
  if (r != VK_SUCCESS) return "vkResetFences failed: " + std::to_string(r);
  return {};
}

std::string TransferDevice::ElapsedSeconds(double* seconds) const {
  uint64_t t[2] = {0, 0};
  const VkResult r = vkGetQueryPoolResults(device(), queries_, 0, 2, sizeof(t), t, sizeof(uint64_t),
                                           VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
  if (r != VK_SUCCESS) return "vkGetQueryPoolResults failed: " + std::to_string(r);
  const uint64_t ticks = (t[1] - t[0]) & timestamp_mask_;
  *seconds = static_cast<double>(ticks) * timestamp_period_ns_ * 1e-9;
  return {};
}

std::string TransferDevice::Description() const {
  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props.pNext = &driver;
  vkGetPhysicalDeviceProperties2(harness_->physical_device(), &props);
  std::string out = props.properties.deviceName;
  if (driver.driverName[0] != '\0') {
    out += std::string("; driver ") + driver.driverName;
    if (driver.driverInfo[0] != '\0') out += std::string(" ") + driver.driverInfo;
  }
  return out;
}

std::string TransferDevice::MemoryDescription() const {
  return "memory type " + std::to_string(dst_.memory_type) + " (" + MemoryFlagsName(dst_.memory_flags) + ")";
}

std::string TransferDevice::Policy() const {
  if (!UsesBindery(config_)) return {};
  for (const test::Message& m : harness_->Messages()) {
    if (m.id != "BINDERY-transfer-policy") continue;
    // "transfers on <device>: policy '...', kernels ...": the device is named elsewhere.
    const size_t at = m.text.find("policy '");
    return at == std::string::npos ? m.text : m.text.substr(at);
  }
  if (!log_level_set_by_us_) return "unknown (the layer logs its policy at BINDERY_LOG_LEVEL=debug)";
  return "unknown (the layer did not log a transfer policy: transfers off?)";
}

std::vector<std::string> TransferDevice::LayerProblems() const {
  std::vector<std::string> out;
  if (harness_ == nullptr) return out;
  for (const test::Message& m : harness_->Messages()) {
    if (m.severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT && m.id != "Loader Message") {
      out.push_back(m.id + ": " + m.text);
    }
  }
  return out;
}

}  // namespace bindery::bench
