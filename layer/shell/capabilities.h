// The stack of capabilities, outermost first. shell/capabilities.cpp is the only place in
// the tree that names every capability.
#pragma once

#include <vector>

#include <vulkan/vulkan.h>

#include "chassis/capability.h"

namespace bindery {

// The stack (slots assigned on first call).
CapabilityList LayerCapabilities();

}  // namespace bindery
