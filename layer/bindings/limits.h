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
// Not raised: dynamic storage buffers (their offsets travel in push constants, a few
// dozen at most), uniform buffers (converted only with a setting), maxBoundDescriptorSets
// (sets with native bindings still bind natively, at their own numbers).
#pragma once

#include <vulkan/vulkan.h>

namespace bindery::bindings {

inline constexpr uint32_t kRaisedStorageBuffers = 1u << 16;

void RaiseLimits(VkPhysicalDeviceLimits& limits);

VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceProperties(VkPhysicalDevice, VkPhysicalDeviceProperties*);
VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceProperties2(VkPhysicalDevice, VkPhysicalDeviceProperties2*);
VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceProperties2KHR(VkPhysicalDevice, VkPhysicalDeviceProperties2*);

}  // namespace bindery::bindings
