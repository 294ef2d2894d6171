// GLSL -> SPIR-V through the glslang library (linked statically, so the CLI needs no
// glslang on the GPU machine), with a per-process cache: generated programs repeat shaders.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bindery::apifuzz {

// Empty result and `error` set on a compile failure (a generator bug). `entry`: the
// module's entry-point name (the GLSL function stays main).
std::vector<uint32_t> CompileGlsl(const std::string& source, uint32_t stage, std::string* error,
                                  const std::string& entry = "main");

// One module of several entry points from modules of one each (SPIRV-Tools' linker; their
// entry points must differ by name or stage). Empty result and `error` set on a failure.
std::vector<uint32_t> LinkModules(const std::vector<std::vector<uint32_t>>& modules, std::string* error);

}  // namespace bindery::apifuzz
