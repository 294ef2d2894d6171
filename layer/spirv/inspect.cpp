// Inspect and DefaultLayout (rewrite.h), and the variable classification they share with
// the rewrite (resources.h).
#include <algorithm>
#include <map>
#include <set>

#include "spirv/instruction_shape.h"
#include "spirv/operand_kinds.h"
#include "spirv/resources.h"
#include "spirv/use_kinds.h"

namespace bindery::spirv {

std::string NameOf(const Module& module, uint32_t id) {
  for (const Instruction& d : module.debug)
    if (d.opcode() == spv::OpName && d.operand_count() >= 2 && d.operand(0) == id) return d.string_operand(1);
  return "";
}

const char* ExecutionModelName(uint32_t model) {
  switch (model) {
    case spv::ExecutionModelVertex: return "Vertex";
    case spv::ExecutionModelTessellationControl: return "TessellationControl";
    case spv::ExecutionModelTessellationEvaluation: return "TessellationEvaluation";
    case spv::ExecutionModelGeometry: return "Geometry";
    case spv::ExecutionModelFragment: return "Fragment";
    case spv::ExecutionModelGLCompute: return "GLCompute";
    case spv::ExecutionModelKernel: return "Kernel";
    case spv::ExecutionModelTaskNV: return "TaskNV";
    case spv::ExecutionModelMeshNV: return "MeshNV";
    case spv::ExecutionModelTaskEXT: return "TaskEXT";
    case spv::ExecutionModelMeshEXT: return "MeshEXT";
    case spv::ExecutionModelRayGenerationKHR: return "RayGeneration";
    case spv::ExecutionModelIntersectionKHR: return "Intersection";
    case spv::ExecutionModelAnyHitKHR: return "AnyHit";
    case spv::ExecutionModelClosestHitKHR: return "ClosestHit";
    case spv::ExecutionModelMissKHR: return "Miss";
    case spv::ExecutionModelCallableKHR: return "Callable";
    default: return "Unknown";
  }
}

void ClassifyVariables(const Module& module, const TypeManager& types, std::vector<VariableInfo>* out) {
  out->clear();
  std::size_t variables = 0;
  for (const Instruction& inst : module.types_values) variables += inst.opcode() == spv::OpVariable ? 1 : 0;
  out->reserve(variables);
  for (const Instruction& inst : module.types_values) {
    if (inst.opcode() != spv::OpVariable || inst.operand_count() < 1) continue;
    VariableInfo v;
    v.id = inst.result_id();
    v.pointer_type = inst.type_id();
    v.storage = ToStorageClass(inst.operand(0));
    uint32_t pointee = types.PointeeType(v.pointer_type);
    const Instruction* t = types.Def(pointee);
    if (t && (t->opcode() == spv::OpTypeArray || t->opcode() == spv::OpTypeRuntimeArray) && t->operand_count() >= 1) {
      v.array_type = pointee;
      if (t->opcode() == spv::OpTypeRuntimeArray) {
        v.array_size = 0;
      } else if (!types.GetConstantValue(t->operand(1), &v.array_size)) {
        v.array_size = 1;  // spec-constant sized: treated as one for reporting
      }
      pointee = t->operand(0);
      t = types.Def(pointee);
    }
    v.block_type = pointee;
    bool has_binding = types.GetDecoration(v.id, spv::DecorationBinding, &v.binding);
    types.GetDecoration(v.id, spv::DecorationDescriptorSet, &v.set);
    bool is_struct = t && t->opcode() == spv::OpTypeStruct;
    switch (v.storage) {
      case spv::StorageClassStorageBuffer:
        v.kind = ResourceKind::kStorageBuffer;
        v.is_resource = has_binding;
        break;
      case spv::StorageClassUniform:
        v.kind = (is_struct && types.HasDecoration(pointee, spv::DecorationBufferBlock)) ? ResourceKind::kStorageBuffer
                                                                                          : ResourceKind::kUniformBuffer;
        v.is_resource = has_binding;
        break;
      case spv::StorageClassPushConstant:
        v.kind = ResourceKind::kPushConstants;
        v.is_resource = true;
        break;
      case spv::StorageClassUniformConstant:
        v.kind = ResourceKind::kOther;
        v.is_resource = has_binding;
        break;
      default:
        break;
    }
    // Only resources are reported by name (a search of the debug section per variable).
    if (v.is_resource) v.name = NameOf(module, v.id);
    out->push_back(std::move(v));
  }
}

std::vector<std::vector<uint32_t>> GlobalsUsedByEntryPoints(const Module& module) {
  // Per function: the globals it names and the functions it calls. Flat arrays by id (the
  // bound is small): this runs for every rewrite of a SPIR-V >= 1.4 module.
  constexpr uint32_t kNoFunction = ~0u;
  std::vector<uint32_t> index_of(module.bound, kNoFunction);
  for (uint32_t i = 0; i < module.functions.size(); ++i) {
    const uint32_t id = module.functions[i].id();
    if (id < module.bound) index_of[id] = i;
  }
  std::vector<uint8_t> is_global(module.bound, 0);
  for (const Instruction& inst : module.types_values)
    if (inst.opcode() == spv::OpVariable && inst.result_id() < module.bound) is_global[inst.result_id()] = 1;
  std::vector<std::vector<uint32_t>> globals(module.functions.size()), callees(module.functions.size());
  // Each global once per function (listed_in[id] = function + 1 that listed it last).
  // Only id operands name a global: a literal (an `Aligned 4`, a constant's bits) that
  // happens to equal a global's id does not (the grammar says which operands are ids).
  std::vector<uint32_t> listed_in(module.bound, 0);
  const ExtInstSets sets(module);
  for (uint32_t f = 0; f < module.functions.size(); ++f) {
    for (const Instruction& inst : module.functions[f].instructions) {
      if (inst.opcode() == spv::OpFunctionCall && inst.operand_count() >= 1 && inst.operand(0) < module.bound &&
          index_of[inst.operand(0)] != kNoFunction)
        callees[f].push_back(index_of[inst.operand(0)]);
      bool any = false;
      for (uint32_t i = 0; i < inst.operand_count() && !any; ++i)
        any = inst.operand(i) < module.bound && is_global[inst.operand(i)];
      if (!any) continue;  // the common case: no walk of the grammar
      grammar::ForEachIdOperand(inst, sets.SetOf(inst), [&](uint32_t i) {
        const uint32_t w = inst.operand(i);
        if (w < module.bound && is_global[w] && listed_in[w] != f + 1) {
          listed_in[w] = f + 1;
          globals[f].push_back(w);
        }
      });
    }
  }
  std::vector<std::vector<uint32_t>> out;
  out.reserve(module.entry_points.size());
  std::vector<uint8_t> seen(module.functions.size());
  std::vector<uint32_t> used_mark(module.bound, 0);  // entry point + 1 that used it
  std::vector<uint32_t> stack;
  for (uint32_t e = 0; e < module.entry_points.size(); ++e) {
    const Instruction& ep = module.entry_points[e];
    std::vector<uint32_t> used;
    if (ep.operand_count() >= 2 && ep.operand(1) < module.bound && index_of[ep.operand(1)] != kNoFunction) {
      std::fill(seen.begin(), seen.end(), uint8_t{0});
      stack.assign(1, index_of[ep.operand(1)]);
      while (!stack.empty()) {
        uint32_t f = stack.back();
        stack.pop_back();
        if (seen[f]) continue;
        seen[f] = 1;
        for (uint32_t g : globals[f])
          if (used_mark[g] != e + 1) {
            used_mark[g] = e + 1;
            used.push_back(g);
          }
        for (uint32_t c : callees[f]) stack.push_back(c);
      }
    }
    std::sort(used.begin(), used.end());
    out.push_back(std::move(used));
  }
  return out;
}

namespace {

// What Inspect tells of a module already parsed.
ModuleInfo InspectParsed(Module& module) {
  ModuleInfo info;
  info.spirv_version = module.version;
  TypeManager types(module);
  std::vector<VariableInfo> vars = ClassifyVariables(module, types);
  for (const VariableInfo& v : vars)
    if (v.kind == ResourceKind::kPushConstants)
      info.push_constant_bytes = std::max(info.push_constant_bytes, types.SizeOf(v.block_type));
  std::vector<std::vector<uint32_t>> used = GlobalsUsedByEntryPoints(module);
  for (uint32_t e = 0; e < module.entry_points.size(); ++e) {
    const Instruction& ep = module.entry_points[e];
    EntryPointInfo epi;
    if (ep.operand_count() >= 3) {
      epi.execution_model = ExecutionModelName(ep.operand(0));
      epi.name = ep.string_operand(2);
    }
    for (const VariableInfo& v : vars) {
      if (!v.is_resource || !std::binary_search(used[e].begin(), used[e].end(), v.id)) continue;
      ResourceInfo r;
      r.set = v.set;
      r.binding = v.binding;
      r.kind = v.kind;
      r.array_size = v.array_size;
      r.name = v.name;
      epi.resources.push_back(std::move(r));
    }
    std::sort(epi.resources.begin(), epi.resources.end(), [](const ResourceInfo& a, const ResourceInfo& b) {
      return a.kind == ResourceKind::kPushConstants ? false
             : b.kind == ResourceKind::kPushConstants ? true
             : a.set != b.set ? a.set < b.set : a.binding < b.binding;
    });
    info.entry_points.push_back(std::move(epi));
  }
  return info;
}

}  // namespace

ModuleInfo Inspect(const uint32_t* words, std::size_t word_count) {
  Module module;
  const std::string error = ParseModule(words, word_count, &module);
  if (!error.empty()) {
    ModuleInfo info;
    info.error = error;
    return info;
  }
  return InspectParsed(module);
}

ModuleInfo Inspect(ModuleParse& parse) {
  std::string error;
  Module& module = parse.Parsed(&error);
  if (!error.empty()) {
    ModuleInfo info;
    info.error = error;
    return info;
  }
  return InspectParsed(module);
}

RewriteOptions DefaultLayout(const ModuleInfo& info, uint32_t root_offset, bool ubo) {
  return DefaultLayout(info, root_offset, ubo, kDefaultRuntimeArrayRecords);
}

RewriteOptions DefaultLayout(const ModuleInfo& info, uint32_t root_offset, bool ubo, uint32_t runtime_array_records) {
  RewriteOptions options;
  options.convert_uniform_buffers = ubo;
  std::map<uint32_t, std::map<uint32_t, uint32_t>> sets;  // set -> binding -> array size
  for (const EntryPointInfo& ep : info.entry_points)
    for (const ResourceInfo& r : ep.resources)
      if (r.kind == ResourceKind::kStorageBuffer || (ubo && r.kind == ResourceKind::kUniformBuffer)) {
        // A runtime-sized descriptor array: as many records as the caller says (at least one).
        uint32_t n = r.array_size == 0 ? std::max(1u, runtime_array_records) : r.array_size;
        uint32_t& slot = sets[r.set][r.binding];
        slot = std::max(slot, n);
      }
  uint32_t root = (root_offset + 7u) & ~7u;
  for (auto& [set, bindings] : sets) {
    SetLayout s;
    s.set = set;
    s.root_offset = root;
    root += 8;
    uint32_t record = 0;
    for (auto& [binding, count] : bindings) {
      BindingLayout b;
      b.binding = binding;
      b.array_size = count;
      b.first_record = record;
      record += count;
      s.bindings.push_back(b);
    }
    options.sets.push_back(std::move(s));
  }
  return options;
}

}  // namespace bindery::spirv
