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

// True when operand `i` of `inst` can hold a pointer the rewrite must follow.
inline bool MayHoldPointer(const Instruction& inst, uint32_t i) {
  const spv::Op op = inst.opcode();
  if (IsAccessChain(op)) return i == 0;
  if (IsAtomic(op)) return i == 0;
  switch (op) {
    case spv::OpLoad: case spv::OpArrayLength: case spv::OpCopyObject: case spv::OpReturnValue:
      return i == 0;
    case spv::OpStore: case spv::OpCopyMemory: case spv::OpCopyMemorySized:
      return i <= 1;
    case spv::OpSelect: return i == 1 || i == 2;
    case spv::OpPhi: return i % 2 == 0;
    case spv::OpFunctionCall: return i >= 1;
    case spv::OpVariable: return i == 1;
    // Never a pointer operand (literals here could look like ids).
    case spv::OpLabel: case spv::OpBranch: case spv::OpBranchConditional: case spv::OpSwitch:
    case spv::OpSelectionMerge: case spv::OpLoopMerge: case spv::OpReturn: case spv::OpKill:
    case spv::OpUnreachable: case spv::OpLine: case spv::OpNoLine: case spv::OpFunction:
    case spv::OpFunctionEnd: case spv::OpFunctionParameter: case spv::OpCompositeExtract:
    case spv::OpCompositeInsert: case spv::OpCompositeConstruct: case spv::OpVectorShuffle:
    case spv::OpVectorExtractDynamic: case spv::OpVectorInsertDynamic: case spv::OpControlBarrier:
    case spv::OpMemoryBarrier: case spv::OpTerminateInvocation: case spv::OpDemoteToHelperInvocation:
      return false;
    default: break;
  }
  // Arithmetic, logic, comparisons, conversions other than the pointer ones.
  if (op >= spv::OpConvertFToU && op <= spv::OpBitCount && op != spv::OpConvertPtrToU &&
      op != spv::OpConvertUToPtr && op != spv::OpPtrCastToGeneric && op != spv::OpGenericCastToPtr &&
      op != spv::OpGenericCastToPtrExplicit && op != spv::OpBitcast)
    return false;
  // Image instructions take images and sampled images, never buffer pointers.
  if (op >= spv::OpSampledImage && op <= spv::OpImageQuerySamples) return false;
  return true;
}

}  // namespace bindery::spirv
