// MinWordCount and OpShape (instruction.h, instruction_shape.h): a table by opcode built once
// from the generated grammar table and the SPIR-V header.
#include "spirv/instruction_shape.h"

#include <algorithm>
#include <iterator>

namespace bindery::spirv {
namespace {

struct Fewest {
  uint32_t opcode;
  uint32_t words;
};

constexpr Fewest kFewest[] = {
#include "spirv_min_words.inc"
};

uint32_t MinWordCountSearch(uint32_t code) {
  const Fewest* it = std::lower_bound(std::begin(kFewest), std::end(kFewest), code,
                                      [](const Fewest& f, uint32_t c) { return f.opcode < c; });
  return (it != std::end(kFewest) && it->opcode == code) ? it->words : 1;
}

uint16_t ComputeShape(uint32_t code) {
  bool has_result = false, has_type = false;
  spv::HasResultAndType(static_cast<spv::Op>(code), &has_result, &has_type);
  return static_cast<uint16_t>((has_result ? kShapeHasResult : 0u) | (has_type ? kShapeHasType : 0u) |
                               (MinWordCountSearch(code) << kShapeMinWordsShift));
}

// Every opcode up to the grammar's last one, computed once: the parser asks per
// instruction, and the header's switch plus a binary search were a tenth of a small
// module's rewrite.
constexpr uint32_t kTableSize = std::end(kFewest)[-1].opcode + 1;

struct ShapeTable {
  uint16_t shape[kTableSize];
  ShapeTable() {
    for (uint32_t code = 0; code < kTableSize; ++code) shape[code] = ComputeShape(code);
  }
};

}  // namespace

uint32_t OpShape(spv::Op op) {
  static const ShapeTable table;
  const uint32_t code = static_cast<uint32_t>(op);
  return code < kTableSize ? table.shape[code] : ComputeShape(code);
}

uint32_t MinWordCount(spv::Op op) { return OpShape(op) >> kShapeMinWordsShift; }

}  // namespace bindery::spirv
