// The alignment an access through a converted descriptor's pointer really has, for the
// Aligned memory operand of the rewritten load or store. Without it the operand can only
// state the pointee's scalar alignment (4 for a vec4), and a driver's compiler then splits
// a 16-byte load into four; with it, a vec4 read from an std430 array of vec4 states 16.
//
// What is known: a storage (uniform) buffer descriptor's address is a multiple of
// minStorageBufferOffsetAlignment (minUniformBufferOffsetAlignment): the buffer's memory
// alignment and every descriptor and dynamic offset are (Vulkan spec, VkMemoryRequirements
// and the VUIDs of VkDescriptorBufferInfo::offset and of dynamic offsets). An access chain
// from the variable adds member Offsets and index x ArrayStride; the access is aligned to
// the largest power of two dividing the base alignment and every such term.
#pragma once

#include <cstdint>
#include <functional>

namespace bindery::spirv {

class Instruction;
class TypeManager;

struct AccessAlignmentQuery {
  const TypeManager* types = nullptr;
  // The defining instruction of an id as the input function has it (access chains,
  // copies), or nullptr.
  std::function<const Instruction*(uint32_t)> local_def;
  // Whether an id is a converted descriptor variable (its accesses start at a descriptor
  // base address).
  std::function<bool(uint32_t)> is_converted_variable;
  // The guaranteed alignment of every converted descriptor's base address (0: unknown).
  uint32_t base_alignment = 0;
};

// The alignment (a power of two) an access through `pointer` has; 0 when it cannot be
// shown (the pointer does not come from a converted variable through access chains and
// copies alone, an index into a matrix or a vector, a missing decoration, no base
// alignment).
uint32_t KnownAccessAlignment(const AccessAlignmentQuery& query, uint32_t pointer);

}  // namespace bindery::spirv
