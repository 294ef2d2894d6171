// RewriteDescriptorsToPointers (rewrite.h): parse, analyze, rewrite, and the module-level
// edits (capabilities, addressing model, interfaces, removed variables).
#include <algorithm>
#include <memory>
#include <optional>
#include <string>

#include "spirv/pointer_pass.h"
#include "spirv/thread_scratch.h"
#include "spirv/uniform_descriptor_index.h"
#include "spirv/use_kinds.h"

namespace bindery::spirv {
namespace {

bool HasCapability(const Module& m, spv::Capability c) {
  for (const Instruction& i : m.capabilities)
    if (i.operand_count() && i.operand(0) == static_cast<uint32_t>(c)) return true;
  return false;
}

void AddCapability(Module& m, spv::Capability c) {
  if (!HasCapability(m, c)) m.capabilities.emplace_back(spv::OpCapability, 0, 0, std::initializer_list<uint32_t>{static_cast<uint32_t>(c)});
}

void AddExtension(Module& m, const std::string& name) {
  for (const Instruction& i : m.extensions)
    if (i.string_operand(0) == name) return;
  Instruction e(spv::OpExtension, 0, 0, {});
  e.add_string_operand(name);
  m.extensions.push_back(std::move(e));
}

constexpr uint32_t kNoFunction = ~0u;

// Per id below the bound: the index in m.functions of the function it names, or kNoFunction.
void IndexFunctionsById(const Module& m, std::vector<uint32_t>* index_of) {
  index_of->assign(m.bound, kNoFunction);
  for (uint32_t i = 0; i < m.functions.size(); ++i) {
    const uint32_t id = m.functions[i].id();
    if (id < m.bound) (*index_of)[id] = i;
  }
}

// For each entry point, whether a function its call tree reaches names `global` as an operand
// (what GlobalsUsedByEntryPoints would list for it, asked of one global). The rewrite only asks
// about the push-constant variable, so this looks for one id instead of collecting every
// global of every function; its tables are kept per thread (no allocation once warm).
void EntryPointsNaming(const Module& m, uint32_t global, std::vector<uint8_t>* names) {
  names->assign(m.entry_points.size(), 0);
  bool is_global = false;
  for (const Instruction& inst : m.types_values)
    if (inst.opcode() == spv::OpVariable && inst.result_id() == global && global < m.bound) is_global = true;
  if (!is_global) return;
  struct Tables {
    std::vector<uint32_t> index_of, callees, first_callee, stack;
    std::vector<uint8_t> names_global, seen;
  };
  ThreadScratch<Tables>::Lease tables;
  // (References, not a structured binding: a lambda below captures one, which C++17 allows
  // only GCC, not clang, the SPIR-V fuzzer's compiler.)
  Tables& t = *tables;
  auto& index_of = t.index_of;
  auto& callees = t.callees;
  auto& first_callee = t.first_callee;
  auto& stack = t.stack;
  auto& names_global = t.names_global;
  auto& seen = t.seen;
  const uint32_t functions = static_cast<uint32_t>(m.functions.size());
  IndexFunctionsById(m, &index_of);
  // Callees per function as one flat list: function f's are [first_callee[f], first_callee[f + 1]).
  names_global.assign(functions, 0);
  callees.clear();
  first_callee.assign(std::size_t{functions} + 1, 0);
  std::optional<ExtInstSets> sets;  // made at the first match (they cost a name lookup per import)
  for (uint32_t f = 0; f < functions; ++f) {
    first_callee[f] = static_cast<uint32_t>(callees.size());
    for (const Instruction& inst : m.functions[f].instructions) {
      if (inst.opcode() == spv::OpFunctionCall && inst.operand_count() >= 1 && inst.operand(0) < m.bound &&
          index_of[inst.operand(0)] != kNoFunction)
        callees.push_back(index_of[inst.operand(0)]);
      if (names_global[f]) continue;
      bool any = false;
      for (uint32_t i = 0; i < inst.operand_count() && !any; ++i) any = inst.operand(i) == global;
      // Only as an id (the grammar's): a literal such as `Aligned 4` may equal the id.
      if (!any) continue;
      if (!sets) sets.emplace(m);
      grammar::ForEachIdOperand(inst, sets->SetOf(inst), [&](uint32_t i) {
        if (inst.operand(i) == global) names_global[f] = 1;
      });
    }
  }
  first_callee[functions] = static_cast<uint32_t>(callees.size());
  seen.resize(functions);
  for (uint32_t e = 0; e < m.entry_points.size(); ++e) {
    const Instruction& ep = m.entry_points[e];
    if (ep.operand_count() < 2 || ep.operand(1) >= m.bound || index_of[ep.operand(1)] == kNoFunction) continue;
    std::fill(seen.begin(), seen.end(), uint8_t{0});
    stack.assign(1, index_of[ep.operand(1)]);
    while (!stack.empty() && !(*names)[e]) {
      const uint32_t f = stack.back();
      stack.pop_back();
      if (seen[f]) continue;
      seen[f] = 1;
      if (names_global[f]) (*names)[e] = 1;
      for (uint32_t c = first_callee[f]; c < first_callee[f + 1]; ++c) stack.push_back(callees[c]);
    }
  }
  // A hostile bound must not leave megabytes behind on the thread.
  if (index_of.capacity() > (std::size_t{1} << 16)) std::vector<uint32_t>().swap(index_of);
}

// Names and decorations of the ids marked in `gone` (those instructions' first operand is
// their target; other debug instructions start with literals).
void EraseNamesAndDecorations(Module& m, const std::vector<uint8_t>& gone) {
  auto targets_gone = [&](const Instruction& inst) {
    switch (inst.opcode()) {
      case spv::OpName:
      case spv::OpDecorate:
      case spv::OpDecorateId:
      case spv::OpDecorateString:
        return inst.operand_count() >= 1 && inst.operand(0) < m.bound && gone[inst.operand(0)] != 0;
      default:
        return false;
    }
  };
  m.debug.erase(std::remove_if(m.debug.begin(), m.debug.end(), targets_gone), m.debug.end());
  m.annotations.erase(std::remove_if(m.annotations.begin(), m.annotations.end(), targets_gone), m.annotations.end());
}

// Per function of `m`, whether an entry point's call tree reaches it.
void FunctionsReached(const Module& m, std::vector<uint8_t>* reached) {
  std::vector<uint32_t> index_of;
  IndexFunctionsById(m, &index_of);
  reached->assign(m.functions.size(), 0);
  std::vector<uint32_t> stack;
  for (const Instruction& ep : m.entry_points)
    if (ep.operand_count() >= 2 && ep.operand(1) < m.bound && index_of[ep.operand(1)] != kNoFunction)
      stack.push_back(index_of[ep.operand(1)]);
  while (!stack.empty()) {
    const uint32_t f = stack.back();
    stack.pop_back();
    if ((*reached)[f]) continue;
    (*reached)[f] = 1;
    for (const Instruction& inst : m.functions[f].instructions)
      if (inst.opcode() == spv::OpFunctionCall && inst.operand_count() >= 1 && inst.operand(0) < m.bound &&
          index_of[inst.operand(0)] != kNoFunction)
        stack.push_back(index_of[inst.operand(0)]);
  }
}

// The functions not `reached` go with the names and decorations of `gone` (the ids they
// define); false (nothing changed) where a global instruction or a decoration group names
// one of those ids.
bool DropFunctions(Module& m, const std::vector<uint8_t>& reached, const std::vector<uint8_t>& gone,
                   const ExtInstSets& sets) {
  auto names_gone = [&](const Instruction& inst) {
    bool hit = false;
    grammar::ForEachIdOperand(inst, sets.SetOf(inst), [&](uint32_t k) {
      hit = hit || (inst.operand(k) < m.bound && gone[inst.operand(k)]);
    });
    return hit;
  };
  for (const Instruction& inst : m.types_values)
    if (names_gone(inst)) return false;
  for (const Instruction& inst : m.annotations)
    if (inst.opcode() == spv::OpGroupDecorate || inst.opcode() == spv::OpGroupMemberDecorate)
      if (names_gone(inst)) return false;  // decoration groups: not edited, left as they are
  std::size_t kept = 0;
  for (uint32_t f = 0; f < m.functions.size(); ++f) {
    if (!reached[f]) continue;
    if (kept != f) std::swap(m.functions[kept], m.functions[f]);
    ++kept;
  }
  m.functions.resize(kept);
  EraseNamesAndDecorations(m, gone);
  return true;
}

// Push-constant variables nothing names any more go, with their names and decorations
// (`gone`, all 0, marks them).
void DropUnnamedPushConstants(Module& m, const ExtInstSets& sets, std::vector<uint8_t>* gone) {
  std::vector<uint8_t> named(m.bound, 0);
  auto mark = [&](const Instruction& inst) {
    grammar::ForEachIdOperand(inst, sets.SetOf(inst), [&](uint32_t k) {
      if (inst.operand(k) < m.bound) named[inst.operand(k)] = 1;
    });
  };
  for (const Function& fn : m.functions)
    for (const Instruction& inst : fn.instructions) mark(inst);
  for (const Instruction& ep : m.entry_points) mark(ep);
  for (const Instruction& inst : m.types_values)
    if (inst.opcode() != spv::OpVariable) mark(inst);
  bool unused = false;
  for (const Instruction& inst : m.types_values)
    if (inst.opcode() == spv::OpVariable && inst.operand_count() >= 1 &&
        inst.operand(0) == spv::StorageClassPushConstant && inst.result_id() < m.bound && !named[inst.result_id()]) {
      (*gone)[inst.result_id()] = 1;
      unused = true;
    }
  if (!unused) return;
  auto is_gone = [&](const Instruction& inst) {
    return inst.opcode() == spv::OpVariable && inst.result_id() < m.bound && (*gone)[inst.result_id()];
  };
  m.types_values.erase(std::remove_if(m.types_values.begin(), m.types_values.end(), is_gone), m.types_values.end());
  EraseNamesAndDecorations(m, *gone);
}

// After entry points were left out: the functions none of the remaining ones reaches go,
// and then the push-constant variables no remaining function or interface names. Nothing
// changes where a global instruction (non-semantic debug information) names an id of a
// function that would go. The other entry points' blocks would otherwise stay in the
// module beside the one the root joins: valid SPIR-V (no entry point uses two), but the
// validation layer of Debian 12 (1.3.239) crashes creating such a module once the root's
// records lie in the block (spirv_exec `multi_entry_push_blocks`, records in the root).
void DropUnreachable(Module& m) {
  std::vector<uint8_t> reached;
  FunctionsReached(m, &reached);
  std::vector<uint8_t> gone(m.bound, 0);  // ids defined by the functions that go
  bool any = false;
  for (uint32_t f = 0; f < m.functions.size(); ++f) {
    if (reached[f]) continue;
    any = true;
    for (const Instruction& inst : m.functions[f].instructions)
      if (inst.has_result() && inst.result_id() < m.bound) gone[inst.result_id()] = 1;
  }
  const ExtInstSets sets(m);
  if (any && !DropFunctions(m, reached, gone, sets)) return;
  std::fill(gone.begin(), gone.end(), uint8_t{0});
  DropUnnamedPushConstants(m, sets, &gone);
}

// Leaves the entry points named `name` (of execution model `model`, unless any) and the
// execution modes of their functions; "" or why not (no such entry point).
std::string KeepEntryPoint(Module& m, const std::string& name, uint32_t model) {
  auto named = [&](const Instruction& ep) {
    return ep.operand_count() >= 3 && (model == kAnyExecutionModel || ep.operand(0) == model) &&
           ep.string_operand(2) == name;
  };
  std::size_t kept = 0;
  for (const Instruction& ep : m.entry_points) kept += named(ep) ? 1 : 0;
  if (kept == 0) return "the module has no entry point '" + name + "' of the stage asked for";
  if (kept == m.entry_points.size()) return "";
  m.entry_points.erase(std::remove_if(m.entry_points.begin(), m.entry_points.end(),
                                      [&](const Instruction& ep) { return !named(ep); }),
                       m.entry_points.end());
  // An execution mode names its entry point's function, which other entry points may share.
  auto kept_function = [&](uint32_t id) {
    for (const Instruction& ep : m.entry_points)
      if (ep.operand(1) == id) return true;
    return false;
  };
  m.execution_modes.erase(std::remove_if(m.execution_modes.begin(), m.execution_modes.end(),
                                         [&](const Instruction& mode) {
                                           return mode.operand_count() >= 1 && !kept_function(mode.operand(0));
                                         }),
                          m.execution_modes.end());
  DropUnreachable(m);
  return "";
}

}  // namespace

std::string PointerPass::Apply(RewriteReport* report) {
  bool any_array_length = false;
  for (const Function& fn : m_.functions)
    for (const Instruction& inst : fn.instructions)
      if (inst.opcode() == spv::OpArrayLength) any_array_length = true;
  for (Converted& c : converted_) c.needs_size = options_.bounds_checks || any_array_length;
  for (const Function& fn : m_.functions)
    for (uint32_t i = 0; i < fn.instructions.size(); ++i)
      if (fn.instructions[i].opcode() == spv::OpLoopMerge)
        for (uint32_t k = i; k-- > 0;)
          if (fn.instructions[k].opcode() == spv::OpLabel) { loop_headers_[fn.instructions[k].result_id()] = 1; break; }

  // Without 64-bit integers a record's address becomes a pointer by OpBitcast, which
  // spirv-val forbids for a pointer to 8/16-bit storage-only values ("width-only conversions").
  if (!options_.shader_int64)
    for (const Converted& c : converted_)
      if (IsStorageOnlyType(c.var.block_type))
        return "a buffer of 8/16-bit storage-only values needs shaderInt64 (its address cannot be bitcast to a "
               "pointer to them)";
  std::string why = PlanVariableDecorations();
  if (!why.empty()) return why;
  SetUpTypes();
  SetUpPushConstants(report);
  if (!report->reason.empty()) return report->reason;
  for (uint32_t f = 0; f < m_.functions.size(); ++f) {
    std::string e = RewriteFunction(f);
    if (!e.empty()) return e;
  }
  return FinishModule();
}

std::string PointerPass::FinishModule() {
  // Decided before the converted variables leave the types section: it reads scope
  // constants through the type manager, whose positions that removal makes stale.
  AddDeviceScopeCapability();
  RemoveConvertedVariables();
  UpdateEntryPointInterfaces();
  // The names the rewrite appended to the debug section go before its OpModuleProcessed
  // instructions, which the logical layout puts last (SPIRV-Tools' linker and glslang with
  // debug information emit them; the validation layer rejects a name after one). Done once
  // here rather than at each name: the function rewrite's hot path stays as it was.
  if (std::any_of(m_.debug.begin(), m_.debug.end(),
                  [](const Instruction& i) { return i.opcode() == spv::OpModuleProcessed; }))
    std::stable_partition(m_.debug.begin(), m_.debug.end(),
                          [](const Instruction& i) { return i.opcode() != spv::OpModuleProcessed; });
  DeclarePhysicalAddressing();
  return "";
}

// Converted variables, their decorations and names go; their blocks' BufferBlock becomes Block.
void PointerPass::RemoveConvertedVariables() {
  auto gone = [&](uint32_t id) { return ConvertedOf(id) >= 0; };
  m_.types_values.erase(std::remove_if(m_.types_values.begin(), m_.types_values.end(),
                                       [&](const Instruction& i) { return i.opcode() == spv::OpVariable && gone(i.result_id()); }),
                        m_.types_values.end());
  PooledScratch<uint32_t> blocks_scratch;
  std::vector<uint32_t>& blocks = blocks_scratch.v;
  for (const Converted& c : converted_) blocks.push_back(c.var.block_type);
  // Compacted in place: the section keeps its storage (the module is reused per thread).
  std::size_t kept = 0;
  for (std::size_t i = 0; i < m_.annotations.size(); ++i) {
    Instruction& a = m_.annotations[i];
    if ((a.opcode() == spv::OpDecorate || a.opcode() == spv::OpDecorateId || a.opcode() == spv::OpDecorateString) &&
        a.operand_count() && gone(a.operand(0)))
      continue;
    // The pointee of a physical pointer is a Block, never a (legacy) BufferBlock.
    if (a.opcode() == spv::OpDecorate && a.operand_count() >= 2 && a.operand(1) == spv::DecorationBufferBlock &&
        std::find(blocks.begin(), blocks.end(), a.operand(0)) != blocks.end())
      a.set_operand(1, spv::DecorationBlock);
    if (kept != i) m_.annotations[kept] = std::move(a);
    ++kept;
  }
  m_.annotations.resize(kept);
  m_.debug.erase(std::remove_if(m_.debug.begin(), m_.debug.end(),
                                [&](const Instruction& i) { return i.opcode() == spv::OpName && i.operand_count() && gone(i.operand(0)); }),
                 m_.debug.end());
}

// Entry-point interfaces: the converted variables leave them, and from SPIR-V 1.4 (where
// an interface lists every global an entry point uses) the push-constant variable joins
// those of the entry points that use it.
void PointerPass::UpdateEntryPointInterfaces() {
  struct NamesPcVar {};
  ThreadScratch<std::vector<uint8_t>, NamesPcVar>::Lease names_pc_var_scratch;
  std::vector<uint8_t>& names_pc_var = *names_pc_var_scratch;
  if (m_.version >= 0x00010400) EntryPointsNaming(m_, pc_var_, &names_pc_var);
  PooledScratch<uint32_t> keep_scratch;
  std::vector<uint32_t>& keep = keep_scratch.v;
  for (uint32_t e = 0; e < m_.entry_points.size(); ++e) {
    Instruction& ep = m_.entry_points[e];
    uint32_t name_end = 0;
    ep.string_operand(2, &name_end);
    keep.clear();
    for (uint32_t k = name_end; k < ep.operand_count(); ++k)
      if (ConvertedOf(ep.operand(k)) < 0) keep.push_back(ep.operand(k));
    if (m_.version >= 0x00010400 && names_pc_var[e] &&
        std::find(keep.begin(), keep.end(), pc_var_) == keep.end())
      keep.push_back(pc_var_);
    ep.truncate_operands(name_end);
    for (uint32_t id : keep) ep.add_operand(id);
  }
}

// What physical pointers need: their capability and addressing model, the extension before
// SPIR-V 1.5, Int64 where the rewrite used it, and the small types' capabilities the device
// has (RewriteOptions::float16...) where the module declares such a type.
void PointerPass::DeclarePhysicalAddressing() {
  AddCapability(m_, spv::CapabilityPhysicalStorageBufferAddresses);
  if (uses_int64_) AddCapability(m_, spv::CapabilityInt64);
  if (add_int8_ || add_int16_ || add_float16_) {
    bool int8 = false, int16 = false, float16 = false;
    for (const Instruction& t : m_.types_values) {
      if (t.opcode() == spv::OpTypeInt) {
        int8 = int8 || t.operand(0) == 8;
        int16 = int16 || t.operand(0) == 16;
      } else if (t.opcode() == spv::OpTypeFloat) {
        float16 = float16 || t.operand(0) == 16;
      }
    }
    if (add_int8_ && int8) AddCapability(m_, spv::CapabilityInt8);
    if (add_int16_ && int16) AddCapability(m_, spv::CapabilityInt16);
    if (add_float16_ && float16) AddCapability(m_, spv::CapabilityFloat16);
  }
  if (m_.version < 0x00010500) AddExtension(m_, "SPV_KHR_physical_storage_buffer");
  m_.memory_model.front().set_operand(0, spv::AddressingModelPhysicalStorageBuffer64);
}

namespace {

// The module IR of the rewrite is one per thread and parsed into again for every module
// (ModuleParse), so its sections and instruction vectors are allocated once (for a small
// module they were a good part of the rewrite's fixed cost). A thread gives back what a
// large module made it hold (kKeepInstructions) when the parse ends.
constexpr std::size_t kKeepInstructions = 1u << 14;

}  // namespace

void ModuleParse::Release() {
  if (owned_) {
    delete module_;
  } else if (module_->CapacityInInstructions() > kKeepInstructions) {
    *module_ = Module{};
  }
  module_ = nullptr;
}

Module& ModuleParse::Parsed(std::string* error) {
  if (module_ == nullptr) {
    // thread_scratch.h: after the thread's teardown, a module of this parse's own.
    module_ = ThreadScratch<Module>::Get();
    if (module_ == nullptr) {
      module_ = new Module();
      owned_ = true;
    }
  }
  if (state_ != State::kParsed) {
    error_ = ParseModule(words_, word_count_, module_);
    state_ = State::kParsed;
  }
  *error = error_;
  return *module_;
}

namespace {

// lavapipe's descriptor-array index from lane 0 in a stage without the broadcast
// (RewriteOptions::lane_zero_descriptor_index_models).
const char* LaneZeroIndexRefusal(const Module& module, const RewriteOptions& options) {
  if (options.lane_zero_descriptor_index_models == 0 || !options.convert_uniform_buffers) return nullptr;
  if (!AnyEntryPointIn(module, options.lane_zero_descriptor_index_models)) return nullptr;
  if (options.broadcast_descriptor_index_models != 0 &&
      BroadcastPossible(module, options.broadcast_descriptor_index_models))
    return nullptr;
  std::vector<ConvertedBinding> converted;
  for (const SetLayout& s : options.sets)
    for (const BindingLayout& b : s.bindings) converted.push_back({s.set, b.binding});
  if (!DescriptorIndexFromConvertedUniformBuffer(module, converted)) return nullptr;
  return "a dynamically uniform descriptor-array index read from a converted uniform buffer, in a stage where "
         "the driver takes it from lane 0 and no broadcast is possible";
}

}  // namespace

RewriteResult RewriteDescriptorsToPointers(const uint32_t* words, std::size_t word_count, const RewriteOptions& options) {
  ModuleParse parse(words, word_count);
  return RewriteDescriptorsToPointers(parse, options);
}

RewriteResult RewriteDescriptorsToPointers(ModuleParse& parse, const RewriteOptions& options) {
  RewriteResult result;
  Module& module = parse.Parsed(&result.error);
  if (!result.error.empty()) return result;
  parse.MarkEdited();  // from here on the pass edits it
  auto keep_original = [&](const std::string& why) {
    result.report.converted = false;
    result.report.reason = "not converted: " + why;
    result.report.push_constant_end = 0;
    result.module.assign(parse.words(), parse.words() + parse.word_count());
  };
  if (!options.entry_point.empty()) {
    const std::string why = KeepEntryPoint(module, options.entry_point, options.execution_model);
    if (!why.empty()) {
      keep_original(why);
      return result;
    }
  }
  // After KeepEntryPoint: only the named entry point's models count.
  if (const char* why = LaneZeroIndexRefusal(module, options)) {
    keep_original(why);
    return result;
  }
  {
    PointerPass pass(module, options);
    std::string why = pass.Analyze(&result.report);
    if (!why.empty()) {
      keep_original(why);
      return result;
    }
    why = pass.Apply(&result.report);
    if (!why.empty()) {
      keep_original(why);
      return result;
    }
  }
  if (options.broadcast_descriptor_index_models != 0) {
    result.report.broadcast_indices = BroadcastUniformDescriptorIndices(module, options.broadcast_descriptor_index_models);
  }
  if (module.bound > kMaxIdBound) {
    // The ids the pass added took a module near the parser's cap past it: the result could
    // not be read back (by this library, and possibly not by a driver sized like it).
    keep_original("the rewritten module's id bound " + std::to_string(module.bound) + " exceeds the limit " +
                  std::to_string(kMaxIdBound));
    return result;
  }
  result.report.converted = true;
  result.module = module.Write();
  return result;
}

}  // namespace bindery::spirv
