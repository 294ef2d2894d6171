// What a rewrite must pass before a pipeline uses it: spirv-val on the rewritten module with
// the stage's specialization applied (bindings_validate; a verdict kept per cache entry and
// specialization), and the device's push-constant limit. A new rewrite is dumped here where
// bindings_dump asks (rewrite_dump.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

#include "bindings/pipelines/rewrite_cache.h"

namespace bindery::bindings {

class PipelineStore;

// "" when `r` (the rewrite of `words` under `options` for `stage`; `hit`: found in the
// rewrite cache, not made now) may be used, else why the pipeline falls back. `options`
// may be nullptr unless bindings_validate is on or, on a miss, bindings_dump.
std::string CheckedRewrite(PipelineStore& b, const CachedRewrite& r, const std::vector<uint32_t>& words,
                           const spirv::RewriteOptions* options, const VkPipelineShaderStageCreateInfo& stage,
                           bool hit);

}  // namespace bindery::bindings
