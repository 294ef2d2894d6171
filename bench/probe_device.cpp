#include "probe_device.h"

#include <time.h>

#include <algorithm>
#include <utility>

namespace bindery::bench {
namespace {

constexpr uint64_t kFenceTimeoutNs = 60ull * 1000 * 1000 * 1000;

// shaderInt64 on, as an inference runtime enables it: the kernel rows then measure the
// rewrite's 64-bit path (indices past 4 GiB).
VkPhysicalDeviceFeatures Int64Features() {
  VkPhysicalDeviceFeatures f{};
  f.shaderInt64 = VK_TRUE;
  return f;
}

test::HarnessOptions ProbeOptions(bool bindery, const void* device_pnext, const VkPhysicalDeviceFeatures* features) {
  test::HarnessOptions o = BenchHarnessOptions(bindery, device_pnext);
  o.enabled_features = features;
  // The push-descriptor rows (probe_push_descriptors.cpp), where the device has it.
  o.optional_device_extensions = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
  return o;
}

}  // namespace

namespace {
std::vector<std::string>& RowFilter() {
  static std::vector<std::string> filter;
  return filter;
}
}  // namespace

void SetRowFilter(std::vector<std::string> substrings) { RowFilter() = std::move(substrings); }

bool RowWanted(const std::string& row) {
  const std::vector<std::string>& filter = RowFilter();
  if (filter.empty()) return true;
  for (const std::string& s : filter) {
    if (row.find(s) != std::string::npos) return true;
  }
  return false;
}

double Median(std::vector<double>& samples) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  return n % 2 == 1 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
}

double ThreadNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return 1e9 * static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec);
}

VkDescriptorSet AllocateProbeSet(const ProbeDevice& d, const ProbeKernel& k) {
  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.descriptorPool = k.pool;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &k.kernel.set_layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  return d.fn().AllocateDescriptorSets(d.device(), &alloc, &set) == VK_SUCCESS ? set : VK_NULL_HANDLE;
}

void WriteStorageSet(const ProbeDevice& d, VkDescriptorSet set, const DeviceBuffer* buffers, uint32_t count,
                     VkDeviceSize offset, VkDeviceSize range) {
  VkDescriptorBufferInfo infos[4];
  VkWriteDescriptorSet writes[4];
  for (uint32_t i = 0; i < count && i < 4; ++i) {
    infos[i] = {buffers[i].buffer, offset, range};
    writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[i].dstSet = set;
    writes[i].dstBinding = i;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  d.fn().UpdateDescriptorSets(d.device(), count < 4 ? count : 4, writes, 0, nullptr);
}

ProbeDevice::ProbeDevice(bool bindery) : bindery_(bindery), bda_(BdaFeatures()), features_(Int64Features()), harness_(ProbeOptions(bindery, &bda_, &features_)) {
  error_ = harness_.ok() ? Init() : harness_.error();
}

ProbeDevice::ProbeDevice(bool bindery, const test::HarnessOptions& options)
    : bindery_(bindery), bda_(BdaFeatures()), features_(Int64Features()), harness_(options) {
  error_ = harness_.ok() ? Init() : harness_.error();
}

std::string ProbeDevice::Init() {
  const VkDevice d = device();
  const bool ok = LoadRecordFns(d, &fn_) && LoadTransferCmdFns(d, &fn_) &&
                  LoadDeviceFn(d, "vkWaitForFences", &fn_.WaitForFences) &&
                  LoadDeviceFn(d, "vkResetFences", &fn_.ResetFences);
  if (!ok) return "vkGetDeviceProcAddr returned null for a core command";
  vkGetPhysicalDeviceProperties(physical_device(), &properties_);

  const std::string pool_error = CreatePoolAndCommandBuffer(d, harness_.queue_family(), &pool_, &cb_);
  if (!pool_error.empty()) return pool_error;
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  if (vkCreateFence(d, &fci, nullptr, &fence_) != VK_SUCCESS) return "vkCreateFence failed";

  uint32_t family_count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical_device(), &family_count, nullptr);
  std::vector<VkQueueFamilyProperties> families(family_count);
  vkGetPhysicalDeviceQueueFamilyProperties(physical_device(), &family_count, families.data());
  timestamps_ = harness_.queue_family() < family_count && families[harness_.queue_family()].timestampValidBits != 0 &&
                properties_.limits.timestampPeriod > 0;
  if (timestamps_) {
    VkQueryPoolCreateInfo qpci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qpci.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qpci.queryCount = 2;
    if (vkCreateQueryPool(d, &qpci, nullptr, &queries_) != VK_SUCCESS) timestamps_ = false;
  }
  return {};
}

ProbeDevice::~ProbeDevice() {
  const VkDevice d = device();
  if (d == VK_NULL_HANDLE) return;
  vkDeviceWaitIdle(d);
  if (queries_ != VK_NULL_HANDLE) vkDestroyQueryPool(d, queries_, nullptr);
  if (fence_ != VK_NULL_HANDLE) vkDestroyFence(d, fence_, nullptr);
  if (pool_ != VK_NULL_HANDLE) vkDestroyCommandPool(d, pool_, nullptr);
}

std::string ProbeDevice::Description() const {
  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props.pNext = &driver;
  vkGetPhysicalDeviceProperties2(physical_device(), &props);
  std::string out = props.properties.deviceName;
  if (driver.driverName[0] != '\0') {
    out += std::string("; driver ") + driver.driverName;
    if (driver.driverInfo[0] != '\0') out += std::string(" ") + driver.driverInfo;
  }
  return out;
}

bool ProbeDevice::Record(const std::function<bool(VkCommandBuffer)>& record) const {
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  if (fn_.ResetCommandPool(device(), pool_, 0) != VK_SUCCESS) return false;
  if (fn_.BeginCommandBuffer(cb_, &begin) != VK_SUCCESS) return false;
  const bool recorded = record(cb_);
  return fn_.EndCommandBuffer(cb_) == VK_SUCCESS && recorded;
}

bool ProbeDevice::SubmitAndWait() const {
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cb_;
  if (fn_.QueueSubmit(harness_.queue(), 1, &submit, fence_) != VK_SUCCESS) return false;
  const bool done = fn_.WaitForFences(device(), 1, &fence_, VK_TRUE, kFenceTimeoutNs) == VK_SUCCESS;
  return fn_.ResetFences(device(), 1, &fence_) == VK_SUCCESS && done;
}

double ProbeDevice::GpuNs(const std::function<bool(VkCommandBuffer)>& body) const {
  if (!timestamps_) return -1;
  const bool recorded = Record([&](VkCommandBuffer cb) {
    fn_.CmdResetQueryPool(cb, queries_, 0, 2);
    fn_.CmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries_, 0);
    const bool ok = body(cb);
    fn_.CmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, 1);
    return ok;
  });
  if (!recorded || !SubmitAndWait()) return -1;
  uint64_t t[2] = {};
  if (vkGetQueryPoolResults(device(), queries_, 0, 2, sizeof(t), t, sizeof(uint64_t),
                            VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) != VK_SUCCESS) {
    return -1;
  }
  return static_cast<double>(t[1] - t[0]) * properties_.limits.timestampPeriod;
}

ProbeKernel ProbeDevice::CreateKernel(const uint32_t* spirv, size_t bytes, uint32_t bindings, uint32_t push_bytes,
                                      uint32_t sets) {
  ProbeKernel k;
  k.bindings = bindings;
  k.kernel = harness_.CreateKernel(spirv, bytes, bindings, push_bytes);
  if (k.kernel.pipeline == VK_NULL_HANDLE || bindings == 0 || sets == 0) return k;  // no sets: no pool
  VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, bindings * sets};
  VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dpci.maxSets = sets;
  dpci.poolSizeCount = 1;
  dpci.pPoolSizes = &size;
  if (vkCreateDescriptorPool(device(), &dpci, nullptr, &k.pool) != VK_SUCCESS) harness_.Destroy(k.kernel);
  return k;
}

void ProbeDevice::Destroy(ProbeKernel& k) {
  if (k.pool != VK_NULL_HANDLE) vkDestroyDescriptorPool(device(), k.pool, nullptr);
  if (k.kernel.module != VK_NULL_HANDLE) harness_.Destroy(k.kernel);
  k = {};
}

DeviceBuffer ProbeDevice::CreateBuffer(VkDeviceSize size, VkBufferUsageFlags extra_usage) {
  std::string e;
  return CreateDeviceBuffer(physical_device(), device(), size,
                            VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                VK_BUFFER_USAGE_TRANSFER_DST_BIT | extra_usage,
                            &e);
}

}  // namespace bindery::bench
