// The indirect-bindings capability (docs/indirect-bindings.md): buffer descriptors become
// argument-block records, pipelines are rewritten. Its state on a device: bindings_device.h.
#pragma once

#include "chassis/capability.h"

namespace bindery::bindings {

Capability& BindingsCapability();

}  // namespace bindery::bindings
