#include "core/state.h"

namespace bindery {

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
