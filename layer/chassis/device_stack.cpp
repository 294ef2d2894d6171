#include "chassis/device_stack.h"

#include <cstring>
#include <mutex>

#include <vulkan/vk_dispatch_table_helper.h>

#include "chassis/trackers.h"

namespace bindery {
namespace {

const Hook* FindHook(const Capability& capability, const char* name) {
  const HookTable table = capability.DeviceHooks();
  for (std::size_t i = 0; i < table.count; ++i) {
    if (std::strcmp(table.hooks[i].name, name) == 0) return &table.hooks[i];
  }
  return nullptr;
}

bool HookInstalled(const DeviceState& device, const DeviceState::Slot& slot, const Hook& hook) {
  if (slot.plan == nullptr) return false;
  if (hook.active != nullptr && !hook.active(*slot.plan)) return false;
  // The application sees exactly the functions the driver offers, unless a capability
  // provides the function itself.
  return hook.provides || device.next_get_device_proc_addr(device.handle, hook.name) != nullptr;
}

// layer_init_device_dispatch_table takes a plain function pointer: the table being built
// is named through this context (device creation is a cold path; one at a time).
std::mutex g_build_mutex;
const DeviceState* g_build_device = nullptr;
int g_build_above = -1;

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL ResolveForBuild(VkDevice, const char* name) {
  return ResolveDeviceFunction(*g_build_device, g_build_above, name);
}

}  // namespace

PFN_vkVoidFunction ResolveDeviceFunction(const DeviceState& device, int above, const char* name) {
  if (name == nullptr) return nullptr;
  for (std::size_t s = static_cast<std::size_t>(above + 1); s < device.slot_count; ++s) {
    const DeviceState::Slot& slot = device.slots[s];
    const Hook* hook = FindHook(*slot.capability, name);
    if (hook != nullptr && HookInstalled(device, slot, *hook)) return hook->function;
  }
  return device.next_get_device_proc_addr(device.handle, name);
}

bool DeviceFunctionHooked(const DeviceState& device, const char* name) {
  return ResolveDeviceFunction(device, -1, name) != device.next_get_device_proc_addr(device.handle, name);
}

void PlanDeviceStack(DeviceState& device, DeviceEditor& editor) {
  const CapabilityList& list = device.instance->capabilities;
  device.slot_count = list.count;
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t s = 0; s < list.count; ++s) {
      Capability* capability = list.items[s];
      if (capability->PlansLast() != (pass == 1)) continue;
      device.slots[s].capability = capability;
      device.slots[s].plan = capability->PlanDevice(editor);
    }
  }
}

void BuildDeviceStack(DeviceState& device, const DeviceEditor& editor) {
  layer_init_device_dispatch_table(device.handle, &device.driver, device.next_get_device_proc_addr);
  {
    std::lock_guard<std::mutex> lock(g_build_mutex);
    g_build_device = &device;
    for (std::size_t s = 0; s < device.slot_count; ++s) {
      g_build_above = static_cast<int>(s);
      DeviceState::Slot& slot = device.slots[s];
      layer_init_device_dispatch_table(device.handle, &slot.next, &ResolveForBuild);
      slot.next_newer.CmdPushConstants2KHR = reinterpret_cast<PFN_CmdPushConstants2>(
          ResolveDeviceFunction(device, g_build_above, "vkCmdPushConstants2KHR"));
      slot.next_newer.CmdBindDescriptorSets2KHR = reinterpret_cast<PFN_CmdBindDescriptorSets2>(
          ResolveDeviceFunction(device, g_build_above, "vkCmdBindDescriptorSets2KHR"));
      slot.next_newer.CmdPushDescriptorSet2KHR = reinterpret_cast<PFN_CmdPushDescriptorSet2>(
          ResolveDeviceFunction(device, g_build_above, "vkCmdPushDescriptorSet2KHR"));
      slot.next_newer.CmdPushDescriptorSetWithTemplate2KHR = reinterpret_cast<PFN_CmdPushDescriptorSetWithTemplate2>(
          ResolveDeviceFunction(device, g_build_above, "vkCmdPushDescriptorSetWithTemplate2KHR"));
      slot.next_newer.CmdBindShadersEXT =
          reinterpret_cast<PFN_CmdBindShaders>(ResolveDeviceFunction(device, g_build_above, "vkCmdBindShadersEXT"));
    }
    g_build_device = nullptr;
  }
  // Addresses are had through the driver's entry point for the form that was enabled.
  device.addressing.mode = editor.address_mode();
  if (const char* fn = editor.AddressFunctionName()) {
    device.addressing.get_address =
        reinterpret_cast<PFN_vkGetBufferDeviceAddress>(device.next_get_device_proc_addr(device.handle, fn));
  }
  device.addressing.memory_flag =
      device.addressing.mode == AddressMode::kCore || device.addressing.mode == AddressMode::kKhr;
  // Every device has trackers, even where no capability asked for tracking (its plan is
  // then empty and the tracking stage's hooks are not installed there): another device's
  // entry points may still be called with this device's handles (the conformance suite's
  // multi-device cases do; drivers tolerate it) and reach those hooks.
  TrackingPlan plan = editor.tracking();
  if (!device.addressing.enabled()) plan.address_rules.clear();
  device.trackers = std::make_unique<Trackers>(device, plan);
  // Innermost first: a capability may call down into the ones below while it starts.
  for (std::size_t s = device.slot_count; s-- > 0;) {
    DeviceState::Slot& slot = device.slots[s];
    if (slot.plan != nullptr) slot.state = slot.capability->CreateDevice(device, *slot.plan);
  }
}

void TearDownDeviceStack(DeviceState& device) {
  // The trackers first: command buffers the application left alive hold capability data
  // (e.g. staging) that must go back to its capability while that capability still exists.
  device.trackers.reset();
  for (std::size_t s = 0; s < device.slot_count; ++s) device.slots[s].state.reset();
}

}  // namespace bindery
