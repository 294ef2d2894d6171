// The generated grammar tables (grammar_tables.inc, written at build time by
// gen_grammar_tables.py) and the lookups operand_kinds.h declares.
#include "spirv/operand_kinds.h"

#include <algorithm>
#include <iterator>
#include <vector>

namespace bindery::spirv::grammar {
namespace {

#include "spirv/grammar_tables.inc"

}  // namespace

const InstructionEntry* FindInstruction(uint32_t opcode) {
  // A direct table up to the last opcode (a few thousand entries), built once.
  struct ByOpcode {
    std::vector<int16_t> index;
    ByOpcode() : index(std::end(kInstructions)[-1].opcode + 1u, int16_t{-1}) {
      for (uint32_t i = 0; i < std::size(kInstructions); ++i) index[kInstructions[i].opcode] = static_cast<int16_t>(i);
    }
  };
  // Never destroyed: exit() runs static destructors while other threads (a driver's, an
  // application's) may still create pipelines, and a program's own atexit teardown may too
  // (bindings/exit_teardown_test.cpp).
  static const ByOpcode& table = *new ByOpcode();
  return opcode < table.index.size() && table.index[opcode] >= 0 ? &kInstructions[table.index[opcode]] : nullptr;
}

const InstructionEntry* Instructions(uint32_t* count) {
  *count = static_cast<uint32_t>(std::size(kInstructions));
  return kInstructions;
}

const KindEntry& Kind(uint16_t index) { return kKinds[index]; }
const OperandEntry* Operands() { return kOperands; }
const EnumEntry* EnumEntries() { return kEnumEntries; }
uint16_t OperandKindParam(uint32_t index) { return kParamKinds[index]; }
const ExtInstructionEntry* ExtInstructions() { return kExtInstructions; }

const ExtSetEntry* ExtSets(uint32_t* count) {
  *count = kExtSets[0].name[0] == 0 ? 0u : static_cast<uint32_t>(std::size(kExtSets));
  return kExtSets;
}

const ExtSetEntry* FindExtSet(std::string_view import_name) {
  for (const ExtSetEntry& s : kExtSets) {
    const std::string_view name(s.name);
    if (name.empty()) continue;
    if (name.back() == '.' ? import_name.substr(0, name.size()) == name : import_name == name) return &s;
  }
  return nullptr;
}

const ExtInstructionEntry* FindExtInstruction(const ExtSetEntry* set, uint32_t number) {
  const ExtInstructionEntry* first = kExtInstructions + set->first;
  const ExtInstructionEntry* last = first + set->count;
  const ExtInstructionEntry* it =
      std::lower_bound(first, last, number, [](const ExtInstructionEntry& e, uint32_t n) { return e.number < n; });
  return (it != last && it->number == number) ? it : nullptr;
}

const EnumEntry* detail::FindEnum(const KindEntry& kind, uint32_t value) {
  const EnumEntry* first = kEnumEntries + kind.first_enum;
  const EnumEntry* last = first + kind.enum_count;
  const EnumEntry* it = std::lower_bound(first, last, value, [](const EnumEntry& e, uint32_t v) { return e.value < v; });
  return (it != last && it->value == value) ? it : nullptr;
}

}  // namespace bindery::spirv::grammar
