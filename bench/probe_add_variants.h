// The kernel group's descriptor-free add rows (probe_add_variants.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "probe_device.h"

namespace bindery::bench {

// Appends the rows of the hand-written pointer add and of the rewritten add's variants over
// `n` floats (a multiple of 256), each checked for the right result.
void RunAddVariantProbes(ProbeDevice& d, uint32_t n, std::vector<ProbeResult>& out);

}  // namespace bindery::bench
