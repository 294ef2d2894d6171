// Builds a random valid program from a seed, using only what `features` says the device
// has. Validity is kept by simulating what the program does: which sets are allocated and
// written, what each bind point has bound through which layout (with the spec's rule for
// disturbed sets), which push constants are defined, and what GPU work may be pending.
#pragma once

#include <cstdint>

#include "ir.h"

namespace bindery::apifuzz {

Program Generate(uint64_t seed, const Features& features);

// Whether two pipeline layouts are compatible for set number `set` (identically defined
// set layouts 0..set and identical push-constant ranges).
bool Compatible(const Program& p, uint32_t a, uint32_t b, uint32_t set);
bool SamePush(const PipelineLayout& a, const PipelineLayout& b);

}  // namespace bindery::apifuzz
