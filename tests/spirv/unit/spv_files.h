// The shaders the unit tests run on: each GLSL file of shaders/ compiled for each target
// environment at build time, and what spirv-val needs for that environment.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <spirv-tools/libspirv.h>

#include "spirv/rewrite.h"

namespace bindery::spirv::test {

struct SpvFile {
  std::string shader;  // e.g. "graphics.vert"
  std::string env;     // e.g. "vulkan1.2"
  std::vector<uint32_t> words;
  std::string Name() const { return shader + "." + env; }
};

std::vector<SpvFile> AllSpvFiles();
TargetEnv TargetFor(const std::string& env);
spv_target_env SpvEnvFor(TargetEnv target);
// "" when spirv-val accepts the module for `target`, else its message.
std::string Validate(const std::vector<uint32_t>& words, TargetEnv target);
std::string Disassemble(const std::vector<uint32_t>& words);

}  // namespace bindery::spirv::test
