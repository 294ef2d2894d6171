// Per-instance and per-device layer state, found by dispatch key.
#pragma once

#include <memory>
#include <mutex>
#include <unordered_map>

#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>
#include <vulkan/vk_layer_dispatch_table.h>

#include "core/dispatch_map.h"
#include "core/log.h"
#include "core/settings.h"
#include "core/stats.h"

namespace bindery {

struct InstanceState {
  VkInstance handle = VK_NULL_HANDLE;
  VkLayerInstanceDispatchTable dispatch{};
  PFN_vkGetInstanceProcAddr next_get_instance_proc_addr = nullptr;
  uint32_t api_version = VK_API_VERSION_1_0;
  Settings settings;
  std::unique_ptr<Logger> logger;

  Logger& log() { return *logger; }
};

// Base of the per-device state each capability keeps (transfers, later bindings and
// timelines); DeviceState owns one of each that is active on the device.
struct DeviceCapability {
  virtual ~DeviceCapability() = default;
};

namespace transfer {
class DeviceTransfers;
}

struct DeviceState {
  VkDevice handle = VK_NULL_HANDLE;
  VkPhysicalDevice physical_device = VK_NULL_HANDLE;
  InstanceState* instance = nullptr;
  VkLayerDispatchTable dispatch{};
  PFN_vkGetDeviceProcAddr next_get_device_proc_addr = nullptr;
  VkPhysicalDeviceProperties properties{};
  Stats stats;
  std::unique_ptr<DeviceCapability> transfers_capability;
  transfer::DeviceTransfers* transfers = nullptr;  // typed view of transfers_capability

  Logger& log() { return instance->log(); }
};

// Registry of every live instance, device and physical device.
class StateRegistry {
 public:
  static StateRegistry& Get();

  InstanceState* FindInstance(VkInstance instance) const { return instances_.Find(DispatchKey(instance)); }
  DeviceState* FindDevice(VkDevice device) const { return devices_.Find(DispatchKey(device)); }
  // Queues and command buffers share their device's dispatch key.
  DeviceState* FindDevice(VkQueue queue) const { return devices_.Find(DispatchKey(queue)); }
  DeviceState* FindDevice(VkCommandBuffer cb) const { return devices_.Find(DispatchKey(cb)); }
  InstanceState* FindInstance(VkPhysicalDevice physical_device) const;

  bool AddInstance(InstanceState* state) { return instances_.Insert(DispatchKey(state->handle), state); }
  std::unique_ptr<InstanceState> RemoveInstance(VkInstance instance);
  bool AddDevice(DeviceState* state) { return devices_.Insert(DispatchKey(state->handle), state); }
  std::unique_ptr<DeviceState> RemoveDevice(VkDevice device) {
    return std::unique_ptr<DeviceState>(devices_.Erase(DispatchKey(device)));
  }
  void MapPhysicalDevices(InstanceState* instance, const VkPhysicalDevice* devices, uint32_t count);

  size_t InstanceCount() const { return instances_.Size(); }
  size_t DeviceCount() const { return devices_.Size(); }
  size_t PhysicalDeviceCount() const {
    std::lock_guard<std::mutex> lock(physical_mutex_);
    return physical_devices_.size();
  }

 private:
  DispatchKeyMap<InstanceState> instances_;
  DispatchKeyMap<DeviceState> devices_;
  // Physical devices are looked up only on cold paths (device creation, queries).
  mutable std::mutex physical_mutex_;
  std::unordered_map<VkPhysicalDevice, InstanceState*> physical_devices_;
};

}  // namespace bindery
