#include "spirv/uniform_descriptor_index.h"

#include <vector>

#include "spirv/type_manager.h"

namespace bindery::spirv {
namespace {

constexpr uint32_t kScopeSubgroup = 3;

bool UsesNonUniform(const Module& m) {
  for (const Instruction& c : m.capabilities)
    if (c.operand_count() && c.operand(0) == static_cast<uint32_t>(spv::CapabilityShaderNonUniform)) return true;
  for (const Instruction& a : m.annotations) {
    if ((a.opcode() == spv::OpDecorate || a.opcode() == spv::OpDecorateId) && a.operand_count() >= 2 &&
        a.operand(1) == static_cast<uint32_t>(spv::DecorationNonUniform))
      return true;
    if (a.opcode() == spv::OpMemberDecorate && a.operand_count() >= 3 &&
        a.operand(2) == static_cast<uint32_t>(spv::DecorationNonUniform))
      return true;
  }
  return false;
}

bool EveryEntryPointIn(const Module& m, uint32_t execution_model_mask) {
  if (m.entry_points.empty()) return false;
  for (const Instruction& ep : m.entry_points) {
    const uint32_t model = ep.operand(0);
    if (model >= 32 || ((execution_model_mask >> model) & 1u) == 0) return false;
  }
  return true;
}

bool IsAccessChain(spv::Op op) { return op == spv::OpAccessChain || op == spv::OpInBoundsAccessChain; }

}  // namespace

uint32_t BroadcastUniformDescriptorIndices(Module& m, uint32_t execution_model_mask) {
  if (m.version < 0x00010300 || !EveryEntryPointIn(m, execution_model_mask) || UsesNonUniform(m)) return 0;
  TypeManager types(m);
  // Arrays of descriptors that stay descriptors: images, samplers, texel buffers.
  std::vector<uint8_t> descriptor_array(m.bound, 0);
  for (const Instruction& v : m.types_values) {
    if (v.opcode() != spv::OpVariable || v.operand(0) != static_cast<uint32_t>(spv::StorageClassUniformConstant)) continue;
    const Instruction* pointee = types.Def(types.PointeeType(v.type_id()));
    if (pointee != nullptr && (pointee->opcode() == spv::OpTypeArray || pointee->opcode() == spv::OpTypeRuntimeArray) &&
        v.result_id() < descriptor_array.size())
      descriptor_array[v.result_id()] = 1;
  }
  // The type of every value defined in a function (an index defined globally is a
  // constant or a specialization constant: uniform already).
  std::vector<uint32_t> local_type(m.bound, 0);
  bool any = false;
  for (const Function& fn : m.functions) {
    for (const Instruction& inst : fn.instructions) {
      if (inst.has_type() && inst.has_result() && inst.result_id() < local_type.size())
        local_type[inst.result_id()] = inst.type_id();
      if (IsAccessChain(inst.opcode()) && inst.operand(0) < descriptor_array.size() && descriptor_array[inst.operand(0)])
        any = true;
    }
  }
  if (!any) return 0;

  uint32_t scope = 0;
  uint32_t count = 0;
  std::vector<Instruction> out;
  for (Function& fn : m.functions) {
    out.clear();
    out.reserve(fn.instructions.size() + 8);
    for (Instruction& inst : fn.instructions) {
      if (IsAccessChain(inst.opcode()) && inst.operand(0) < descriptor_array.size() && descriptor_array[inst.operand(0)]) {
        for (uint32_t k = 1; k < inst.operand_count(); ++k) {
          const uint32_t index = inst.operand(k);
          const uint32_t type = index < local_type.size() ? local_type[index] : 0;
          if (type == 0) continue;  // a constant
          if (scope == 0) scope = types.GetUintConstant(kScopeSubgroup);
          const uint32_t broadcast = m.TakeId();
          out.emplace_back(spv::OpGroupNonUniformBroadcastFirst, type, broadcast, std::initializer_list<uint32_t>{scope, index});
          inst.set_operand(k, broadcast);
          ++count;
        }
      }
      out.push_back(std::move(inst));
    }
    fn.instructions.swap(out);
  }
  if (count != 0) {
    bool has = false;
    for (const Instruction& c : m.capabilities)
      has = has || (c.operand_count() && c.operand(0) == static_cast<uint32_t>(spv::CapabilityGroupNonUniformBallot));
    if (!has) {
      m.capabilities.emplace_back(spv::OpCapability, 0, 0,
                                  std::initializer_list<uint32_t>{static_cast<uint32_t>(spv::CapabilityGroupNonUniformBallot)});
    }
  }
  return count;
}

}  // namespace bindery::spirv
