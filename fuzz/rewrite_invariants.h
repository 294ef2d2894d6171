// The checks the SPIR-V fuzzer applies to one input, shared with the regression test that
// replays the inputs it found (tests/spirv/regress/): parser (Inspect), pass
// (RewriteDescriptorsToPointers with a layout from Inspect/DefaultLayout plus option bits
// taken from the input) and writer.
//
// Input: the SPIR-V words, then 0-3 trailing bytes that choose the options (a plain module,
// a multiple of 4 bytes, takes its option bits from a hash of its words instead).
//
// Beyond "no crash, no sanitizer report", the contract's invariants:
//   - a module the pass converted must read back through Inspect without error;
//   - when the input passes spirv-val for the target, a converted output must pass too
//     ("never a wrong module"), and a refused one must come back unchanged;
//   - the grammar-driven operand walk (operand_kinds.h) names only operands an
//     instruction has, on every instruction of every input that parses;
//   - now and then (an option bit): with the module's spec constants all set to one
//     value, a specialized output is valid wherever the specialized input is (the
//     bindings_validate path: SPIRV-Tools' optimizer freezes and folds them first).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace bindery::spirv_fuzz {

// "" when every invariant holds, else which one broke (and the rewrite report).
std::string CheckRewriteInvariants(const uint8_t* data, size_t size);

}  // namespace bindery::spirv_fuzz
