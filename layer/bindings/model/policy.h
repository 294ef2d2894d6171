// Which descriptor set layouts indirect bindings converts on a device (docs/indirect-bindings.md, the policy).
//
//   force: every layout it can (tests, benchmarks).
//   auto:  every layout on drivers where the table in policy.cpp says conversion pays
//          (measured with bench/, docs/measured.md); elsewhere only layouts that
//          use a limit above the driver's (invalid natively, so converting them changes no
//          valid program's meaning). Until a device's first converted layout exists, the
//          capability's hot-path hooks pass every call straight on, so auto never makes
//          a workload that stays within the driver's limits slower than native.
//   off:   nothing (the capability is not on the device).
//
// Raised limits are reported only where every layout converts (force, or auto on a
// driver that pays): only then is a limit honoured whatever the application does with it.
#pragma once

#include <cstdint>
#include <vector>

#include <vulkan/vulkan.h>

#include "core/settings.h"

namespace bindery::bindings {

struct BindingsPolicy {
  const char* name = "off";
  bool convert_everything = false;  // every layout with buffer descriptors converts
  bool convert_over_limits = false; // layouts above a driver limit convert
};

// vendor_id / driver_id from VkPhysicalDeviceProperties / VkPhysicalDeviceDriverProperties
// (driver_id 0 when unknown).
BindingsPolicy ChooseBindingsPolicy(Mode mode, uint32_t vendor_id, VkDriverId driver_id);

// Does this layout, by itself, go beyond one of the driver's descriptor limits for the
// descriptors indirect bindings converts (storage buffers; uniform buffers when `ubo`)?
// `why` names the first limit exceeded.
bool UsesRaisedLimit(const VkDescriptorSetLayoutCreateInfo& info, const VkPhysicalDeviceLimits& limits, bool ubo,
                     const char** why);

// Would a pipeline layout with these sets' bindings (all native, as the full layout of a
// fallback or twin has them) be within the driver's limits? `why` names the first limit
// exceeded. Checks the set count and the buffer-descriptor limits (the ones indirect
// bindings lets layouts go beyond).
bool FullLayoutFitsDriver(const std::vector<const std::vector<VkDescriptorSetLayoutBinding>*>& sets,
                          const VkPhysicalDeviceLimits& limits, const char** why);

// The storage-buffer descriptor limits reported where every layout converts
// (device/limits.h): a layout's records beyond it are refused by the support query
// (descriptors/layout_support_hooks.cpp).
inline constexpr uint32_t kRaisedStorageBuffers = 1u << 16;

}  // namespace bindery::bindings
