// The part of the capability's device state every store shares (device_core.h), and the
// registry's lookup of it.
#include "bindings/model/device_core.h"

#include <algorithm>

#include "core/log.h"

namespace bindery::bindings {

DeviceCore::DeviceCore(DeviceState& device_state, const BindingsPlan& p, const VkLayerDispatchTable& next_table)
    : device(device_state),
      next(next_table),
      plan(p),
      counters{&device_state.counters.Register("pipelines rewritten"),
               &device_state.counters.Register("fallen back", &fallback_reasons),
               &device_state.counters.Register("descriptor sets converted"),
               &device_state.counters.Register("layer-owned"),
               &device_state.counters.Register("push descriptor updates converted"),
               &device_state.counters.Register("root ring bytes"),
               &device_state.counters.Register("argument-block bytes")} {
  gpu_bytes.Attach(&device_state.counters.Register("layer GPU bytes peak"));
  host_bytes.Attach(&device_state.counters.Register("layer host bytes peak"));
  ring_layout_copies.Attach(&device_state.counters.Register("ring-root layout copies peak"));
  max_push_bytes = device_state.properties.limits.maxPushConstantsSize;
  max_bound_sets = device_state.properties.limits.maxBoundDescriptorSets;
  ring_alignment = static_cast<uint32_t>(
      std::max<VkDeviceSize>(16, device_state.properties.limits.minStorageBufferOffsetAlignment));
  device_state.instance->dispatch.GetPhysicalDeviceMemoryProperties(device_state.physical_device, &memory_properties);
}

void NoteUnaddressable(DeviceCore& b, const char* what) {
  if (b.any_unaddressable.exchange(true, std::memory_order_acq_rel)) return;
  b.MarkWork(DeviceCore::kWorkTwins);
  BINDERY_LOG(b.device.log(), kWarn, "bindings-unaddressable",
              "%s has no device address (sparse, protected or external memory, or memory the layer could not flag): "
              "draws and dispatches that reach it through a descriptor run their pipeline's native twin",
              what);
}

DeviceCore* FindBindingsUnindexed(VkDevice device) {
  return StateRegistry::Get().FindDevice(device)->State<DeviceCore>(g_bindings_slot.load(std::memory_order_relaxed));
}

DeviceCore* FindBindingsUnindexed(VkCommandBuffer cb) {
  return StateRegistry::Get().FindDevice(cb)->State<DeviceCore>(g_bindings_slot.load(std::memory_order_relaxed));
}

const VkLayerDispatchTable& NextOf(VkDevice device) {
  return StateRegistry::Get().FindDevice(device)->Next(g_bindings_slot.load(std::memory_order_relaxed));
}

const VkLayerDispatchTable& NextOf(VkCommandBuffer cb) {
  return StateRegistry::Get().FindDevice(cb)->Next(g_bindings_slot.load(std::memory_order_relaxed));
}

}  // namespace bindery::bindings
