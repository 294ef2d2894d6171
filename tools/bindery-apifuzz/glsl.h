// GLSL for one stage of a pipeline of the IR: declarations for the bindings its ops use
// (looked up in the pipeline's layout; ops naming a binding the layout no longer has, after
// reduction, are left out) and a body that folds reads into one accumulator.
#pragma once

#include <string>

#include "ir.h"

namespace bindery::apifuzz {

std::string StageGlsl(const Program& p, const Pipeline& pipeline, const Stage& stage);

// The layout binding an op names, or nullptr where the pipeline layout has none.
const Binding* FindBinding(const Program& p, const PipelineLayout& layout, uint32_t set, uint32_t binding);

}  // namespace bindery::apifuzz
