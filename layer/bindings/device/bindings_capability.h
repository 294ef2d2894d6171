// The indirect-bindings capability (see bindings_device.h and docs/indirect-bindings.md):
// buffer descriptors become argument-block records, pipelines are rewritten.
#pragma once

#include "chassis/capability.h"

namespace bindery::bindings {

Capability& BindingsCapability();

}  // namespace bindery::bindings
