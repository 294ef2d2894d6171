// spirv-val (SPIRV-Tools) for the target environments the corpus names.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "spirv/rewrite.h"

namespace bindery::spirv_exec {

// The library's TargetEnv for a corpus @target ("vulkan1.0", "spirv1.4", ...); false if unknown.
bool TargetFor(const std::string& target, spirv::TargetEnv& out);

// "" when `words` is valid for the Vulkan environment of `target`, else spirv-val's messages.
std::string ValidateSpirv(const std::vector<uint32_t>& words, const std::string& target, bool scalar_layout);

}  // namespace bindery::spirv_exec
