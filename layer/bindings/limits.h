// The limits indirect bindings let an application exceed (docs/indirect-bindings.md), reported through
// vkGetPhysicalDeviceProperties(2) where every layout converts (force, or auto on a driver
// the policy says pays: bindings/policy.h), for physical devices that can run it
// (bufferDeviceAddress). Only limits the capability
// really honours are raised:
//   maxStorageBufferRange: a record carries a 64-bit size and the rewritten shader loads
//     through an address, so a storage buffer's range is bounded only by the buffer;
//   maxPerStageDescriptorStorageBuffers / maxDescriptorSetStorageBuffers (and
//     maxPerStageResources by as much): storage buffers never reach the driver's
//     descriptors, only records in the pool's block.
//   maxBoundDescriptorSets: sets whose descriptors all convert exist only as roots (8 bytes
//     of push constants each, or in the reserved set's ring when push constants are
//     full) and are left out of the native layout; the others are renumbered in order.
//     Raised to 32 (what the per-command-buffer bind state tracks). One condition
//     remains, failing pipeline-layout creation with a logged reason, not silently: the
//     sets that keep native descriptors (images, samplers, texel buffers, uniform buffers
//     unless converted), plus the reserved set where the root needs it, must be within
//     the driver's own limit.
// Not raised: dynamic storage buffers (their offsets travel in push constants, a few
// dozen at most), uniform buffers (converted only with a setting).
#pragma once

#include <vulkan/vulkan.h>

namespace bindery {
struct InstanceState;
}

namespace bindery::bindings {

inline constexpr uint32_t kRaisedStorageBuffers = 1u << 16;

void RaiseLimits(VkPhysicalDeviceLimits& limits);

// Will indirect bindings convert every layout on `pd` (force, or auto on a driver the
// policy says pays) and can it run there? Where it does, limits are raised and the
// extensions whose commands would reach converted objects are hidden
// (bindings_capability.cpp).
bool ConvertsEveryLayout(const InstanceState& instance, VkPhysicalDevice pd);
// The raised maxBoundDescriptorSets: 32 (what the per-command-buffer bind state tracks).
// Roots that do not fit in push constants go to the reserved set's ring (one native set).
inline uint32_t RaisedBoundSets(const VkPhysicalDeviceLimits&) { return 32; }

VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceProperties(VkPhysicalDevice, VkPhysicalDeviceProperties*);
VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceProperties2(VkPhysicalDevice, VkPhysicalDeviceProperties2*);
VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceProperties2KHR(VkPhysicalDevice, VkPhysicalDeviceProperties2*);

}  // namespace bindery::bindings
