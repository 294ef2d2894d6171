// MinWordCount and OpShape (instruction.h, instruction_shape.h): a table by opcode built once
// from the grammar's instruction table (operand_kinds.h, generated at build time).
#include "spirv/instruction_shape.h"

#include <vector>

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

// Every opcode up to the grammar's last one, computed once: the parser asks per
// instruction, and the header's switch plus a search were a tenth of a small module's rewrite.
struct ShapeTable {
  std::vector<uint16_t> shape;
  ShapeTable() {
    uint32_t count = 0;
    const grammar::InstructionEntry* all = grammar::Instructions(&count);
    shape.resize(count ? all[count - 1].opcode + 1u : 0u);
    for (uint32_t code = 0; code < shape.size(); ++code) shape[code] = ComputeShape(code);
  }
};

}  // namespace

uint32_t OpShape(spv::Op op) {
  static const ShapeTable table;
  const uint32_t code = static_cast<uint32_t>(op);
  return code < table.shape.size() ? table.shape[code] : ComputeShape(code);
}

uint32_t MinWordCount(spv::Op op) { return OpShape(op) >> kShapeMinWordsShift; }

}  // namespace bindery::spirv
