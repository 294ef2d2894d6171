#include "bench_device.h"

#include <vector>

#include "four_buffers_spv.h"
#include "push_addresses_spv.h"

namespace bindery::bench {

BenchDevice::BenchDevice(bool bindery)
    : bindery_(bindery), bda_features_(BdaFeatures()), harness_(BenchHarnessOptions(bindery, &bda_features_)) {}

std::unique_ptr<BenchDevice> BenchDevice::Create(bool bindery, std::string* error) {
  std::unique_ptr<BenchDevice> d(new BenchDevice(bindery));
  std::string e = d->harness_.ok() ? d->Init() : d->harness_.error();
  if (e.empty()) return d;
  *error = std::string(bindery ? "bindery" : "no-layer") + " device: " + e;
  return nullptr;
}

std::string BenchDevice::Init() {
  const VkDevice dev = device();
  const bool ok = LoadRecordFns(dev, &fn_);
  if (!ok) return "vkGetDeviceProcAddr returned null for a core command";

  // A pool of our own without RESET_COMMAND_BUFFER: the workloads reset the whole pool.
  const std::string pool_error = CreatePoolAndCommandBuffer(dev, harness_.queue_family(), &command_pool_, &command_buffer_);
  if (!pool_error.empty()) return pool_error;

  // One set per dispatch, four storage buffers each; reset (not freed) per iteration.
  VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 4 * kDispatchesPerIteration};
  VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dpci.maxSets = kDispatchesPerIteration;
  dpci.poolSizeCount = 1;
  dpci.pPoolSizes = &size;
  if (vkCreateDescriptorPool(dev, &dpci, nullptr, &set_pool_) != VK_SUCCESS) return "vkCreateDescriptorPool failed";

  for (test::HostBuffer& b : buffers_) {
    b = harness_.CreateHostBuffer(64 * 1024, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    if (b.buffer == VK_NULL_HANDLE) return "could not create a 64 KiB storage buffer";
  }
  four_buffers_ = harness_.CreateKernel(four_buffers_spv, sizeof(four_buffers_spv), 4);
  if (four_buffers_.pipeline == VK_NULL_HANDLE) return "could not create the four_buffers.comp pipeline";
  push_addresses_ = harness_.CreateKernel(push_addresses_spv, sizeof(push_addresses_spv), 0, 32);
  if (push_addresses_.pipeline == VK_NULL_HANDLE) return "could not create the push_addresses.comp pipeline";
  for (VkDescriptorSet& set : prebuilt_sets_) {
    set = harness_.AllocateStorageSet(four_buffers_, {buffers_[0].buffer, buffers_[1].buffer, buffers_[2].buffer,
                                                      buffers_[3].buffer});
    if (set == VK_NULL_HANDLE) return "could not allocate the pre-built descriptor sets";
  }
  return {};
}

BenchDevice::~BenchDevice() {
  const VkDevice dev = device();
  if (dev == VK_NULL_HANDLE) return;
  vkDeviceWaitIdle(dev);
  if (four_buffers_.module != VK_NULL_HANDLE) harness_.Destroy(four_buffers_);
  if (push_addresses_.module != VK_NULL_HANDLE) harness_.Destroy(push_addresses_);
  for (test::HostBuffer& b : buffers_) harness_.Destroy(b);
  if (set_pool_ != VK_NULL_HANDLE) vkDestroyDescriptorPool(dev, set_pool_, nullptr);
  if (command_pool_ != VK_NULL_HANDLE) vkDestroyCommandPool(dev, command_pool_, nullptr);
}

std::string BenchDevice::Description() const {
  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props.pNext = &driver;
  vkGetPhysicalDeviceProperties2(harness_.physical_device(), &props);
  std::string out = props.properties.deviceName;
  if (driver.driverName[0] != '\0') {
    out += std::string("; driver ") + driver.driverName;
    if (driver.driverInfo[0] != '\0') out += std::string(" ") + driver.driverInfo;
  }
  return out;
}

}  // namespace bindery::bench
