#include "bindings/device/limits.h"

#include <algorithm>

#include "bindings/device/bindings_capability.h"
#include "bindings/model/policy.h"
#include "chassis/state.h"

namespace bindery::bindings {
namespace {

const VkLayerInstanceDispatchTable& NextOf(VkPhysicalDevice pd, InstanceState** instance) {
  *instance = StateRegistry::Get().FindInstance(pd);
  return (*instance)->Next(BindingsCapability().slot());
}

// Will indirect bindings convert every layout on this physical device (the policy), and
// can it run there (the same test PlanDevice makes)? Only then are the limits honoured
// whatever the application does with them.
bool RaisesLimits(const InstanceState& instance, VkPhysicalDevice pd, const VkPhysicalDeviceProperties& props) {
  // The driver id is not asked for here (it would take another query per call): the
  // vendor id decides, as ChooseBindingsPolicy does when the driver id is unknown.
  if (!ChooseBindingsPolicy(instance.settings.indirect_bindings, props.vendorID, VkDriverId(0)).convert_everything) {
    return false;
  }
  PFN_vkGetPhysicalDeviceFeatures2 features2 = instance.Features2();
  if (features2 == nullptr) return false;
  VkPhysicalDeviceBufferDeviceAddressFeatures bda{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES};
  VkPhysicalDeviceFeatures2 query{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &bda};
  features2(pd, &query);
  return bda.bufferDeviceAddress == VK_TRUE;
}

// The largest storage-buffer range the device can serve: a record carries a 64-bit size,
// but a buffer cannot be larger than the device can create (maxBufferSize), back with one
// allocation (maxMemoryAllocationSize) or hold in its largest heap — and a client that
// derives its own limits from this one (zink: GL's shader-storage block size) will use a
// block of exactly that size. Never below the driver's own value.
//
// lavapipe (Mesa 22.3) sizes its buffer work in 32-bit signed integers and crashes in its
// queue thread (a memcpy) on a buffer of 2^31 bytes, its maxMemoryAllocationSize. zink over
// it, given 2 GiB, reports GL's block limit as INT_MAX, and Mesa's GL linker reads a block one
// vec4 larger (2^31 bytes) as a negative int: a vertex-stage block beyond the limit links
// (piglit's max-ssbo-size vsexceed) and its 2^31-byte buffer reaches the driver. There the
// range is at most 1 GiB, which the driver delivers (vs/fs at the limit pass) and from which
// a client's one-element overshoot is still a buffer the driver handles and a size no int
// wraps.
constexpr VkDeviceSize kLavapipeRange = VkDeviceSize{1} << 30;

uint32_t ServableStorageRange(const InstanceState& instance, VkPhysicalDevice pd, uint32_t driver_range) {
  VkDeviceSize range = UINT32_MAX;
  if (PFN_vkGetPhysicalDeviceProperties2 properties2 = instance.Properties2()) {
    VkPhysicalDeviceProperties core{};
    instance.dispatch.GetPhysicalDeviceProperties(pd, &core);
    VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceMaintenance4Properties m4{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES};
    VkPhysicalDeviceMaintenance3Properties m3{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES, &m4};
    // The driver's id is core from 1.2 (the only drivers whose id matters here are 1.3).
    if (core.apiVersion >= VK_API_VERSION_1_2) m4.pNext = &driver;
    VkPhysicalDeviceProperties2 query{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &m3};
    properties2(pd, &query);
    if (m3.maxMemoryAllocationSize != 0) range = std::min(range, m3.maxMemoryAllocationSize);
    if (m4.maxBufferSize != 0) range = std::min(range, m4.maxBufferSize);
    if (driver.driverID == VK_DRIVER_ID_MESA_LLVMPIPE) range = std::min<VkDeviceSize>(range, kLavapipeRange);
  }
  VkPhysicalDeviceMemoryProperties memory{};
  instance.dispatch.GetPhysicalDeviceMemoryProperties(pd, &memory);
  VkDeviceSize largest_heap = 0;
  for (uint32_t i = 0; i < memory.memoryHeapCount; ++i) largest_heap = std::max(largest_heap, memory.memoryHeaps[i].size);
  if (largest_heap != 0) range = std::min(range, largest_heap);
  return static_cast<uint32_t>(std::max<VkDeviceSize>(range, driver_range));
}

void Raise(const InstanceState& instance, VkPhysicalDevice pd, VkPhysicalDeviceLimits& limits) {
  const uint32_t driver_range = limits.maxStorageBufferRange;
  RaiseLimits(limits);
  limits.maxStorageBufferRange = ServableStorageRange(instance, pd, driver_range);
}

}  // namespace

bool ConvertsEveryLayout(const InstanceState& instance, VkPhysicalDevice pd) {
  if (instance.settings.indirect_bindings == Mode::kOff) return false;
  VkPhysicalDeviceProperties props{};
  instance.dispatch.GetPhysicalDeviceProperties(pd, &props);
  return RaisesLimits(instance, pd, props);
}

void RaiseLimits(VkPhysicalDeviceLimits& l) {
  const uint32_t added = kRaisedStorageBuffers > l.maxPerStageDescriptorStorageBuffers
                             ? kRaisedStorageBuffers - l.maxPerStageDescriptorStorageBuffers
                             : 0;
  l.maxStorageBufferRange = UINT32_MAX;  // bounded by what the device can serve (ServableStorageRange)
  l.maxPerStageDescriptorStorageBuffers = std::max(l.maxPerStageDescriptorStorageBuffers, kRaisedStorageBuffers);
  l.maxDescriptorSetStorageBuffers = std::max(l.maxDescriptorSetStorageBuffers, kRaisedStorageBuffers);
  l.maxPerStageResources = l.maxPerStageResources > UINT32_MAX - added ? UINT32_MAX : l.maxPerStageResources + added;
}

VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceProperties(VkPhysicalDevice pd, VkPhysicalDeviceProperties* props) {
  InstanceState* instance = nullptr;
  NextOf(pd, &instance).GetPhysicalDeviceProperties(pd, props);
  if (RaisesLimits(*instance, pd, *props)) Raise(*instance, pd, props->limits);
}

VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceProperties2(VkPhysicalDevice pd, VkPhysicalDeviceProperties2* props) {
  InstanceState* instance = nullptr;
  NextOf(pd, &instance).GetPhysicalDeviceProperties2(pd, props);
  if (RaisesLimits(*instance, pd, props->properties)) Raise(*instance, pd, props->properties.limits);
}

VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceProperties2KHR(VkPhysicalDevice pd, VkPhysicalDeviceProperties2* props) {
  InstanceState* instance = nullptr;
  NextOf(pd, &instance).GetPhysicalDeviceProperties2KHR(pd, props);
  if (RaisesLimits(*instance, pd, props->properties)) Raise(*instance, pd, props->properties.limits);
}

}  // namespace bindery::bindings
