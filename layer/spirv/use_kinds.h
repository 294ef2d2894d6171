// How an instruction may use a pointer operand: which operand positions can hold a
// pointer for the opcodes the rewrite understands, and which opcodes never take one.
// Anything else is scanned word by word, so an unknown use of a buffer pointer is seen
// (conservatively: a literal equal to the id also counts) and the shader is left native.
#pragma once

#include "spirv/instruction.h"

namespace bindery::spirv {

inline bool IsAtomic(spv::Op op) {
  return (op >= spv::OpAtomicLoad && op <= spv::OpAtomicXor) || op == spv::OpAtomicFlagTestAndSet ||
         op == spv::OpAtomicFlagClear || op == spv::OpAtomicFMinEXT || op == spv::OpAtomicFMaxEXT ||
         op == spv::OpAtomicFAddEXT;
}

inline bool IsAccessChain(spv::Op op) {
  return op == spv::OpAccessChain || op == spv::OpInBoundsAccessChain || op == spv::OpPtrAccessChain ||
         op == spv::OpInBoundsPtrAccessChain;
}

// Which operand positions of an opcode can hold a pointer the rewrite must follow.
enum class PointerOperands : uint8_t {
  kNone, kFirst, kFirstTwo, kSecondAndThird, kEven, kAllButFirst, kSecond, kAll,
};

inline PointerOperands PointerOperandsOf(spv::Op op) {
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
    // Never a pointer operand (literals here could look like ids).
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
  return PointerOperands::kAll;
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
    case PointerOperands::kAll: return true;
  }
  return true;
}

// True when operand `i` of `inst` can hold a pointer the rewrite must follow.
inline bool MayHoldPointer(const Instruction& inst, uint32_t i) {
  return IsPointerOperand(PointerOperandsOf(inst.opcode()), i);
}

}  // namespace bindery::spirv
