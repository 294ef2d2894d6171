// Whether a rewritten stage bounds-checks its converted buffer accesses, decided the way
// the driver decides robustness for descriptors it would have accessed:
// - the device's default: robustBufferAccess or robustBufferAccess2 enabled;
// - VkPipelineRobustnessCreateInfoEXT on the stage, else on the pipeline, overrides it
//   for storage buffers (and uniform buffers where those convert): DISABLED turns checks
//   off, ROBUST_BUFFER_ACCESS(_2) on, DEVICE_DEFAULT keeps the device's;
// - robustness2.nullDescriptor: a null buffer descriptor (a zero record) must read 0 and
//   drop writes whatever the robustness, so checks stay on (a record of size 0 makes
//   every access out of bounds).
#pragma once

#include <vulkan/vulkan.h>

namespace bindery::bindings {

class BindingsPlan;

bool StageBoundsChecks(const BindingsPlan& plan, const void* pipeline_chain, const void* stage_chain);

}  // namespace bindery::bindings
