// RewriteDescriptorsToPointers (rewrite.h): parse, analyze, rewrite, and the module-level
// edits (capabilities, addressing model, interfaces, removed variables).
#include <algorithm>

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
  constexpr uint32_t kNoFunction = ~0u;
  struct Tables {
    std::vector<uint32_t> index_of, callees, first_callee, stack;
    std::vector<uint8_t> names_global, seen;
  };
  ThreadScratch<Tables>::Lease tables;
  auto& [index_of, callees, first_callee, stack, names_global, seen] = *tables;
  const uint32_t functions = static_cast<uint32_t>(m.functions.size());
  index_of.assign(m.bound, kNoFunction);
  for (uint32_t i = 0; i < functions; ++i) {
    const uint32_t id = m.functions[i].id();
    if (id < m.bound) index_of[id] = i;
  }
  // Callees per function as one flat list: function f's are [first_callee[f], first_callee[f + 1]).
  names_global.assign(functions, 0);
  callees.clear();
  first_callee.assign(std::size_t{functions} + 1, 0);
  for (uint32_t f = 0; f < functions; ++f) {
    first_callee[f] = static_cast<uint32_t>(callees.size());
    for (const Instruction& inst : m.functions[f].instructions) {
      if (inst.opcode() == spv::OpFunctionCall && inst.operand_count() >= 1 && inst.operand(0) < m.bound &&
          index_of[inst.operand(0)] != kNoFunction)
        callees.push_back(index_of[inst.operand(0)]);
      if (!names_global[f])
        for (uint32_t i = 0; i < inst.operand_count(); ++i)
          if (inst.operand(i) == global) { names_global[f] = 1; break; }
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
  // Converted variables, their decorations and names go.
  auto gone = [&](uint32_t id) { return id < converted_of_var_.size() && converted_of_var_[id] >= 0; };
  m_.types_values.erase(std::remove_if(m_.types_values.begin(), m_.types_values.end(),
                                       [&](const Instruction& i) { return i.opcode() == spv::OpVariable && gone(i.result_id()); }),
                        m_.types_values.end());
  PooledScratch<uint32_t> blocks_scratch, keep_scratch;
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

  // Entry-point interfaces: SPIR-V >= 1.4 lists every global an entry point uses.
  // Only SPIR-V >= 1.4 needs it (the push-constant variable joins the interface).
  struct NamesPcVar {};
  ThreadScratch<std::vector<uint8_t>, NamesPcVar>::Lease names_pc_var_scratch;
  std::vector<uint8_t>& names_pc_var = *names_pc_var_scratch;
  if (m_.version >= 0x00010400) EntryPointsNaming(m_, pc_var_, &names_pc_var);
  for (uint32_t e = 0; e < m_.entry_points.size(); ++e) {
    Instruction& ep = m_.entry_points[e];
    uint32_t name_end = 0;
    ep.string_operand(2, &name_end);
    std::vector<uint32_t>& keep = keep_scratch.v;
    keep.clear();
    for (uint32_t k = name_end; k < ep.operand_count(); ++k)
      if (!gone(ep.operand(k))) keep.push_back(ep.operand(k));
    if (m_.version >= 0x00010400 && names_pc_var[e] &&
        std::find(keep.begin(), keep.end(), pc_var_) == keep.end())
      keep.push_back(pc_var_);
    ep.truncate_operands(name_end);
    for (uint32_t id : keep) ep.add_operand(id);
  }

  AddCapability(m_, spv::CapabilityPhysicalStorageBufferAddresses);
  if (uses_int64_) AddCapability(m_, spv::CapabilityInt64);
  if (m_.version < 0x00010500) AddExtension(m_, "SPV_KHR_physical_storage_buffer");
  m_.memory_model.front().set_operand(0, spv::AddressingModelPhysicalStorageBuffer64);
  return "";
}

namespace {

// The module IR of the rewrite, one per thread and parsed into again for every module, so
// its sections and instruction vectors are allocated once (for a small module they were
// a good part of the rewrite's fixed cost). A thread gives back what a large module made
// it hold (kKeepInstructions) when the rewrite ends.
class ThreadModule {
 public:
  ~ThreadModule() {
    if (module_->CapacityInInstructions() > kKeepInstructions) *module_ = Module{};
  }
  Module& module() { return *module_; }

 private:
  static constexpr std::size_t kKeepInstructions = 1u << 14;
  ThreadScratch<Module>::Lease module_;  // thread_scratch.h: safe after the thread's teardown
};

}  // namespace

RewriteResult RewriteDescriptorsToPointers(const uint32_t* words, std::size_t word_count, const RewriteOptions& options) {
  RewriteResult result;
  ThreadModule thread_module;
  Module& module = thread_module.module();
  result.error = ParseModule(words, word_count, &module);
  if (!result.error.empty()) return result;
  auto keep_original = [&](const std::string& why) {
    result.report.converted = false;
    result.report.reason = "not converted: " + why;
    result.report.push_constant_end = 0;
    result.module.assign(words, words + word_count);
  };
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
