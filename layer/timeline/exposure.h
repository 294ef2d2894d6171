// Whether the layer emulates timeline semaphores on a physical device: `force`, or `auto`
// where the layer below (the driver) lacks them; never with `off`.
#pragma once

#include <vulkan/vulkan.h>

#include "chassis/state.h"

namespace bindery::timeline {

// The layer below offers the timelineSemaphore feature on this physical device.
bool DriverHasTimelines(const InstanceState& instance, VkPhysicalDevice physical_device);
bool EmulatesOn(const InstanceState& instance, VkPhysicalDevice physical_device);

// The value Bindery reports for maxTimelineSemaphoreValueDifference: emulated values are
// plain 64-bit counters, so any difference is representable.
inline constexpr uint64_t kMaxValueDifference = UINT64_MAX;

}  // namespace bindery::timeline
