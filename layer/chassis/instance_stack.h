// The instance-level half of the capability stack: capabilities that hook physical-device
// or instance functions (e.g. to report a feature they emulate) get a next table per
// instance, built like the device ones (chassis/device_stack.h).
#pragma once

#include <vulkan/vulkan.h>

#include "chassis/state.h"

namespace bindery {

// After the next layer created the instance: fills instance.dispatch and every active
// slot's next table.
void BuildInstanceStack(InstanceState& instance);

// `name` as seen from just below slot `above` (-1: the application's view): the nearest
// installed instance hook, else the next layer's function.
PFN_vkVoidFunction ResolveInstanceFunction(const InstanceState& instance, int above, const char* name);

}  // namespace bindery
