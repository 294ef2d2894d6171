// Per-instance and per-device layer state, found by dispatch key.
//
// DeviceState holds what every capability shares: the driver's functions (the next real
// layer below Bindery), the capabilities' stack slots (plan, state and next table each),
// the shared trackers, the device's counters and how buffer addresses are obtained.
#pragma once

#include <array>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>
#include <vulkan/vk_layer_dispatch_table.h>

#include "chassis/capability.h"
#include "chassis/newer_vulkan.h"
#include "core/dispatch_map.h"
#include "core/log.h"
#include "core/settings.h"
#include "core/stats.h"

namespace bindery {

class Trackers;

struct InstanceState {
  struct Slot {
    bool active = false;                // the capability's instance hooks are installed
    VkLayerInstanceDispatchTable next{};  // what its instance hooks call down to
  };

  VkInstance handle = VK_NULL_HANDLE;
  VkLayerInstanceDispatchTable dispatch{};
  // What the shell's own instance hooks call down to (the first active capability's hook,
  // else the next layer's), resolved once at vkCreateInstance like every slot's `next`:
  // asking the next layer's vkGetInstanceProcAddr later, at call time, returned the
  // loader's trampoline on some stacks, i.e. the shell's own hook (endless recursion).
  VkLayerInstanceDispatchTable top{};
  PFN_vkGetInstanceProcAddr next_get_instance_proc_addr = nullptr;
  uint32_t api_version = VK_API_VERSION_1_0;  // the application's (VkApplicationInfo)
  std::vector<std::string> enabled_extensions;  // as sent down (the app's plus ours)
  Settings settings;
  std::unique_ptr<Logger> logger;
  CapabilityList capabilities;
  std::array<Slot, kMaxCapabilities> slots;

  Logger& log() { return *logger; }
  const VkLayerInstanceDispatchTable& Next(uint32_t slot) const { return slots[slot].next; }
  bool ExtensionEnabled(const char* name) const;
  // vkGetPhysicalDeviceFeatures2 / Properties2, core or KHR as this instance allows;
  // nullptr when neither can be called.
  PFN_vkGetPhysicalDeviceFeatures2 Features2() const;
  PFN_vkGetPhysicalDeviceProperties2 Properties2() const;
};

// How buffer device addresses are had on a device (decided by the DeviceEditor).
enum class AddressMode {
  kNone,  // bufferDeviceAddress is not enabled
  kCore,  // Vulkan 1.2 feature, vkGetBufferDeviceAddress
  kKhr,   // VK_KHR_buffer_device_address, vkGetBufferDeviceAddressKHR
  kExt,   // VK_EXT_buffer_device_address (enabled by the application), no memory flag needed
};

struct DeviceAddressing {
  AddressMode mode = AddressMode::kNone;
  PFN_vkGetBufferDeviceAddress get_address = nullptr;
  // VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT exists (core or KHR): memory bound to an
  // addressable buffer needs it.
  bool memory_flag = false;
  bool enabled() const { return mode != AddressMode::kNone && get_address != nullptr; }
};

struct DeviceState {
  struct Slot {
    const Capability* capability = nullptr;
    std::unique_ptr<DevicePlan> plan;            // null: capability off on this device
    std::unique_ptr<CapabilityDevice> state;     // null until created / when off
    VkLayerDispatchTable next{};                 // what this capability calls down to
    NewerDeviceDispatch next_newer{};
  };

  DeviceState();
  ~DeviceState();

  VkDevice handle = VK_NULL_HANDLE;
  VkPhysicalDevice physical_device = VK_NULL_HANDLE;
  InstanceState* instance = nullptr;
  VkLayerDispatchTable driver{};  // the next layer's functions: below every capability
  PFN_vkGetDeviceProcAddr next_get_device_proc_addr = nullptr;
  VkPhysicalDeviceProperties properties{};
  uint32_t api_version = VK_API_VERSION_1_0;  // min(application's, device's)
  std::vector<std::string> enabled_extensions;  // as sent down
  DeviceAddressing addressing;
  std::vector<VkQueueFamilyProperties> queue_families;
  CounterSet counters;
  std::unique_ptr<Trackers> trackers;
  std::array<Slot, kMaxCapabilities> slots;
  std::size_t slot_count = 0;

  Logger& log() { return instance->log(); }
  bool ExtensionEnabled(const char* name) const;

  template <typename T>
  T* State(uint32_t slot) const {
    return static_cast<T*>(slots[slot].state.get());
  }
  const VkLayerDispatchTable& Next(uint32_t slot) const { return slots[slot].next; }
  const NewerDeviceDispatch& NextNewer(uint32_t slot) const { return slots[slot].next_newer; }
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
