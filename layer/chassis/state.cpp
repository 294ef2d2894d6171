#include "chassis/state.h"

#include <cstring>

#include "chassis/trackers.h"

namespace bindery {

namespace {
bool Contains(const std::vector<std::string>& names, const char* name) {
  for (const std::string& n : names) {
    if (n == name) return true;
  }
  return false;
}
}  // namespace

bool InstanceState::ExtensionEnabled(const char* name) const { return Contains(enabled_extensions, name); }

PFN_vkGetPhysicalDeviceFeatures2 InstanceState::Features2() const {
  if (api_version >= VK_API_VERSION_1_1 && dispatch.GetPhysicalDeviceFeatures2 != nullptr) {
    return dispatch.GetPhysicalDeviceFeatures2;
  }
  return ExtensionEnabled(VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME)
             ? dispatch.GetPhysicalDeviceFeatures2KHR
             : nullptr;
}

PFN_vkGetPhysicalDeviceProperties2 InstanceState::Properties2() const {
  if (api_version >= VK_API_VERSION_1_1 && dispatch.GetPhysicalDeviceProperties2 != nullptr) {
    return dispatch.GetPhysicalDeviceProperties2;
  }
  return ExtensionEnabled(VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME)
             ? dispatch.GetPhysicalDeviceProperties2KHR
             : nullptr;
}

DeviceState::DeviceState() = default;
DeviceState::~DeviceState() = default;

bool DeviceState::ExtensionEnabled(const char* name) const { return Contains(enabled_extensions, name); }

StateRegistry& StateRegistry::Get() {
  // Never destroyed: layers can be called during process teardown.
  static StateRegistry* registry = new StateRegistry();
  return *registry;
}

InstanceState* StateRegistry::FindInstance(VkPhysicalDevice physical_device) const {
  std::lock_guard<std::mutex> lock(physical_mutex_);
  auto it = physical_devices_.find(physical_device);
  return it == physical_devices_.end() ? nullptr : it->second;
}

std::unique_ptr<InstanceState> StateRegistry::RemoveInstance(VkInstance instance) {
  InstanceState* state = instances_.Erase(DispatchKey(instance));
  if (state != nullptr) {
    std::lock_guard<std::mutex> lock(physical_mutex_);
    for (auto it = physical_devices_.begin(); it != physical_devices_.end();) {
      it = it->second == state ? physical_devices_.erase(it) : std::next(it);
    }
  }
  return std::unique_ptr<InstanceState>(state);
}

void StateRegistry::MapPhysicalDevices(InstanceState* instance, const VkPhysicalDevice* devices, uint32_t count) {
  std::lock_guard<std::mutex> lock(physical_mutex_);
  for (uint32_t i = 0; i < count; ++i) physical_devices_[devices[i]] = instance;
}

}  // namespace bindery
