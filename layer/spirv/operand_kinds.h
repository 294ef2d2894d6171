// Which operands of an instruction are ids and which are literals, from the SPIR-V
// grammars (tables generated at build time by gen_grammar_tables.py, grammar.cmake).
// The rewrite asks this wherever it must find the ids an instruction names without
// knowing the instruction: a literal (an extended instruction's number, OpSpecConstantOp's
// opcode, a decoration's value, an Aligned operand) is never mistaken for an id.
#pragma once

#include <cstdint>
#include <string_view>

#include "spirv/instruction.h"

namespace bindery::spirv::grammar {

enum class OperandClass : uint8_t {
  kId,             // IdRef, IdScope, IdMemorySemantics
  kLiteral,        // one word: LiteralInteger, LiteralExtInstInteger, LiteralSpecConstantOpInteger
  kString,         // nul-terminated, padded to words
  kContextNumber,  // a literal as wide as a type says (OpConstant: every word left)
  kPairLiteralId,
  kPairIdLiteral,
  kPairIdId,
  kValueEnum,      // one word; some values bring operands of their own
  kBitEnum,        // one word; each set bit may bring operands, in bit order
};
enum class Quantifier : uint8_t { kOne, kOptional, kAny };

struct KindEntry {
  const char* name;
  OperandClass cls;
  uint16_t first_enum;   // into kEnumEntries: the values that bring operands
  uint16_t enum_count;
};
struct EnumEntry {
  uint32_t value;
  uint16_t first_param;  // into kParamKinds
  uint8_t param_count;
  uint8_t last_repeats;  // the last parameter takes every word left
};
struct OperandEntry {
  uint16_t kind;
  Quantifier quantifier;
};
struct InstructionEntry {
  uint16_t opcode;
  uint8_t has_type;
  uint8_t has_result;
  uint16_t first_operand;  // into kOperands (result type and result left out)
  uint16_t operand_count;
  uint16_t fewest_words;
  const char* name;  // "OpLoad"
};
struct ExtInstructionEntry {
  uint32_t number;
  uint16_t first_operand;
  uint16_t operand_count;
  const char* name;  // "FMin"
};
struct ExtSetEntry {
  const char* name;  // as OpExtInstImport names it; a trailing '.' takes any version suffix
  uint16_t first;    // into the extended instructions
  uint16_t count;
};

// The grammar's entry for an opcode, or nullptr for one it does not know.
const InstructionEntry* FindInstruction(uint32_t opcode);
// Every core instruction of the grammar (tests walk them).
const InstructionEntry* Instructions(uint32_t* count);
const KindEntry& Kind(uint16_t index);
const OperandEntry* Operands();
// The set an OpExtInstImport names, or nullptr for a set the grammars do not describe.
const ExtSetEntry* FindExtSet(std::string_view import_name);
const ExtSetEntry* ExtSets(uint32_t* count);
const ExtInstructionEntry* FindExtInstruction(const ExtSetEntry* set, uint32_t number);
const ExtInstructionEntry* ExtInstructions();
// The enum values that bring operands (KindEntry::first_enum.., sorted by value per kind).
const EnumEntry* EnumEntries();
// The kind of enum parameter `index` (EnumEntry::first_param + p).
uint16_t OperandKindParam(uint32_t index);

// Calls fn(operand index) for each operand of `inst` (indices as Instruction::operand
// counts them, after result type and result) that is an id: id operands, the ids of
// pairs, and the id parameters enum values bring. For OpExtInst, the extended
// instruction's operands follow `ext_set`'s grammar; with a null `ext_set` (a set the
// grammars do not describe, or an instruction number the set lacks) every operand after
// the instruction number counts as an id. For an opcode the grammar does not know, every
// operand counts as an id. `switch_literal_words`: words of each OpSwitch case literal
// (the selector's width / 32; 1 unless the caller knows better).
// Returns false when the words do not match the grammar (an operand runs past the end).
template <typename Fn>
bool ForEachIdOperand(const Instruction& inst, const ExtSetEntry* ext_set, Fn&& fn, uint32_t switch_literal_words = 1);

// The walk behind ForEachIdOperand: one operand kind at a time, from operand index `at`.
namespace detail {
struct Walker {
  const Instruction& inst;
  uint32_t at = 0;       // next operand index
  uint32_t literal_words = 1;
  bool ok = true;
  template <typename Fn> void Kind(uint16_t kind, Fn& fn);
  template <typename Fn> void Params(const EnumEntry& e, Fn& fn);
  template <typename Fn> void Operand(const OperandEntry& o, Fn& fn, bool last);
  bool More() const { return at < inst.operand_count(); }
};
const EnumEntry* FindEnum(const KindEntry& kind, uint32_t value);
}  // namespace detail

template <typename Fn>
void detail::Walker::Params(const EnumEntry& e, Fn& fn) {
  for (uint32_t p = 0; p < e.param_count; ++p) {
    const uint16_t kind = OperandKindParam(e.first_param + p);
    const bool repeats = e.last_repeats && p + 1 == e.param_count;
    if (repeats) {
      while (ok && More()) Kind(kind, fn);
    } else {
      if (!More()) { ok = false; return; }
      Kind(kind, fn);
    }
  }
}

template <typename Fn>
void detail::Walker::Kind(uint16_t kind, Fn& fn) {
  const KindEntry& k = grammar::Kind(kind);
  const uint32_t n = inst.operand_count();
  switch (k.cls) {
    case OperandClass::kId: fn(at); ++at; break;
    case OperandClass::kLiteral: ++at; break;
    case OperandClass::kString: {
      uint32_t next = at;
      inst.string_operand(at, &next);
      at = next;
      break;
    }
    case OperandClass::kContextNumber: at += literal_words; break;
    case OperandClass::kPairLiteralId: at += literal_words; if (at < n) fn(at); ++at; break;
    case OperandClass::kPairIdLiteral: fn(at); at += 2; break;
    case OperandClass::kPairIdId: fn(at); if (at + 1 < n) fn(at + 1); at += 2; break;
    case OperandClass::kValueEnum: {
      const uint32_t value = inst.operand(at++);
      if (k.enum_count)
        if (const EnumEntry* e = FindEnum(k, value)) Params(*e, fn);
      break;
    }
    case OperandClass::kBitEnum: {
      const uint32_t mask = inst.operand(at++);
      if (k.enum_count && mask)
        for (uint32_t bit = 1; bit != 0 && ok; bit <<= 1)
          if (mask & bit)
            if (const EnumEntry* e = FindEnum(k, bit)) Params(*e, fn);
      break;
    }
  }
  if (at > n) ok = false;
}

template <typename Fn>
void detail::Walker::Operand(const OperandEntry& o, Fn& fn, bool last) {
  // OpConstant's and OpSpecConstant's value: every word left.
  if (o.quantifier == Quantifier::kOne && last && grammar::Kind(o.kind).cls == OperandClass::kContextNumber) {
    at = inst.operand_count();
    return;
  }
  switch (o.quantifier) {
    case Quantifier::kOne:
      if (!More()) { ok = false; return; }
      Kind(o.kind, fn);
      break;
    case Quantifier::kOptional:
      if (More()) Kind(o.kind, fn);
      break;
    case Quantifier::kAny:
      while (ok && More()) Kind(o.kind, fn);
      break;
  }
}

template <typename Fn>
bool ForEachIdOperand(const Instruction& inst, const ExtSetEntry* ext_set, Fn&& fn, uint32_t switch_literal_words) {
  const InstructionEntry* entry = FindInstruction(static_cast<uint32_t>(inst.opcode()));
  if (entry == nullptr) {
    for (uint32_t k = 0; k < inst.operand_count(); ++k) fn(k);
    return true;
  }
  detail::Walker w{inst};
  if (inst.opcode() == spv::OpSwitch) w.literal_words = switch_literal_words == 0 ? 1 : switch_literal_words;
  const OperandEntry* ops = Operands() + entry->first_operand;
  if (inst.opcode() == spv::OpExtInst) {
    // Set id, then the instruction number, then the set's own operands.
    if (inst.operand_count() < 2) return false;
    fn(0u);
    w.at = 2;
    const ExtInstructionEntry* ext = ext_set ? FindExtInstruction(ext_set, inst.operand(1)) : nullptr;
    if (ext == nullptr) {
      for (uint32_t k = 2; k < inst.operand_count(); ++k) fn(k);
      return true;
    }
    const OperandEntry* ext_ops = Operands() + ext->first_operand;
    for (uint32_t i = 0; i < ext->operand_count && w.ok; ++i) w.Operand(ext_ops[i], fn, i + 1 == ext->operand_count);
  } else {
    for (uint32_t i = 0; i < entry->operand_count && w.ok; ++i) w.Operand(ops[i], fn, i + 1 == entry->operand_count);
  }
  // Words the grammar has no operand for: malformed, but never hide an id in them.
  for (uint32_t k = w.at; k < inst.operand_count(); ++k) fn(k);
  return w.ok && w.at <= inst.operand_count();
}

}  // namespace bindery::spirv::grammar
