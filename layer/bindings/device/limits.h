// The limits indirect bindings let an application exceed (docs/indirect-bindings.md), reported through
// vkGetPhysicalDeviceProperties(2) where every layout converts (force, or auto on a driver
// the policy says pays: model/policy.h), for physical devices that can run it
// (bufferDeviceAddress). Only limits the capability really honours for every layout are
// raised:
//   maxStorageBufferRange: a record carries a 64-bit size and the rewritten shader loads
//     through an address, so a storage buffer's range is bounded only by the buffer: the
//     largest buffer the device can create, allocate and hold (maxBufferSize,
//     maxMemoryAllocationSize, its largest heap; at most UINT32_MAX; 1 GiB on lavapipe,
//     whose buffer work is sized in 32-bit signed integers: limits.cpp), because clients
//     derive their own limits from it and use blocks of that size;
//   maxPerStageDescriptorStorageBuffers / maxDescriptorSetStorageBuffers (and
//     maxPerStageResources by as much): storage buffers never reach the driver's
//     descriptors, only records in the pool's block.
// Not raised:
//   maxBoundDescriptorSets: sets whose descriptors all convert exist only as roots and are
//     left out of the native layout, so a pipeline layout may have more sets than the
//     driver binds — but only while the sets keeping native descriptors (images,
//     samplers, texel buffers, uniform buffers unless converted) fit the driver's limit;
//     a layout of 16 sets each keeping a sampler cannot be given, so the driver's value
//     is what every layout can get. More sets still work where they convert (pipeline
//     layout creation fails with a logged reason where they cannot);
//   dynamic storage buffers (their offsets travel in push constants, a few dozen at
//     most), uniform buffers (converted only with a setting).
#pragma once

#include <vulkan/vulkan.h>

#include "bindings/model/policy.h"  // kRaisedStorageBuffers

namespace bindery {
struct InstanceState;
}

namespace bindery::bindings {


void RaiseLimits(VkPhysicalDeviceLimits& limits);

// Will indirect bindings convert every layout on `pd` (force, or auto on a driver the
// policy says pays) and can it run there? Where it does, limits are raised and the
// extensions whose commands would reach converted objects are hidden
// (bindings_capability.cpp).
bool ConvertsEveryLayout(const InstanceState& instance, VkPhysicalDevice pd);
// The most sets a pipeline layout may have where they convert: 32 (what the per-command-
// buffer bind state tracks; not reported, see above). Roots that do not fit in push
// constants go to the reserved set's ring (one native set).
inline uint32_t RaisedBoundSets(const VkPhysicalDeviceLimits&) { return 32; }

VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceProperties(VkPhysicalDevice, VkPhysicalDeviceProperties*);
VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceProperties2(VkPhysicalDevice, VkPhysicalDeviceProperties2*);
VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceProperties2KHR(VkPhysicalDevice, VkPhysicalDeviceProperties2*);

}  // namespace bindery::bindings
