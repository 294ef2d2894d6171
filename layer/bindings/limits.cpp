#include "bindings/limits.h"

#include <algorithm>

#include "bindings/bindings_capability.h"
#include "bindings/policy.h"
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
  l.maxStorageBufferRange = UINT32_MAX;
  l.maxBoundDescriptorSets = std::max(l.maxBoundDescriptorSets, RaisedBoundSets(l));
  l.maxPerStageDescriptorStorageBuffers = std::max(l.maxPerStageDescriptorStorageBuffers, kRaisedStorageBuffers);
  l.maxDescriptorSetStorageBuffers = std::max(l.maxDescriptorSetStorageBuffers, kRaisedStorageBuffers);
  l.maxPerStageResources = l.maxPerStageResources > UINT32_MAX - added ? UINT32_MAX : l.maxPerStageResources + added;
}

VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceProperties(VkPhysicalDevice pd, VkPhysicalDeviceProperties* props) {
  InstanceState* instance = nullptr;
  NextOf(pd, &instance).GetPhysicalDeviceProperties(pd, props);
  if (RaisesLimits(*instance, pd, *props)) RaiseLimits(props->limits);
}

VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceProperties2(VkPhysicalDevice pd, VkPhysicalDeviceProperties2* props) {
  InstanceState* instance = nullptr;
  NextOf(pd, &instance).GetPhysicalDeviceProperties2(pd, props);
  if (RaisesLimits(*instance, pd, props->properties)) RaiseLimits(props->properties.limits);
}

VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceProperties2KHR(VkPhysicalDevice pd, VkPhysicalDeviceProperties2* props) {
  InstanceState* instance = nullptr;
  NextOf(pd, &instance).GetPhysicalDeviceProperties2KHR(pd, props);
  if (RaisesLimits(*instance, pd, props->properties)) RaiseLimits(props->properties.limits);
}

}  // namespace bindery::bindings
