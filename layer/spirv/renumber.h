// Renumbering descriptor sets in a module: the indirect-bindings runtime hands the driver
// a pipeline layout holding only the sets that keep native descriptors (sets that became
// roots alone are left out), so a module's remaining descriptors must name their sets'
// new numbers. A word-level edit of DescriptorSet decorations; no IR.
#pragma once

#include <cstdint>
#include <vector>

namespace bindery::spirv {

// Replaces every `DescriptorSet s` decoration with `DescriptorSet new_set_of[s]` (sets at
// or beyond new_set_of.size() are kept). Returns false, leaving `words` unchanged, when
// the module's instruction stream is malformed; `changed` tells whether a number moved.
bool RenumberDescriptorSets(std::vector<uint32_t>& words, const std::vector<uint32_t>& new_set_of, bool* changed);

}  // namespace bindery::spirv
