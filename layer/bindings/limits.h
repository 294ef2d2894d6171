// The limits indirect bindings let an application exceed (issue 9 part 5), reported through
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
//     of push constants each) and are left out of the native layout; the others are
//     renumbered in order. Raised to as many roots as push-constant space holds (up to
//     32, what the per-command-buffer bind state tracks). Two conditions remain, each
//     failing pipeline-layout or pipeline creation with a logged reason, not silently:
//     at most the driver's own limit of sets may keep native descriptors (images,
//     samplers, texel buffers, uniform buffers unless converted), and the roots must fit
//     after the application's own push constants.
// Not raised: dynamic storage buffers (their offsets travel in push constants, a few
// dozen at most), uniform buffers (converted only with a setting).
#pragma once

#include <vulkan/vulkan.h>

namespace bindery::bindings {

inline constexpr uint32_t kRaisedStorageBuffers = 1u << 16;

void RaiseLimits(VkPhysicalDeviceLimits& limits);
// The raised maxBoundDescriptorSets: roots that fit in the device's push-constant space.
inline uint32_t RaisedBoundSets(const VkPhysicalDeviceLimits& limits) {
  const uint32_t roots = limits.maxPushConstantsSize / 8;
  return roots < 32 ? roots : 32;
}

VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceProperties(VkPhysicalDevice, VkPhysicalDeviceProperties*);
VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceProperties2(VkPhysicalDevice, VkPhysicalDeviceProperties2*);
VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceProperties2KHR(VkPhysicalDevice, VkPhysicalDeviceProperties2*);

}  // namespace bindery::bindings
