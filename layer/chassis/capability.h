// What a capability is to the chassis: a layer of its own, stacked inside the library.
//
// A capability hooks the functions it needs (a table of Hooks) and calls down through its
// own next table, which the chassis fills per device: for each function, the hook of the
// next capability below that hooks it and is active on the device, else the driver's (the
// next real layer's) pointer. The order of the stack is fixed in one file of the shell
// (shell/capabilities.cpp, the only place that names every capability), outermost first.
// A capability therefore sees the calls of the capabilities above it exactly as it sees
// the application's, and what it restores after its own work is the state *as sent down*
// to it — nobody special-cases anybody.
//
// Lifetime on a device:
//   1. PlanDevice (before vkCreateDevice): decide whether to run on this device and state
//      the features, extensions and tracking it needs through the DeviceEditor. Returns
//      nullptr to stay off the device (then none of its hooks is installed there).
//   2. The chassis creates the device and builds every capability's next table from the
//      plans (each Hook's `active` predicate reads the plan).
//   3. CreateDevice, innermost capability first, so a capability may already call down
//      (e.g. build its pipelines) through hooks below it.
//   4. At vkDestroyDevice the states are destroyed outermost first, then the device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <vulkan/vulkan.h>

namespace bindery {

struct InstanceState;
struct Settings;
struct DeviceState;
class DeviceEditor;
class InstanceEditor;

// What a capability decided for one device before it was created (subclassed by each
// capability). Kept alive for the device's lifetime.
class DevicePlan {
 public:
  virtual ~DevicePlan() = default;
};

// The per-device state of a capability.
class CapabilityDevice {
 public:
  virtual ~CapabilityDevice() = default;
};

// Per-command-buffer data a capability keeps (e.g. its staging memory). Created when the
// command buffer is allocated, told when it is reset (begin, reset, pool reset), destroyed
// when it is freed. Never while the command buffer may be pending (the spec forbids it).
class CommandData {
 public:
  virtual ~CommandData() = default;
  virtual void OnReset() {}
  // vkEndCommandBuffer returns this when not VK_SUCCESS: work the capability could not
  // record (e.g. out of staging memory) is reported, never dropped silently.
  virtual VkResult RecordingError() const { return VK_SUCCESS; }
};

// One function a capability hooks.
struct Hook {
  const char* name;  // "vkCmdFillBuffer"
  PFN_vkVoidFunction function;
  // Installed on a device only if this returns true for the capability's plan there;
  // nullptr: whenever the capability is active on the device.
  bool (*active)(const DevicePlan& plan);
  // false (default): installed only where the layer below provides the function, so the
  // application sees exactly the functions the driver offers. true: the capability
  // implements the function itself (e.g. an emulated extension).
  bool provides;
};

struct HookTable {
  const Hook* hooks = nullptr;
  std::size_t count = 0;
};

template <std::size_t N>
constexpr HookTable MakeHookTable(const Hook (&hooks)[N]) {
  return {hooks, N};
}

// The one intercept macro: BINDERY_HOOK(CmdFillBuffer, predicate-or-nullptr) for a
// function named like the Vulkan command without its "vk" prefix.
#define BINDERY_HOOK(fn, predicate) \
  ::bindery::Hook { "vk" #fn, reinterpret_cast<PFN_vkVoidFunction>(&fn), predicate, false }
#define BINDERY_PROVIDED_HOOK(fn, predicate) \
  ::bindery::Hook { "vk" #fn, reinterpret_cast<PFN_vkVoidFunction>(&fn), predicate, true }

class Capability {
 public:
  virtual ~Capability() = default;

  virtual const char* Name() const = 0;
  virtual HookTable DeviceHooks() const = 0;

  // Instance-level functions the capability hooks (physical-device queries, e.g. to
  // report a feature it emulates). Installed on instances where PlanInstance returned
  // true; a Hook's `active` predicate must be nullptr here.
  virtual HookTable InstanceHooks() const { return {}; }

  // At vkCreateInstance: instance extensions the capability may need on this instance
  // (e.g. VK_KHR_get_physical_device_properties2 under a Vulkan 1.0 application).
  // Returns whether its instance hooks are installed on this instance.
  virtual bool PlanInstance(const Settings&, InstanceEditor&) const { return false; }

  // Before vkCreateDevice; nullptr: off on this device.
  virtual std::unique_ptr<DevicePlan> PlanDevice(DeviceEditor& editor) const = 0;
  // Planned after every other capability (the chassis's tracking stage, which serves
  // what the others asked for).
  virtual bool PlansLast() const { return false; }

  // After the device exists and the next tables are built (DeviceState::Next(slot)).
  virtual std::unique_ptr<CapabilityDevice> CreateDevice(DeviceState& device, DevicePlan& plan) const = 0;

  // Per-command-buffer data for a command buffer allocated on `device` (nullptr: none).
  virtual std::unique_ptr<CommandData> CreateCommandData(CapabilityDevice&, VkCommandPool) const { return nullptr; }

  // Device extensions the capability implements on `physical_device`, advertised in
  // enumeration (a capability that implements one only where the driver lacks it looks at
  // the physical device, so the layer's own list is true of each device).
  virtual void LayerDeviceExtensions(const InstanceState&, VkPhysicalDevice /*physical_device*/,
                                     std::vector<VkExtensionProperties>&) const {}

  // Device extensions the capability cannot coexist with on `physical_device` (their
  // commands would hand the layer below objects the capability changed): the shell leaves
  // them out of vkEnumerateDeviceExtensionProperties, vkCreateDevice refuses them, and
  // their features read VK_FALSE from vkGetPhysicalDeviceFeatures2 (chassis/hidden_extensions.h).
  // Called on cold paths (enumeration, feature queries, device creation).
  virtual void HiddenDeviceExtensions(const InstanceState&, VkPhysicalDevice /*physical_device*/,
                                      std::vector<const char*>& /*hidden*/) const {}

  // The capability's position in the stack (0 = outermost); set once by the shell.
  uint32_t slot() const { return slot_; }
  void set_slot(uint32_t slot) { slot_ = slot; }

 private:
  uint32_t slot_ = 0;
};

// The stack, outermost first (the shell owns the list; the chassis walks it).
struct CapabilityList {
  Capability* const* items = nullptr;
  std::size_t count = 0;
};

inline constexpr std::size_t kMaxCapabilities = 8;

}  // namespace bindery
