// Which bindings a pipeline's stages statically use (model/static_use.h), read from their
// modules (the inspection kept with each module: pipeline_shadows.h's ModuleEntry).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <vulkan/vulkan.h>

#include "bindings/model/static_use.h"

namespace bindery::bindings {

class PipelineStore;
struct ModuleEntry;


// The bindings `stages` statically use (the application's own shaders and numbering);
// nullptr when that cannot be known (a stage's code unknown or unreadable): every binding
// then counts as used.
std::shared_ptr<const StaticUse> StaticUseOf(PipelineStore& b, uint32_t stage_count,
                                            const VkPipelineShaderStageCreateInfo* stages);
// The same for one stage of `module` (its handle already looked up), kept with the module
// per entry point.
std::shared_ptr<const StaticUse> StaticUseOf(PipelineStore& b, const ModuleEntry& module,
                                            const VkPipelineShaderStageCreateInfo& stage);

// After a pipeline creation call: each created pipeline that may run natively (fallback
// or twin) learns which bindings its shaders use. `app`: the application's create infos.
void RecordStaticUse(PipelineStore& b, const VkComputePipelineCreateInfo* app, uint32_t count,
                     const VkPipeline* pipelines);
void RecordStaticUse(PipelineStore& b, const VkGraphicsPipelineCreateInfo* app, uint32_t count,
                     const VkPipeline* pipelines);

}  // namespace bindery::bindings
