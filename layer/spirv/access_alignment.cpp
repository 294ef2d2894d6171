#include "spirv/access_alignment.h"

#include <numeric>

#include "spirv/instruction.h"
#include "spirv/type_manager.h"

namespace bindery::spirv {
namespace {

// Steps one index into `type`: its offset contribution as a multiple (`stride`, for a
// dynamic index) or a constant (`offset`), and the type indexed into. False when the
// layout does not say (no Offset / ArrayStride), or for matrices and vectors, whose
// component layout the rewrite never relies on.
bool StepInto(const TypeManager& types, uint32_t* type, uint32_t index_id, uint64_t* term) {
  const Instruction* t = types.Def(*type);
  if (t == nullptr) return false;
  uint32_t index = 0;
  const bool constant = types.GetConstantValue(index_id, &index);
  switch (t->opcode()) {
    case spv::OpTypeStruct: {
      uint32_t offset = 0;
      if (!constant || index >= t->operand_count() ||
          !types.GetMemberDecoration(*type, index, spv::DecorationOffset, &offset)) {
        return false;
      }
      *term = offset;
      *type = t->operand(index);
      return true;
    }
    case spv::OpTypeArray:
    case spv::OpTypeRuntimeArray: {
      uint32_t stride = 0;
      if (!types.GetDecoration(*type, spv::DecorationArrayStride, &stride) || stride == 0) return false;
      *term = constant ? uint64_t{index} * stride : stride;
      *type = t->operand(0);
      return true;
    }
    default:
      return false;
  }
}

uint32_t LargestPowerOfTwoDividing(uint64_t value) {
  if (value == 0) return 0;
  uint64_t p = value & (~value + 1);
  return p > (1u << 16) ? (1u << 16) : static_cast<uint32_t>(p);
}

}  // namespace

uint32_t KnownAccessAlignment(const AccessAlignmentQuery& q, uint32_t pointer) {
  if (q.base_alignment == 0 || q.types == nullptr) return 0;
  const TypeManager& types = *q.types;
  uint64_t divisor = q.base_alignment;  // gcd of the base alignment and every offset term
  uint32_t id = pointer;
  for (int depth = 0; depth < 64; ++depth) {
    if (q.is_converted_variable(id)) return LargestPowerOfTwoDividing(divisor);
    const Instruction* inst = q.local_def(id);
    if (inst == nullptr) return 0;
    const spv::Op op = inst->opcode();
    if (op == spv::OpCopyObject) {
      id = inst->operand(0);
      continue;
    }
    if (op != spv::OpAccessChain && op != spv::OpInBoundsAccessChain) return 0;
    const uint32_t base = inst->operand(0);
    const Instruction* base_def = q.is_converted_variable(base) ? types.Def(base) : q.local_def(base);
    if (base_def == nullptr) return 0;
    uint32_t type = types.PointeeType(base_def->type_id());
    uint32_t first = 1;
    // An arrayed descriptor variable: the first index picks a descriptor (its own base).
    if (q.is_converted_variable(base)) {
      const Instruction* t = types.Def(type);
      if (t != nullptr && (t->opcode() == spv::OpTypeArray || t->opcode() == spv::OpTypeRuntimeArray) &&
          !types.HasDecoration(type, spv::DecorationArrayStride)) {
        if (inst->operand_count() < 2) return LargestPowerOfTwoDividing(divisor);
        type = t->operand(0);
        first = 2;
      }
    }
    for (uint32_t k = first; k < inst->operand_count(); ++k) {
      uint64_t term = 0;
      if (!StepInto(types, &type, inst->operand(k), &term)) return 0;
      divisor = std::gcd(divisor, term);
    }
    id = base;
  }
  return 0;
}

}  // namespace bindery::spirv
