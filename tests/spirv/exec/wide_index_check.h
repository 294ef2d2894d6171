// A check on rewritten modules: with shaderInt64, every dynamic array index of an access
// chain that yields a PhysicalStorageBuffer pointer is 64-bit (a 32-bit one lets a driver
// form the byte offset in 32 bits, and a buffer beyond 4 GiB wraps), widened by its
// signedness (OpSConvert from a signed index, OpUConvert from an unsigned one).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bindery::spirv_exec {

// "" when every such index is 64-bit (or a constant), else the first offending chain.
// Chains that already made buffer pointers in `original` (the application's own
// buffer-reference code, which the rewrite leaves alone) are not judged.
std::string NarrowBufferIndex(const std::vector<uint32_t>& words, const std::vector<uint32_t>& original);

// The result ids of the access chains of `words` that yield PhysicalStorageBuffer pointers.
std::vector<uint32_t> BufferPointerChains(const std::vector<uint32_t>& words);

}  // namespace bindery::spirv_exec
