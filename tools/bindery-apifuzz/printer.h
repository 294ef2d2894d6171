// A short readable listing of a Program: its objects, then its steps as the Vulkan calls
// the interpreter makes (barriers and rendering instances it adds are noted once, at the
// top), then the GLSL of every pipeline.
#pragma once

#include <string>

#include "ir.h"

namespace bindery::apifuzz {

std::string Listing(const Program& p);

}  // namespace bindery::apifuzz
