// PointerPass analysis: which variables convert, and which ids change type with them.
#include <algorithm>

#include "spirv/pointer_pass.h"
#include "spirv/use_kinds.h"

namespace bindery::spirv {
namespace {

// The grammar's name of an opcode ("OpBitcast"), or its number when the grammar lacks it.
std::string OpName(spv::Op op) {
  const grammar::InstructionEntry* e = grammar::FindInstruction(static_cast<uint32_t>(op));
  return e ? std::string(e->name) : "opcode " + std::to_string(static_cast<uint32_t>(op));
}

// OpName, and for OpExtInst the set and the extended instruction ("OpExtInst GLSL.std.450 Frexp").
std::string InstructionName(const Instruction& inst, const ExtInstSets& sets) {
  if (inst.opcode() != spv::OpExtInst || inst.operand_count() < 2) return OpName(inst.opcode());
  const grammar::ExtSetEntry* set = sets.SetOf(inst);
  if (set == nullptr) return "OpExtInst of a set without a grammar";
  const grammar::ExtInstructionEntry* e = grammar::FindExtInstruction(set, inst.operand(1));
  return std::string("OpExtInst ") + set->name + " " + (e ? e->name : std::to_string(inst.operand(1)));
}

}  // namespace

const Instruction* PointerPass::LocalDef(uint32_t id) const {
  if (id >= local_def_.size() || local_def_[id].first == 0) return nullptr;
  return &m_.functions[local_def_[id].first - 1].instructions[local_def_[id].second];
}

std::string PointerPass::FindConverted(RewriteReport* report) {
  ClassifyVariables(m_, types_, &vars_);
  converted_of_var_.assign(m_.bound, -1);
  report->bindings.reserve(vars_.size());
  converted_.reserve(vars_.size());
  for (const VariableInfo& v : vars_) {
    if (!v.is_resource || v.kind == ResourceKind::kPushConstants) continue;
    BindingReport br;
    br.set = v.set;
    br.binding = v.binding;
    br.name = v.name;
    const SetLayout* set = nullptr;
    const BindingLayout* binding = nullptr;
    FindInLayout(v, &set, &binding);
    if (v.kind == ResourceKind::kOther) {
      br.outcome = BindingOutcome::kNotABuffer;
    } else if (v.kind == ResourceKind::kUniformBuffer && !options_.convert_uniform_buffers) {
      br.outcome = BindingOutcome::kUniformBufferKept;
    } else if (!binding) {
      br.outcome = BindingOutcome::kNotInLayout;
    } else {
      const std::string why = CheckConvertible(v, *set, *binding);
      if (!why.empty()) return why;
      br.outcome = BindingOutcome::kConverted;
      br.first_record = binding->first_record;
      br.last_record = binding->first_record + std::max(1u, binding->array_size) - 1;
      br.root_offset = set->root_offset;
      AddConverted(v, set, binding);
    }
    report->bindings.push_back(std::move(br));
  }
  std::sort(report->bindings.begin(), report->bindings.end(), [](const BindingReport& a, const BindingReport& b) {
    return a.set != b.set ? a.set < b.set : a.binding < b.binding;
  });
  if (converted_.empty()) {
    report->no_buffer_in_layout = true;
    return "no buffer of the module is in the layout";
  }
  return CheckConvertedBlocksNotShared();
}

// The set and binding of the layout that `v` names (nullptr: not in the layout).
void PointerPass::FindInLayout(const VariableInfo& v, const SetLayout** set, const BindingLayout** binding) const {
  for (const SetLayout& s : options_.sets)
    if (s.set == v.set)
      for (const BindingLayout& b : s.bindings)
        if (b.binding == v.binding) { *set = &s; *binding = &b; }
}

// Why buffer variable `v` cannot convert to `binding` of `set`, or "": its block is a
// struct, its descriptors fit the layout's, its array is not sized by a specialization
// constant, and its set's root offset is 8-byte aligned.
std::string PointerPass::CheckConvertible(const VariableInfo& v, const SetLayout& set, const BindingLayout& binding) const {
  const Instruction* block = types_.Def(v.block_type);
  if (!block || block->opcode() != spv::OpTypeStruct)
    return "set " + std::to_string(v.set) + " binding " + std::to_string(v.binding) + " is not a struct block";
  if (v.array_size > binding.array_size)
    return "set " + std::to_string(v.set) + " binding " + std::to_string(v.binding) + " has " +
           std::to_string(v.array_size) + " descriptors but the layout gives " + std::to_string(binding.array_size);
  if (v.array_type && v.array_size == 1 && types_.Def(v.array_type)->opcode() == spv::OpTypeArray) {
    uint32_t n = 0;
    if (!types_.GetConstantValue(types_.Def(v.array_type)->operand(1), &n))
      return "descriptor array sized by a specialization constant";
  }
  if (set.root_offset % 8 != 0) return "root offset " + std::to_string(set.root_offset) + " is not 8-byte aligned";
  return "";
}

// `v` joins converted_, with the memory decorations it keeps once it is a pointer.
void PointerPass::AddConverted(const VariableInfo& v, const SetLayout* set, const BindingLayout* binding) {
  Converted c;
  c.var = v;
  static constexpr std::pair<uint32_t, spv::Decoration> kKept[] = {
      {kCoherent, spv::DecorationCoherent}, {kVolatile, spv::DecorationVolatile},
      {kNonWritable, spv::DecorationNonWritable}, {kNonReadable, spv::DecorationNonReadable}};
  for (const auto& [flag, decoration] : kKept)
    if (types_.HasDecoration(v.id, decoration)) c.memory_flags |= flag;
  c.set = set;
  c.binding = binding;
  converted_of_var_[v.id] = static_cast<int32_t>(converted_.size());
  converted_.push_back(c);
}

// A block struct whose BufferBlock decoration we change to Block must not be shared
// with a variable that stays a descriptor.
std::string PointerPass::CheckConvertedBlocksNotShared() const {
  for (const VariableInfo& v : vars_) {
    if (converted_of_var_[v.id] >= 0) continue;
    for (const Converted& c : converted_)
      if (c.var.block_type == v.block_type && v.storage != spv::StorageClassFunction)
        return "block type of " + (c.var.name.empty() ? std::string("a converted buffer") : c.var.name) +
               " is shared with a variable that stays a descriptor";
  }
  return "";
}

PointerPass::PointerPass(Module& module, const RewriteOptions& options)
    : m_(module), types_(module), options_(options), ext_sets_(module) {
  TakePooled(&vars_);
  TakePooled(&converted_);
  TakePooled(&converted_of_var_);
  TakePooled(&retyped_);
  TakePooled(&retyped_params_);
  TakePooled(&retyped_return_);
  TakePooled(&use_list_);
  TakePooled(&use_begin_);
  TakePooled(&local_def_);
  TakePooled(&root_member_);
  TakePooled(&block_member_);
  TakePooled(&dynamic_member_);
  TakePooled(&out_);
  TakePooled(&set_records_);
}

PointerPass::~PointerPass() {
  GivePooled(&vars_);
  GivePooled(&converted_);
  GivePooled(&converted_of_var_);
  GivePooled(&retyped_);
  GivePooled(&retyped_params_);
  GivePooled(&retyped_return_);
  GivePooled(&use_list_);
  GivePooled(&use_begin_);
  GivePooled(&local_def_);
  GivePooled(&root_member_);
  GivePooled(&block_member_);
  GivePooled(&dynamic_member_);
  GivePooled(&out_);
  GivePooled(&set_records_);
}

void PointerPass::BuildUses() {
  // The uses of every id sit in one array, in the order (function, instruction, operand):
  // collected once with their ids, then placed by a counting sort on the id.
  std::vector<std::pair<uint32_t, Use>> found;
  TakePooled(&found);
  std::size_t instructions = 0;
  for (const Function& fn : m_.functions) instructions += fn.instructions.size();
  found.reserve(instructions * 2);  // about two pointer-capable operands per instruction
  use_begin_.assign(std::size_t{m_.bound} + 1, 0);
  local_def_.assign(m_.bound, {0, 0});
  for (uint32_t f = 0; f < m_.functions.size(); ++f) {
    function_index_[m_.functions[f].id()] = f;
    const auto& insts = m_.functions[f].instructions;
    for (uint32_t i = 0; i < insts.size(); ++i) {
      const Instruction& inst = insts[i];
      if (inst.has_result() && inst.result_id() < m_.bound) local_def_[inst.result_id()] = {f + 1, i};
      ForEachPointerOperand(inst, PointerOperandsOf(inst.opcode()), ext_sets_, [&](uint32_t k) {
        const uint32_t w = inst.operand(k);
        if (w < m_.bound) {
          ++use_begin_[w + 1];
          found.push_back({w, Use{f, i, k}});
        }
      });
    }
  }
  for (std::size_t id = 1; id < use_begin_.size(); ++id) use_begin_[id] += use_begin_[id - 1];
  use_list_.resize(found.size());
  std::vector<uint32_t> next;
  TakePooled(&next);
  next.assign(use_begin_.begin(), use_begin_.end() - 1);
  for (const auto& [id, use] : found) use_list_[next[id]++] = use;
  GivePooled(&next);
  GivePooled(&found);
}

bool PointerPass::MarkRetyped(uint32_t id, std::vector<uint32_t>* work) {
  if (id >= m_.bound || retyped_[id]) return false;
  retyped_[id] = 1;
  work->push_back(id);
  return true;
}

// The closure: every id whose type mentions a converted buffer's storage class changes.
// Then what the rewrite cannot retype is refused: a merge, call or return that mixes
// converted buffers with other pointers, or a global instruction naming a converted buffer.
std::string PointerPass::Close() {
  std::string why = PropagateRetyped();
  if (!why.empty()) return why;
  why = CheckMergesAreAllRetyped();
  if (!why.empty()) return why;
  why = CheckCallsAndReturnsAreAllRetyped();
  if (!why.empty()) return why;
  return CheckNoGlobalNamesConverted();
}

// From the converted variables through their uses: every id that holds one of their
// pointers is marked in retyped_ (and retyped_params_, retyped_return_).
std::string PointerPass::PropagateRetyped() {
  retyped_.assign(m_.bound, 0);
  retyped_return_.assign(m_.functions.size(), 0);
  PooledScratch<uint32_t> work_scratch;
  std::vector<uint32_t>& work = work_scratch.v;
  for (const Converted& c : converted_) {
    retyped_[c.var.id] = 1;
    work.push_back(c.var.id);
  }
  while (!work.empty()) {
    uint32_t id = work.back();
    work.pop_back();
    const bool is_var = converted_of_var_[id] >= 0;
    const bool arrayed = is_var && converted_[static_cast<uint32_t>(converted_of_var_[id])].var.array_type != 0;
    for (const Use& u : UsesOf(id)) {
      std::string why = RetypeUser(id, is_var, arrayed, u, &work);
      if (!why.empty()) return why;
    }
  }
  return "";
}

// One use `u` of retyped id `id` (`is_var`: a converted variable, `arrayed`: of a descriptor
// array): what the using instruction makes retyped too, or why the rewrite cannot follow
// the pointer there.
std::string PointerPass::RetypeUser(uint32_t id, bool is_var, bool arrayed, const Use& u, std::vector<uint32_t>* work) {
  const Instruction& inst = m_.functions[u.function].instructions[u.index];
  const spv::Op op = inst.opcode();
  if (arrayed && !((op == spv::OpAccessChain || op == spv::OpInBoundsAccessChain) && u.operand == 0 &&
                   inst.operand_count() >= 2))
    return "a descriptor array is used other than through an access chain (" + OpName(op) + ")";
  if (IsAccessChain(op) || op == spv::OpCopyObject || op == spv::OpSelect || op == spv::OpPhi) {
    if (is_var && (op == spv::OpPtrAccessChain || op == spv::OpInBoundsPtrAccessChain))
      return "OpPtrAccessChain directly on a buffer variable";
    MarkRetyped(inst.result_id(), work);
  } else if (op == spv::OpLoad) {
    if (types_.IsPointerType(inst.type_id())) MarkRetyped(inst.result_id(), work);
  } else if (op == spv::OpStore) {
    if (u.operand == 1) {
      const Instruction* target = LocalDef(inst.operand(0));
      if (!target || target->opcode() != spv::OpVariable)
        return "a buffer pointer is stored somewhere other than a function variable";
      MarkRetyped(target->result_id(), work);
    }
  } else if (op == spv::OpFunctionCall) {
    const uint32_t* callee = function_index_.Find(inst.operand(0));
    if (callee == nullptr) return "call to an unknown function";
    MarkParameterRetyped(*callee, u.operand - 1, work);
  } else if (op == spv::OpReturnValue) {
    if (!retyped_return_[u.function]) {
      retyped_return_[u.function] = 1;
      MarkCallsRetyped(m_.functions[u.function].id(), work);
    }
  } else if (op == spv::OpArrayLength) {
    // Needs the root's size: the variable itself or one element of a descriptor array.
    bool root = is_var;
    if (const Instruction* d = LocalDef(id))
      root = (d->opcode() == spv::OpAccessChain || d->opcode() == spv::OpInBoundsAccessChain) &&
             d->operand_count() == 2 && converted_of_var_[d->operand(0)] >= 0;
    if (!root) return "OpArrayLength on a pointer whose buffer is not known statically";
  } else if (op == spv::OpVariable) {
    // A function variable initialized with a buffer pointer.
    MarkRetyped(inst.result_id(), work);
  } else if (op == spv::OpCopyMemory || op == spv::OpCopyMemorySized || IsAtomic(op)) {
    // Fine: only the memory operands change.
  } else {
    return "a buffer pointer is used by " + InstructionName(inst, ext_sets_) + ", which the rewrite does not handle";
  }
  return "";
}

// Parameter `position` of function `callee` (an index into m_.functions) takes a retyped pointer.
void PointerPass::MarkParameterRetyped(uint32_t callee, uint32_t position, std::vector<uint32_t>* work) {
  uint32_t n = 0;
  for (const Instruction& p : m_.functions[callee].instructions) {
    if (p.opcode() != spv::OpFunctionParameter) continue;
    if (n++ == position) {
      if (MarkRetyped(p.result_id(), work)) retyped_params_.push_back(p.result_id());
      return;
    }
  }
}

// Function `function_id` returns a retyped pointer: so does every call of it.
void PointerPass::MarkCallsRetyped(uint32_t function_id, std::vector<uint32_t>* work) {
  for (const auto& fn : m_.functions)
    for (const Instruction& call : fn.instructions)
      if (call.opcode() == spv::OpFunctionCall && call.operand(0) == function_id) MarkRetyped(call.result_id(), work);
}

// A retyped id, or an OpUndef (which takes any pointer type): what a retyped merge may name.
bool PointerPass::RetypedOrUndef(uint32_t v) const {
  if (v < m_.bound && retyped_[v]) return true;
  const Instruction* g = types_.Def(v);
  return g && (g->opcode() == spv::OpUndef);
}

// Everything that merges pointers (select, phi, a function variable) must merge only
// retyped ones: one pointer type cannot be both.
std::string PointerPass::CheckMergesAreAllRetyped() const {
  for (uint32_t f = 0; f < m_.functions.size(); ++f) {
    for (const Instruction& inst : m_.functions[f].instructions) {
      const spv::Op op = inst.opcode();
      if (!inst.has_result() || !retyped_[inst.result_id()]) continue;
      if (op == spv::OpSelect && !(RetypedOrUndef(inst.operand(1)) && RetypedOrUndef(inst.operand(2))))
        return "OpSelect mixes a converted buffer with another pointer";
      if (op == spv::OpPhi)
        for (uint32_t k = 0; k < inst.operand_count(); k += 2)
          if (!RetypedOrUndef(inst.operand(k))) return "OpPhi mixes a converted buffer with another pointer";
      if (op == spv::OpVariable) {
        for (const Use& u : UsesOf(inst.result_id())) {
          const Instruction& s = m_.functions[u.function].instructions[u.index];
          if (s.opcode() == spv::OpStore && u.operand == 0 && !RetypedOrUndef(s.operand(1)))
            return "a function variable holds both converted and other pointers";
          if (s.opcode() != spv::OpStore && s.opcode() != spv::OpLoad)
            return "a function variable holding a buffer pointer is used by " + OpName(s.opcode());
        }
        if (types_.PointerStorageClass(inst.type_id()) != spv::StorageClassFunction)
          return "a buffer pointer is held in a non-function variable";
      }
    }
  }
  return "";
}

// A retyped parameter gets a retyped argument from every call, and a function returning a
// retyped pointer returns one from every OpReturnValue.
std::string PointerPass::CheckCallsAndReturnsAreAllRetyped() const {
  for (uint32_t param : retyped_params_) {
    // Which function and position is it?
    auto [fplus, index] = local_def_[param];
    const Function& fn = m_.functions[fplus - 1];
    uint32_t position = 0;
    for (uint32_t i = 1; i < index; ++i)
      if (fn.instructions[i].opcode() == spv::OpFunctionParameter) ++position;
    for (const auto& other : m_.functions)
      for (const Instruction& call : other.instructions)
        if (call.opcode() == spv::OpFunctionCall && call.operand(0) == fn.id() &&
            !(call.operand(1 + position) < m_.bound && retyped_[call.operand(1 + position)]))
          return "a function takes both converted buffers and other pointers";
  }
  for (uint32_t f = 0; f < m_.functions.size(); ++f)
    if (retyped_return_[f])
      for (const Instruction& inst : m_.functions[f].instructions)
        if (inst.opcode() == spv::OpReturnValue && !retyped_[inst.operand(0)])
          return "a function returns both converted buffers and other pointers";
  return "";
}

// Converted variables must not be named by global instructions other than names,
// decorations and entry-point interfaces (e.g. debug-info extended instructions).
// Only id operands count (the grammar's): OpSpecConstantOp's opcode and an extended
// instruction's number are literals.
std::string PointerPass::CheckNoGlobalNamesConverted() const {
  for (const Instruction& inst : m_.types_values) {
    if (inst.opcode() != spv::OpExtInst && inst.opcode() != spv::OpSpecConstantOp) continue;
    bool names_converted = false;
    grammar::ForEachIdOperand(inst, ext_sets_.SetOf(inst), [&](uint32_t k) {
      names_converted |= inst.operand(k) < m_.bound && converted_of_var_[inst.operand(k)] >= 0;
    });
    if (names_converted)
      return "a converted buffer is named by a global instruction (" + InstructionName(inst, ext_sets_) + ")";
  }
  return "";
}

std::string PointerPass::Analyze(RewriteReport* report) {
  const Instruction& mm = m_.memory_model.front();
  if (mm.operand_count() < 2) return "malformed OpMemoryModel";
  if (mm.operand(0) != spv::AddressingModelLogical && mm.operand(0) != spv::AddressingModelPhysicalStorageBuffer64)
    return "addressing model " + std::to_string(mm.operand(0)) + " is not Logical";
  vulkan_memory_model_ = mm.operand(1) == spv::MemoryModelVulkan;
  uint32_t max_version = 0x00010000;
  switch (options_.target) {
    case TargetEnv::kVulkan1_0: max_version = 0x00010000; break;
    case TargetEnv::kVulkan1_1: max_version = 0x00010300; break;
    case TargetEnv::kVulkan1_1Spirv1_4: max_version = 0x00010400; break;
    case TargetEnv::kVulkan1_2: max_version = 0x00010500; break;
    case TargetEnv::kVulkan1_3: max_version = 0x00010600; break;
  }
  if (m_.version > max_version) return "the module's SPIR-V version is newer than the target environment allows";
  for (const Instruction& c : m_.capabilities) {
    if (c.operand_count() && (c.operand(0) == spv::CapabilityKernel || c.operand(0) == spv::CapabilityAddresses))
      return "OpenCL kernel modules are not supported";
    has_int8_ |= c.operand(0) == spv::CapabilityInt8;
    has_int16_ |= c.operand(0) == spv::CapabilityInt16;
    has_float16_ |= c.operand(0) == spv::CapabilityFloat16;
  }
  // Capabilities the device has that the module does not declare (RewriteOptions::float16..):
  // declared by FinishModule where the module has such a type.
  add_int8_ = options_.int8 && !has_int8_;
  add_int16_ = options_.int16 && !has_int16_;
  add_float16_ = options_.float16 && !has_float16_;
  has_int8_ |= options_.int8;
  has_int16_ |= options_.int16;
  has_float16_ |= options_.float16;
  std::string why = FindConverted(report);
  if (!why.empty()) return why;
  BuildUses();
  return Close();
}

}  // namespace bindery::spirv
