// The fewest words the SPIR-V grammar allows for an opcode (the generated grammar tables,
// operand_kinds.h). ParseModule rejects shorter
// instructions, so code reading an operand the grammar requires needs no count check.
#pragma once

#include <cstdint>

#include "spirv/instruction.h"

namespace bindery::spirv {

// 1 for an opcode the grammar does not know (nothing is assumed about it).
uint32_t MinWordCount(spv::Op op);

// A storage-class operand as the enum, or StorageClassMax when the value is none of the
// enum's (a hostile module may put any word there; casting it would be undefined).
inline spv::StorageClass ToStorageClass(uint32_t value) {
  return value < static_cast<uint32_t>(spv::StorageClassMax) ? static_cast<spv::StorageClass>(value)
                                                             : spv::StorageClassMax;
}

}  // namespace bindery::spirv
