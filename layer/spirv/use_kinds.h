// How an instruction may use a pointer operand: which operand positions can hold a
// pointer for the opcodes the rewrite understands, and which opcodes never take one under
// Logical addressing. Anything else is scanned for every id operand the SPIR-V grammar
// gives it (operand_kinds.h; an extended instruction by its own set's grammar), so an
// unknown use of a buffer pointer is seen and the shader is left native, while a literal
// that happens to equal a pointer's id (an extended instruction's number,
// OpSpecConstantOp's opcode) is not mistaken for a use.
#pragma once

#include <utility>
#include <vector>

#include "spirv/instruction.h"
#include "spirv/module.h"
#include "spirv/operand_kinds.h"

namespace bindery::spirv {

constexpr bool IsAtomic(spv::Op op) {
  return (op >= spv::OpAtomicLoad && op <= spv::OpAtomicXor) || op == spv::OpAtomicFlagTestAndSet ||
         op == spv::OpAtomicFlagClear || op == spv::OpAtomicFMinEXT || op == spv::OpAtomicFMaxEXT ||
         op == spv::OpAtomicFAddEXT;
}

constexpr bool IsAccessChain(spv::Op op) {
  return op == spv::OpAccessChain || op == spv::OpInBoundsAccessChain || op == spv::OpPtrAccessChain ||
         op == spv::OpInBoundsPtrAccessChain;
}

// Which operand positions of an opcode can hold a pointer the rewrite must follow.
enum class PointerOperands : uint8_t {
  kNone, kFirst, kFirstTwo, kSecondAndThird, kEven, kAllButFirst, kSecond,
  kGrammarIds,  // every id operand the grammar gives the instruction
};

constexpr PointerOperands PointerOperandsOfSlow(spv::Op op) {
  if (IsAccessChain(op)) return PointerOperands::kFirst;
  if (IsAtomic(op)) return PointerOperands::kFirst;
  switch (op) {
    case spv::OpLoad: case spv::OpArrayLength: case spv::OpCopyObject: case spv::OpReturnValue:
      return PointerOperands::kFirst;
    case spv::OpStore: case spv::OpCopyMemory: case spv::OpCopyMemorySized:
      return PointerOperands::kFirstTwo;
    case spv::OpSelect: return PointerOperands::kSecondAndThird;
    case spv::OpPhi: return PointerOperands::kEven;
    case spv::OpFunctionCall: return PointerOperands::kAllButFirst;
    case spv::OpVariable: return PointerOperands::kSecond;
    // Never a buffer pointer operand: control flow, and composites (which cannot hold a
    // pointer under Logical addressing).
    case spv::OpLabel: case spv::OpBranch: case spv::OpBranchConditional: case spv::OpSwitch:
    case spv::OpSelectionMerge: case spv::OpLoopMerge: case spv::OpReturn: case spv::OpKill:
    case spv::OpUnreachable: case spv::OpLine: case spv::OpNoLine: case spv::OpFunction:
    case spv::OpFunctionEnd: case spv::OpFunctionParameter: case spv::OpCompositeExtract:
    case spv::OpCompositeInsert: case spv::OpCompositeConstruct: case spv::OpVectorShuffle:
    case spv::OpVectorExtractDynamic: case spv::OpVectorInsertDynamic: case spv::OpControlBarrier:
    case spv::OpMemoryBarrier: case spv::OpTerminateInvocation: case spv::OpDemoteToHelperInvocation:
      return PointerOperands::kNone;
    default: break;
  }
  // Arithmetic, logic, comparisons, conversions other than the pointer ones.
  if (op >= spv::OpConvertFToU && op <= spv::OpBitCount && op != spv::OpConvertPtrToU &&
      op != spv::OpConvertUToPtr && op != spv::OpPtrCastToGeneric && op != spv::OpGenericCastToPtr &&
      op != spv::OpGenericCastToPtrExplicit && op != spv::OpBitcast)
    return PointerOperands::kNone;
  // Image instructions take images and sampled images, never buffer pointers.
  if (op >= spv::OpSampledImage && op <= spv::OpImageQuerySamples) return PointerOperands::kNone;
  return PointerOperands::kGrammarIds;
}

// PointerOperandsOfSlow for the opcodes below kSize, computed at compile time: the pass
// asks for every instruction of every function (the uses, the rewrite), and the chain of
// tests above was a visible share of that.
struct PointerOperandsTable {
  static constexpr uint32_t kSize = 512;
  PointerOperands kinds[kSize];
  constexpr PointerOperandsTable() : kinds() {
    for (uint32_t code = 0; code < kSize; ++code) kinds[code] = PointerOperandsOfSlow(static_cast<spv::Op>(code));
  }
};
inline constexpr PointerOperandsTable kPointerOperandsTable{};

inline PointerOperands PointerOperandsOf(spv::Op op) {
  const uint32_t code = static_cast<uint32_t>(op);
  return code < PointerOperandsTable::kSize ? kPointerOperandsTable.kinds[code] : PointerOperandsOfSlow(op);
}

inline bool IsPointerOperand(PointerOperands kind, uint32_t i) {
  switch (kind) {
    case PointerOperands::kNone: return false;
    case PointerOperands::kFirst: return i == 0;
    case PointerOperands::kFirstTwo: return i <= 1;
    case PointerOperands::kSecondAndThird: return i == 1 || i == 2;
    case PointerOperands::kEven: return i % 2 == 0;
    case PointerOperands::kAllButFirst: return i >= 1;
    case PointerOperands::kSecond: return i == 1;
    case PointerOperands::kGrammarIds: return true;
  }
  return true;
}

// The grammar of the set each OpExtInstImport of a module names (nullptr: a set the
// grammars do not describe, whose operands all count as ids).
class ExtInstSets {
 public:
  explicit ExtInstSets(const Module& m) {
    for (const Instruction& i : m.ext_inst_imports) {
      if (!i.has_result()) continue;
      const std::pair<uint32_t, const grammar::ExtSetEntry*> set(i.result_id(), grammar::FindExtSet(i.string_operand(0)));
      if (inline_count_ < kInline) inline_[inline_count_++] = set;
      else more_.push_back(set);
    }
  }
  const grammar::ExtSetEntry* Of(uint32_t import_id) const {
    for (uint32_t s = 0; s < inline_count_; ++s)
      if (inline_[s].first == import_id) return inline_[s].second;
    for (const auto& [id, set] : more_)
      if (id == import_id) return set;
    return nullptr;
  }
  // The set of an OpExtInst (nullptr for any other instruction).
  const grammar::ExtSetEntry* SetOf(const Instruction& inst) const {
    return inst.opcode() == spv::OpExtInst && inst.operand_count() ? Of(inst.operand(0)) : nullptr;
  }

 private:
  // A module imports one or two sets: those live here, so a rewrite allocates nothing for them.
  static constexpr uint32_t kInline = 4;
  std::pair<uint32_t, const grammar::ExtSetEntry*> inline_[kInline] = {};
  uint32_t inline_count_ = 0;
  std::vector<std::pair<uint32_t, const grammar::ExtSetEntry*>> more_;
};

// Calls fn(operand index) for each operand of `inst` that can hold a pointer the rewrite
// must follow (`kind` is PointerOperandsOf(inst.opcode()), which callers often have).
template <typename Fn>
inline void ForEachPointerOperand(const Instruction& inst, PointerOperands kind, const ExtInstSets& sets, Fn&& fn) {
  if (kind == PointerOperands::kNone) return;
  if (kind == PointerOperands::kGrammarIds) {
    grammar::ForEachIdOperand(inst, sets.SetOf(inst), fn);
    return;
  }
  // The positions IsPointerOperand accepts, visited directly in ascending order.
  const uint32_t n = inst.operand_count();
  switch (kind) {
    case PointerOperands::kFirst:
      if (n > 0) fn(0u);
      return;
    case PointerOperands::kFirstTwo:
      for (uint32_t k = 0; k < n && k < 2; ++k) fn(k);
      return;
    case PointerOperands::kSecondAndThird:
      for (uint32_t k = 1; k < n && k < 3; ++k) fn(k);
      return;
    case PointerOperands::kEven:
      for (uint32_t k = 0; k < n; k += 2) fn(k);
      return;
    case PointerOperands::kAllButFirst:
      for (uint32_t k = 1; k < n; ++k) fn(k);
      return;
    case PointerOperands::kSecond:
      if (n > 1) fn(1u);
      return;
    case PointerOperands::kNone:
    case PointerOperands::kGrammarIds:
      return;
  }
}

}  // namespace bindery::spirv
