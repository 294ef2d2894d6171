// GLSL -> SPIR-V through the glslang library (linked statically, so the CLI needs no
// glslang on the GPU machine), with a per-process cache: generated programs repeat shaders.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bindery::apifuzz {

// Empty result and `error` set on a compile failure (a generator bug).
std::vector<uint32_t> CompileGlsl(const std::string& source, uint32_t stage, std::string* error);

}  // namespace bindery::apifuzz
