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

bool BroadcastPossible(const Module& m, uint32_t execution_model_mask) {
  return m.version >= 0x00010300 && EveryEntryPointIn(m, execution_model_mask) && !UsesNonUniform(m);
}

bool AnyEntryPointIn(const Module& m, uint32_t execution_model_mask) {
  for (const Instruction& ep : m.entry_points) {
    const uint32_t model = ep.operand(0);
    if (model < 32 && ((execution_model_mask >> model) & 1u) != 0) return true;
  }
  return false;
}

uint32_t BroadcastUniformDescriptorIndices(Module& m, uint32_t execution_model_mask) {
  if (!BroadcastPossible(m, execution_model_mask)) return 0;
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

namespace bindery::spirv {
namespace {

// The variable a pointer is derived from (through access chains and copies), or 0.
uint32_t RootVariable(uint32_t pointer, const std::vector<const Instruction*>& local, const std::vector<uint8_t>& is_variable) {
  for (int depth = 0; depth < 64 && pointer < local.size(); ++depth) {
    if (is_variable[pointer]) return pointer;
    const Instruction* def = local[pointer];
    if (def == nullptr || def->operand_count() == 0) return 0;
    const spv::Op op = def->opcode();
    if (op != spv::OpAccessChain && op != spv::OpInBoundsAccessChain && op != spv::OpPtrAccessChain &&
        op != spv::OpInBoundsPtrAccessChain && op != spv::OpCopyObject)
      return 0;
    pointer = def->operand(0);
  }
  return 0;
}

// What the walk back from the descriptor-array indices knows of each id (tables sized at
// the module's bound).
struct IndexSources {
  std::vector<const Instruction*> local;  // definitions in functions
  std::vector<uint8_t> is_variable, converted_ubo, descriptor_array, local_memory;
  // The values stored into each local-memory variable (stored_slot[variable] indexes `stored`).
  std::vector<std::vector<uint32_t>> stored;
  std::vector<uint32_t> stored_slot;
};

// Set and binding of every decorated id, and which are Block structs.
void ReadBindingDecorations(const Module& m, std::vector<uint32_t>* set_of, std::vector<uint32_t>* binding_of,
                            std::vector<uint8_t>* block) {
  set_of->assign(m.bound, UINT32_MAX);
  binding_of->assign(m.bound, UINT32_MAX);
  block->assign(m.bound, 0);
  for (const Instruction& a : m.annotations) {
    if (a.opcode() != spv::OpDecorate || a.operand_count() < 2 || a.operand(0) >= m.bound) continue;
    const uint32_t id = a.operand(0), d = a.operand(1);
    if (d == spv::DecorationDescriptorSet && a.operand_count() >= 3) (*set_of)[id] = a.operand(2);
    if (d == spv::DecorationBinding && a.operand_count() >= 3) (*binding_of)[id] = a.operand(2);
    if (d == spv::DecorationBlock) (*block)[id] = 1;
  }
}

// The global variables: which are descriptor arrays, private memory, and uniform buffers
// (a Uniform-class Block, or an array of them) that `converted` names.
void ClassifyGlobalVariables(const Module& m, const std::vector<ConvertedBinding>& converted, IndexSources* ids) {
  std::vector<uint32_t> set_of, binding_of;
  std::vector<uint8_t> block;
  ReadBindingDecorations(m, &set_of, &binding_of, &block);
  // Global definitions: pointer types' pointees, arrays' elements, variables.
  std::vector<const Instruction*> global(m.bound, nullptr);
  for (const Instruction& t : m.types_values)
    if (t.has_result() && t.result_id() < m.bound) global[t.result_id()] = &t;
  auto pointee = [&](uint32_t pointer_type) -> const Instruction* {
    const Instruction* p = pointer_type < m.bound ? global[pointer_type] : nullptr;
    if (p == nullptr || p->opcode() != spv::OpTypePointer || p->operand_count() < 2 || p->operand(1) >= m.bound) return nullptr;
    return global[p->operand(1)];
  };
  ids->is_variable.assign(m.bound, 0);
  ids->converted_ubo.assign(m.bound, 0);
  ids->descriptor_array.assign(m.bound, 0);
  ids->local_memory.assign(m.bound, 0);
  for (const Instruction& v : m.types_values) {
    if (v.opcode() != spv::OpVariable || v.result_id() >= m.bound) continue;
    const uint32_t id = v.result_id();
    ids->is_variable[id] = 1;
    const uint32_t storage = v.operand(0);
    const Instruction* type = pointee(v.type_id());
    if (storage == spv::StorageClassUniformConstant && type != nullptr &&
        (type->opcode() == spv::OpTypeArray || type->opcode() == spv::OpTypeRuntimeArray))
      ids->descriptor_array[id] = 1;
    if (storage == spv::StorageClassPrivate) ids->local_memory[id] = 1;
    if (storage != spv::StorageClassUniform || set_of[id] == UINT32_MAX) continue;
    // A Block struct, or an array of them (a descriptor array of uniform buffers).
    while (type != nullptr && (type->opcode() == spv::OpTypeArray || type->opcode() == spv::OpTypeRuntimeArray))
      type = type->operand(0) < m.bound ? global[type->operand(0)] : nullptr;
    if (type == nullptr || !block[type->result_id()]) continue;
    for (const ConvertedBinding& c : converted)
      if (c.set == set_of[id] && c.binding == binding_of[id]) ids->converted_ubo[id] = 1;
  }
}

// Local definitions and function variables into `ids`; returns the first index of each
// access chain into a descriptor array (where the walk starts).
std::vector<uint32_t> IndexLocalDefinitions(const Module& m, IndexSources* ids) {
  ids->local.assign(m.bound, nullptr);
  std::vector<uint32_t> index_roots;
  for (const Function& fn : m.functions) {
    for (const Instruction& inst : fn.instructions) {
      if (inst.has_result() && inst.result_id() < m.bound) ids->local[inst.result_id()] = &inst;
      if (inst.opcode() == spv::OpVariable && inst.result_id() < m.bound) {
        ids->is_variable[inst.result_id()] = 1;
        ids->local_memory[inst.result_id()] = 1;
      }
      if ((inst.opcode() == spv::OpAccessChain || inst.opcode() == spv::OpInBoundsAccessChain) &&
          inst.operand_count() >= 2 && inst.operand(0) < m.bound && ids->descriptor_array[inst.operand(0)])
        index_roots.push_back(inst.operand(1));
    }
  }
  return index_roots;
}

// The values stored into each local-memory variable (a load from one may give any of them).
void CollectStoredValues(const Module& m, IndexSources* ids) {
  ids->stored_slot.assign(m.bound, UINT32_MAX);
  for (const Function& fn : m.functions) {
    for (const Instruction& inst : fn.instructions) {
      if (inst.opcode() != spv::OpStore || inst.operand_count() < 2) continue;
      const uint32_t root = RootVariable(inst.operand(0), ids->local, ids->is_variable);
      if (root == 0 || !ids->local_memory[root]) continue;
      if (ids->stored_slot[root] == UINT32_MAX) {
        ids->stored_slot[root] = static_cast<uint32_t>(ids->stored.size());
        ids->stored.emplace_back();
      }
      ids->stored[ids->stored_slot[root]].push_back(inst.operand(1));
    }
  }
}

// Walk back from every dynamic index through the values it is computed from: true where
// one is a load through a converted uniform buffer.
bool AnyIndexLoadsConvertedUniform(const Module& m, const std::vector<uint32_t>& index_roots, const IndexSources& ids) {
  std::vector<uint8_t> seen(m.bound, 0);
  std::vector<uint32_t> work;
  for (uint32_t index : index_roots) {
    if (index >= m.bound || ids.local[index] == nullptr) continue;  // a constant
    work.push_back(index);
  }
  while (!work.empty()) {
    const uint32_t id = work.back();
    work.pop_back();
    if (id >= m.bound || seen[id] || ids.local[id] == nullptr) continue;
    seen[id] = 1;
    const Instruction& def = *ids.local[id];
    switch (def.opcode()) {
      case spv::OpLoad: {
        const uint32_t root = RootVariable(def.operand(0), ids.local, ids.is_variable);
        if (root != 0 && ids.converted_ubo[root]) return true;
        if (root != 0 && ids.local_memory[root] && ids.stored_slot[root] != UINT32_MAX)
          for (uint32_t v : ids.stored[ids.stored_slot[root]]) work.push_back(v);
        break;
      }
      case spv::OpVariable:
      case spv::OpFunctionParameter:
      case spv::OpFunctionCall:
      case spv::OpLabel:
        break;
      case spv::OpPhi:
        for (uint32_t k = 0; k + 1 < def.operand_count(); k += 2) work.push_back(def.operand(k));
        break;
      default:
        // Operands that are local results (literals that happen to equal one only make
        // the answer more cautious).
        for (uint32_t k = 0; k < def.operand_count(); ++k) work.push_back(def.operand(k));
        break;
    }
  }
  return false;
}

}  // namespace

bool DescriptorIndexFromConvertedUniformBuffer(const Module& m, const std::vector<ConvertedBinding>& converted) {
  if (converted.empty()) return false;
  IndexSources ids;
  ClassifyGlobalVariables(m, converted, &ids);
  const std::vector<uint32_t> index_roots = IndexLocalDefinitions(m, &ids);
  if (index_roots.empty()) return false;
  CollectStoredValues(m, &ids);
  return AnyIndexLoadsConvertedUniform(m, index_roots, ids);
}

}  // namespace bindery::spirv
