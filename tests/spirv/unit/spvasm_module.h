// Hand-written SPIR-V for the unit tests: assembly text to words (SPIRV-Tools), and the
// decorations of a parsed module, for shapes glslang never writes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "spirv/module.h"
#include "spirv/rewrite.h"

namespace bindery::spirv::test {

// Assembles `text` for `target`; ADD_FAILUREs and returns {} when it does not assemble.
std::vector<uint32_t> Assemble(const std::string& text, TargetEnv target);

// How many OpMemberDecorate of `module` carry `decoration`.
int CountMemberDecorations(const Module& module, spv::Decoration decoration);

// A layout converting every storage buffer of `words`, bounds checks as asked.
RewriteOptions LayoutFor(const std::vector<uint32_t>& words, TargetEnv target, bool int64, bool bounds);

}  // namespace bindery::spirv::test
