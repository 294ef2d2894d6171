// PointerPass: array indices of access chains on buffer pointers widened to 64 bits.
//
// A descriptor access never reaches past 4 GiB, so a 32-bit index into a runtime array is
// enough there and drivers may compute index x stride in 32 bits. Once the buffer is a
// PhysicalStorageBuffer pointer it may be larger than 4 GiB, and some drivers (NVIDIA's)
// still form the byte offset of a 32-bit index in 32 bits: a word at 4.1 GiB lands at
// 0.1 GiB. With shaderInt64 every dynamic array index (and OpPtrAccessChain's Element) of
// a rewritten chain is converted to 64 bits first, by its signedness (OpSConvert for a
// signed index, so a negative Element keeps its meaning), which makes the offset
// arithmetic 64-bit whatever the driver does. Constant indices stay 32-bit when their
// offset is small and positive; struct member indices are never touched (they must be 32-bit
// constants). Vector and matrix indices move a few bytes at most and stay as they are.
#include "spirv/pointer_pass.h"

namespace bindery::spirv {
namespace {

// A constant index whose offset stays below this keeps its 32-bit form.
constexpr uint64_t kSmallOffset = uint64_t{1} << 31;

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
    // Sign- or zero-extended value of the constant (narrow constants are stored in one word).
    int64_t v = is_signed ? (width == 32 ? int64_t{static_cast<int32_t>(value)}
                                         : int64_t{static_cast<int32_t>(value << (32 - width)) >> (32 - width)})
                          : int64_t{value};
    // A negative constant is widened whatever its size: its sign must not depend on how a
    // driver extends a 32-bit index.
    uint32_t stride = 0;  // looked up only here: most indices are not constants
    types_.GetDecoration(strided_type, spv::DecorationArrayStride, &stride);
    if (v >= 0 && static_cast<uint64_t>(v) * uint64_t{stride == 0 ? 1u : stride} < kSmallOffset) return index;
    const uint64_t bits = static_cast<uint64_t>(v);
    const uint32_t type = is_signed ? types_.GetIntType(64, true) : u64_;
    return types_.GetConstant(type, {static_cast<uint32_t>(bits), static_cast<uint32_t>(bits >> 32)});
  }
  return Emit(is_signed ? spv::OpSConvert : spv::OpUConvert, u64_, {index});
}

void PointerPass::WidenChainIndices(Instruction* chain, uint32_t base_pointer_type, uint32_t pointee, uint32_t first) {
  if (!options_.shader_int64) return;
  const spv::Op op = chain->opcode();
  if (op == spv::OpPtrAccessChain || op == spv::OpInBoundsPtrAccessChain) {
    if (chain->operand_count() > 1) chain->set_operand(1, WideIndex(chain->operand(1), base_pointer_type));
    first = 2;
  }
  uint32_t type = pointee;
  for (uint32_t k = first; k < chain->operand_count(); ++k) {
    // Emitting may add constants to the types section and move every Instruction there:
    // what is needed from `t` is read before WideIndex.
    const Instruction* t = types_.Def(type);
    if (t == nullptr) return;
    switch (t->opcode()) {
      case spv::OpTypeStruct: {
        uint32_t member = 0;
        if (!types_.GetConstantValue(chain->operand(k), &member) || member >= t->operand_count()) return;
        type = t->operand(member);
        break;
      }
      case spv::OpTypeArray:
      case spv::OpTypeRuntimeArray: {
        const uint32_t element = t->operand(0);
        chain->set_operand(k, WideIndex(chain->operand(k), type));
        type = element;
        break;
      }
      default:
        return;  // vectors and matrices: a few bytes; nothing past them is an array
    }
  }
}

}  // namespace bindery::spirv
