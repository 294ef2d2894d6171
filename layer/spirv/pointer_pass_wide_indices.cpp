// PointerPass: array elements of buffer pointers beyond 2 GiB, in 64-bit address arithmetic.
//
// A descriptor access never reaches past 4 GiB, so drivers may form an access chain's byte
// offset in 32 bits and add only the base address in 64 (NVIDIA does, whatever the width of
// the indices: VK_EXT_shader_64bit_indexing exists to ask for more). Once the buffer is a
// PhysicalStorageBuffer pointer it may be larger than 4 GiB, and a word at 4.1 GiB would
// land at 0.1 GiB. With shaderInt64, an array index whose byte offset may reach 2 GiB (a
// dynamic index, a large or negative constant, OpPtrAccessChain's Element; into a runtime
// array or a sized one whose extent reaches 2 GiB) leaves the chain: the chain up to the array yields a pointer to element 0, which becomes an integer,
// gets index x stride added in 64 bits (the index extended by its signedness: OpSConvert
// for a signed index, so a negative Element keeps its meaning) and becomes a pointer again;
// the rest of the chain goes on from there. Small constants and struct member indices stay
// in chains; vector and matrix indices move a few bytes at most. Arrays of matrices keep
// their index in the chain, only widened to 64 bits: a matrix's layout is a decoration of
// the struct member holding it, which a pointer to the matrix would lose.
#include "spirv/pointer_pass.h"

namespace bindery::spirv {
namespace {

// A constant index whose offset stays below this keeps its 32-bit form.
constexpr uint64_t kSmallOffset = uint64_t{1} << 31;

// A constant index's value, sign- or zero-extended as its type says (a narrow constant is
// stored in one word).
int64_t ExtendedValue(uint32_t value, uint32_t width, bool is_signed) {
  if (!is_signed) return int64_t{value};
  return width == 32 ? int64_t{static_cast<int32_t>(value)}
                     : int64_t{static_cast<int32_t>(value << (32 - width)) >> (32 - width)};
}

// Whether index value `v` steps less than kSmallOffset bytes by `stride` (0: 1); a negative
// value never does (its sign must not depend on how a driver extends a 32-bit index).
bool SmallOffset(int64_t v, uint32_t stride) {
  return v >= 0 && static_cast<uint64_t>(v) * uint64_t{stride == 0 ? 1u : stride} < kSmallOffset;
}

}  // namespace

bool PointerPass::IndexIntType(uint32_t id, uint32_t* width, bool* is_signed) const {
  const Instruction* def = LocalDef(id);
  if (def == nullptr) def = types_.Def(id);
  if (def == nullptr) return false;
  const Instruction* t = types_.Def(def->type_id());
  if (t == nullptr || t->opcode() != spv::OpTypeInt) return false;
  *width = t->operand(0);
  *is_signed = t->operand(1) != 0;
  return true;
}

uint32_t PointerPass::WideIndex(uint32_t index, uint32_t strided_type) {
  uint32_t width = 0;
  bool is_signed = false;
  // Only the widths Vulkan has below 64 (anything else is a malformed module: left alone).
  if (!IndexIntType(index, &width, &is_signed) || (width != 8 && width != 16 && width != 32)) return index;
  uint32_t value = 0;
  if (types_.GetConstantValue(index, &value)) {
    const int64_t v = ExtendedValue(value, width, is_signed);
    // A negative constant is widened whatever its size: its sign must not depend on how a
    // driver extends a 32-bit index.
    uint32_t stride = 0;  // looked up only here: most indices are not constants
    types_.GetDecoration(strided_type, spv::DecorationArrayStride, &stride);
    if (SmallOffset(v, stride)) return index;
    const uint64_t bits = static_cast<uint64_t>(v);
    const uint32_t type = is_signed ? types_.GetIntType(64, true) : u64_;
    return types_.GetConstant(type, {static_cast<uint32_t>(bits), static_cast<uint32_t>(bits >> 32)});
  }
  return Emit(is_signed ? spv::OpSConvert : spv::OpUConvert, u64_, {index});
}

bool PointerPass::SmallConstantIndex(uint32_t index, uint32_t strided_type) const {
  uint32_t width = 0, value = 0;
  bool is_signed = false;
  if (!IndexIntType(index, &width, &is_signed) || width > 32 || !types_.GetConstantValue(index, &value)) return false;
  uint32_t stride = 0;
  types_.GetDecoration(strided_type, spv::DecorationArrayStride, &stride);
  return SmallOffset(ExtendedValue(value, width, is_signed), stride);
}

uint32_t PointerPass::OffsetPointer(uint32_t pointer, uint32_t pointer_type, uint32_t index, uint32_t stride) {
  uint32_t width = 0, value = 0;
  bool is_signed = false;
  uint32_t offset = 0;
  if (IndexIntType(index, &width, &is_signed) && width <= 32 && types_.GetConstantValue(index, &value)) {
    // A constant index: its byte offset as one 64-bit constant (two's complement when
    // negative), sign- or zero-extended as WideIndex does.
    const uint64_t bytes = static_cast<uint64_t>(ExtendedValue(value, width, is_signed)) * uint64_t{stride};
    offset = types_.GetConstant(u64_, {static_cast<uint32_t>(bytes), static_cast<uint32_t>(bytes >> 32)});
  } else {
    const uint32_t wide = WideIndex(index, 0);  // by its signedness; a 64-bit index as it is
    offset = stride == 1 ? wide : Emit(spv::OpIMul, u64_, {wide, types_.GetConstant(u64_, {stride, 0})});
  }
  const uint32_t address = Emit(spv::OpConvertPtrToU, u64_, {pointer});
  return Emit(spv::OpConvertUToPtr, pointer_type, {Emit(spv::OpIAdd, u64_, {address, offset})});
}

void PointerPass::WidenChainIndices(Instruction* chain, uint32_t base_pointer_type, uint32_t pointee, uint32_t first) {
  if (!options_.shader_int64) return;
  const spv::Op op = chain->opcode();
  const uint32_t result_type = chain->type_id();
  const uint32_t result = chain->result_id();
  PooledScratch<uint32_t> operands_scratch, pending_scratch;
  std::vector<uint32_t>& operands = operands_scratch.v;
  operands.assign(chain->words().begin() + chain->first_operand_index(), chain->words().end());
  WideChain rebuilt;
  rebuilt.base = operands[0];
  rebuilt.pending = &pending_scratch.v;
  rebuilt.in_bounds = op == spv::OpInBoundsAccessChain || op == spv::OpInBoundsPtrAccessChain;
  if (op == spv::OpPtrAccessChain || op == spv::OpInBoundsPtrAccessChain) {
    first = 2;
    if (operands.size() > 1) WidenElement(operands[1], base_pointer_type, &rebuilt);
  }
  uint32_t k = WidenIndices(operands, first, pointee, &rebuilt);
  for (; k < operands.size(); ++k) rebuilt.pending->push_back(operands[k]);
  if (!rebuilt.changed) {
    // Nothing moved to integer arithmetic: the chain as it was, its indices widened.
    if (rebuilt.element_index != 0) chain->set_operand(1, rebuilt.element_index);
    const std::vector<uint32_t>& pending = *rebuilt.pending;
    for (uint32_t n = first, m = 0; n < operands.size() && m < pending.size(); ++n, ++m) chain->set_operand(n, pending[m]);
    return;
  }
  *chain = rebuilt.Make(result_type, result);
}

// OpAccessChain, or OpPtrAccessChain while an Element is kept.
Instruction PointerPass::WideChain::Make(uint32_t type_id, uint32_t result_id) const {
  const spv::Op chain_op = element_index != 0
                               ? (in_bounds ? spv::OpInBoundsPtrAccessChain : spv::OpPtrAccessChain)
                               : (in_bounds ? spv::OpInBoundsAccessChain : spv::OpAccessChain);
  Instruction made(chain_op, type_id, result_id, {base});
  if (element_index != 0) made.add_operand(element_index);
  for (uint32_t w : *pending) made.add_operand(w);
  return made;
}

// OpPtrAccessChain's Element `element` on a base of `base_pointer_type`: kept when small,
// else the base moved by it in 64-bit arithmetic (widened in the chain where the base's
// type has no ArrayStride).
void PointerPass::WidenElement(uint32_t element, uint32_t base_pointer_type, WideChain* chain) {
  uint32_t stride = 0;
  if (base_pointer_type != 0) types_.GetDecoration(base_pointer_type, spv::DecorationArrayStride, &stride);
  if (SmallConstantIndex(element, base_pointer_type)) {
    chain->element_index = element;
  } else if (stride != 0) {
    // The base's type as the rewritten module has it (a descriptor's pointer becomes a
    // buffer pointer of the same stride).
    chain->base = OffsetPointer(chain->base, MappedType(base_pointer_type), element, stride);
    chain->changed = true;
  } else {
    chain->element_index = WideIndex(element, base_pointer_type);
  }
}

// The chain's indices from `first` into `pointee`: struct members and small indices stay
// pending, a wide array index is widened in the chain or leaves it (MoveIndexToArithmetic).
// Returns the first index not walked (into a vector or matrix, or a malformed type).
uint32_t PointerPass::WidenIndices(const std::vector<uint32_t>& operands, uint32_t first, uint32_t pointee,
                                   WideChain* chain) {
  uint32_t type = pointee;
  uint32_t k = first;
  for (; k < operands.size(); ++k) {
    // Emitting may add types and constants to the types section and move every
    // Instruction there: what is needed from `t` is read before emitting.
    const Instruction* t = types_.Def(type);
    if (t == nullptr) break;
    const spv::Op t_op = t->opcode();
    if (t_op == spv::OpTypeStruct) {
      uint32_t member = 0;
      if (!types_.GetConstantValue(operands[k], &member) || member >= t->operand_count()) break;
      type = t->operand(member);
      chain->pending->push_back(operands[k]);
      continue;
    }
    if (t_op != spv::OpTypeArray && t_op != spv::OpTypeRuntimeArray) break;  // vectors, matrices: a few bytes
    const uint32_t element = t->operand(0);
    const uint32_t array_length = t_op == spv::OpTypeArray ? t->operand(1) : 0;
    const uint32_t array_type = type;
    type = element;
    if (SmallConstantIndex(operands[k], array_type)) {
      chain->pending->push_back(operands[k]);
      continue;
    }
    const uint32_t stride = ArrayStrideLeavingChain(array_type, t_op, element, array_length);
    if (stride == 0) {  // no explicit layout, a matrix's, or a short array: only a wider index
      chain->pending->push_back(WideIndex(operands[k], array_type));
      continue;
    }
    MoveIndexToArithmetic(element, operands[k], stride, chain);
  }
  return k;
}

// The stride by which an index into `array_type` (of opcode `t_op`, elements `element`,
// length id `array_length` when sized) leaves the chain for 64-bit arithmetic; 0 where the
// index stays in the chain, widened.
uint32_t PointerPass::ArrayStrideLeavingChain(uint32_t array_type, spv::Op t_op, uint32_t element,
                                              uint32_t array_length) const {
  uint32_t stride = 0;
  types_.GetDecoration(array_type, spv::DecorationArrayStride, &stride);
  // A matrix's layout (RowMajor, MatrixStride) is a decoration of the struct member that
  // holds it: a pointer made to the matrix itself would lose it, so a chain to matrices
  // (or arrays of them) keeps the index, widened.
  const Instruction* inner = types_.Def(element);
  while (inner != nullptr && (inner->opcode() == spv::OpTypeArray || inner->opcode() == spv::OpTypeRuntimeArray)) {
    inner = types_.Def(inner->operand(0));
  }
  if (inner != nullptr && inner->opcode() == spv::OpTypeMatrix) return 0;
  // A sized array whose whole extent stays below 2 GiB cannot carry the chain's offset
  // that far: its index stays in the chain (widened), as cheap as before.
  uint32_t length = 0;
  if (t_op == spv::OpTypeArray && stride != 0 && types_.GetConstantValue(array_length, &length) &&
      uint64_t{length} * stride < kSmallOffset) {
    return 0;
  }
  return stride;
}

// The element's address in 64-bit integer arithmetic: a pointer to element 0 (the chain so
// far, then index 0), plus index x stride, as a new pointer that the rest of the chain
// starts from. Drivers may form an access chain's offset in 32 bits whatever its indices'
// width (only the base address is 64-bit unless 64-bit indexing is requested), so an
// offset that may pass 2 GiB never goes through a chain.
void PointerPass::MoveIndexToArithmetic(uint32_t element, uint32_t index, uint32_t stride, WideChain* chain) {
  const uint32_t element_pointer = types_.GetPointerType(spv::StorageClassPhysicalStorageBuffer, element);
  chain->pending->push_back(types_.GetUintConstant(0));
  const uint32_t zero_id = m_.TakeId();
  out_.push_back(chain->Make(element_pointer, zero_id));
  chain->base = OffsetPointer(zero_id, element_pointer, index, stride);
  chain->element_index = 0;
  chain->pending->clear();
  chain->changed = true;
}

}  // namespace bindery::spirv
