// Building a device's stack of capabilities: plans, next tables, states.
//
// Next tables: for capability k, each function resolves to the hook of the nearest
// capability below k (k+1, k+2, ...) that hooks it and is active on the device, else to
// the driver's function (the next real layer's). The application's view (what
// vkGetDeviceProcAddr returns) is the same resolution from above the outermost. A function
// nobody hooks therefore resolves to the driver's own pointer: zero overhead.
#pragma once

#include <vulkan/vulkan.h>

#include "chassis/capability.h"
#include "chassis/device_editor.h"
#include "chassis/state.h"

namespace bindery {

// Plans every capability of the instance's list on a device about to be created (the
// ones that plan last after the others) into device.slots.
void PlanDeviceStack(DeviceState& device, DeviceEditor& editor);

// After the driver created the device: fills device.driver, every slot's next table, the
// trackers, and creates the capabilities' states, innermost first. Returns false (with
// the reason logged) if a capability could not start; the device is then left to the
// caller to destroy.
void BuildDeviceStack(DeviceState& device, const DeviceEditor& editor);

// Destroys the capabilities' states, outermost first (before the device goes).
void TearDownDeviceStack(DeviceState& device);

// `name` as seen from just below slot `above` (-1: the application's view).
PFN_vkVoidFunction ResolveDeviceFunction(const DeviceState& device, int above, const char* name);

// Whether some capability's hook is installed for `name` on the device (tests, logs).
bool DeviceFunctionHooked(const DeviceState& device, const char* name);

}  // namespace bindery
