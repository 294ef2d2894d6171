// MinWordCount and OpShape (instruction.h, instruction_shape.h): a table by opcode built once
// from the grammar's instruction table (operand_kinds.h, generated at build time).
#include "spirv/instruction_shape.h"

#include "spirv/operand_kinds.h"

namespace bindery::spirv {
namespace {

uint16_t ComputeShape(uint32_t code) {
  bool has_result = false, has_type = false;
  uint32_t fewest = 1;
  if (const grammar::InstructionEntry* e = grammar::FindInstruction(code)) {
    has_result = e->has_result != 0;
    has_type = e->has_type != 0;
    fewest = e->fewest_words;
  } else {
    // An opcode newer than the grammar: the header may still know its result and type.
    spv::HasResultAndType(static_cast<spv::Op>(code), &has_result, &has_type);
  }
  return static_cast<uint16_t>((has_result ? kShapeHasResult : 0u) | (has_type ? kShapeHasType : 0u) |
                               (fewest << kShapeMinWordsShift));
}

// Filled before main (or when the layer is loaded); nothing in the library makes an
// Instruction during static initialisation.
struct FillShapes {
  FillShapes() {
    for (uint32_t code = 0; code < kShapeTableSize; ++code) g_op_shapes[code] = ComputeShape(code);
  }
};
const FillShapes fill_shapes;

}  // namespace

uint16_t g_op_shapes[kShapeTableSize];

uint32_t OpShapeSlow(spv::Op op) { return ComputeShape(static_cast<uint32_t>(op)); }

uint32_t MinWordCount(spv::Op op) { return OpShape(op) >> kShapeMinWordsShift; }

}  // namespace bindery::spirv
