// PointerPass: rewriting each function's instructions (with the bounds checks' offsets),
// and the 8/16-bit storage-only types. The module-level finish is in rewrite.cpp.
#include <algorithm>
#include <cstdint>

#include "spirv/pointer_pass.h"
#include "spirv/use_kinds.h"

namespace bindery::spirv {
namespace {

bool IsTerminator(spv::Op op) {
  return op == spv::OpBranch || op == spv::OpBranchConditional || op == spv::OpSwitch || op == spv::OpReturn ||
         op == spv::OpReturnValue || op == spv::OpKill || op == spv::OpUnreachable ||
         op == spv::OpTerminateInvocation;
}

}  // namespace

// Byte offset of old pointer id `id` from the start of its buffer, walking access chains
// back to a root. In 32-bit mode `overflow` collects wrap-arounds (the access is then out
// of bounds).
std::string PointerPass::EmitOffset(uint32_t id, uint32_t* offset, uint32_t* overflow, Root* root) {
  PooledScratch<const Instruction*> chains_scratch;
  std::vector<const Instruction*>& chains = chains_scratch.v;
  uint32_t type = 0;
  std::string e = FindChainsToRoot(id, &chains, root, &type);
  if (!e.empty()) return e;
  OffsetSum sum;
  // From the root outwards: each chain's indices step into the type the previous one reached.
  for (auto it = chains.rbegin(); it != chains.rend(); ++it) {
    e = AddChainOffset(**it, &type, &sum);
    if (!e.empty()) return e;
  }
  FinishOffset(sum, offset, overflow);
  return "";
}

// The access chains from `id` back to its root (innermost first; copies skipped), the root,
// and the type the outermost chain indexes (the root's block).
std::string PointerPass::FindChainsToRoot(uint32_t id, std::vector<const Instruction*>* chains, Root* root,
                                          uint32_t* root_type) {
  uint32_t cur = id;
  // Valid SSA cannot loop back here, but malformed input can (an access chain or copy
  // naming itself, found by the fuzzer): bound the walk instead of looping or growing.
  constexpr uint32_t kMaxWalk = 4096;
  for (uint32_t step = 0;; ++step) {
    if (step == kMaxWalk) return "bounds checks: a pointer's definitions form a cycle (malformed module)";
    if (const Root* r = roots_.Find(cur)) {
      *root = *r;
      *root_type = converted_[r->converted].var.block_type;
      return "";
    }
    const Instruction* d = LocalDef(cur);
    if (!d) return "bounds checks: an access whose buffer is not known statically";
    if (d->opcode() == spv::OpCopyObject) { cur = d->operand(0); continue; }
    if (!IsAccessChain(d->opcode())) return "bounds checks: an access through a merged or passed pointer";
    chains->push_back(d);
    cur = d->operand(0);
    // A chain into a descriptor array was split (RewriteArrayedChain): its root is the element.
    if (const uint32_t* split = split_root_.Find(d->result_id())) {
      const Root* rr = roots_.Find(*split);
      if (rr == nullptr) return "bounds checks: an access whose buffer is not known statically";
      *root = *rr;
      *root_type = converted_[rr->converted].var.block_type;
      return "";
    }
  }
}

// The offset `chain` adds, from `*type` (the type its base points to; left at the type its
// result points to).
std::string PointerPass::AddChainOffset(const Instruction& chain, uint32_t* type, OffsetSum* sum) {
  // A split chain's first index picked the descriptor array's element: the root already.
  uint32_t first = split_root_.Contains(chain.result_id()) ? 2 : 1;
  if (chain.opcode() == spv::OpPtrAccessChain || chain.opcode() == spv::OpInBoundsPtrAccessChain) {
    uint32_t base_type = LocalDef(chain.operand(0)) ? LocalDef(chain.operand(0))->type_id() : 0;
    uint32_t stride = 0;
    if (!types_.GetDecoration(base_type, spv::DecorationArrayStride, &stride)) return "bounds checks: OpPtrAccessChain without ArrayStride";
    std::string e = AddIndexTerm(chain.operand(1), stride, sum);
    if (!e.empty()) return e;
    first = 2;
  }
  for (uint32_t k = first; k < chain.operand_count(); ++k) {
    std::string e = AddIndexOffset(chain.operand(k), type, sum);
    if (!e.empty()) return e;
  }
  return "";
}

// The offset of one index into `*type` (then the indexed member's or element's type).
std::string PointerPass::AddIndexOffset(uint32_t index, uint32_t* type, OffsetSum* sum) {
  const Instruction* t = types_.Def(*type);
  if (!t) return "bounds checks: unknown type";
  switch (t->opcode()) {
    case spv::OpTypeStruct: {
      uint32_t member = 0, off = 0;
      if (!types_.GetConstantValue(index, &member) || member >= t->operand_count()) return "bounds checks: bad struct index";
      types_.GetMemberDecoration(*type, member, spv::DecorationOffset, &off);
      const Instruction* mt = types_.Def(t->operand(member));
      if (mt && mt->opcode() == spv::OpTypeMatrix) return "bounds checks: access into a matrix";
      sum->constant += off;
      *type = t->operand(member);
      return "";
    }
    case spv::OpTypeArray:
    case spv::OpTypeRuntimeArray: {
      uint32_t stride = 0;
      if (!types_.GetDecoration(*type, spv::DecorationArrayStride, &stride)) return "bounds checks: array without ArrayStride";
      *type = t->operand(0);  // read before AddIndexTerm moves `t`
      return AddIndexTerm(index, stride, sum);
    }
    case spv::OpTypeVector: {
      *type = t->operand(0);  // read before AddIndexTerm moves `t`
      return AddIndexTerm(index, types_.SizeOf(*type), sum);
    }
    default:
      return "bounds checks: access chain into an unsupported type";
  }
}

// index x stride joins the sum: folded when the index is a small constant, else emitted.
// Emitting may append constants to the types section and so move every Instruction in
// it: nothing here keeps a types_.Def() pointer across an Emit or a Get*.
std::string PointerPass::AddIndexTerm(uint32_t index, uint32_t stride, OffsetSum* sum) {
  // An index whose type is not an integer type of the module (malformed) counts as a u32.
  uint32_t width = 32;
  bool is_signed = false;
  IndexIntType(index, &width, &is_signed);
  uint32_t value = 0;
  if (types_.GetConstantValue(index, &value) && (value < (1u << 20))) {
    sum->constant += value * stride;
    return "";
  }
  if (options_.shader_int64) {
    AddIndexTerm64(index, width, is_signed, stride, sum);
    return "";
  }
  if (width != 32) return "bounds checks: a 64-bit index without shaderInt64";
  AddIndexTerm32(index, is_signed, stride, sum);
  return "";
}

// With shaderInt64 the dynamic part is a 64-bit sum that cannot wrap for any 32-bit index.
void PointerPass::AddIndexTerm64(uint32_t index, uint32_t width, bool is_signed, uint32_t stride, OffsetSum* sum) {
  // A signed index keeps its sign (a negative OpPtrAccessChain Element steps back).
  uint32_t w = width == 64 ? index : Emit(is_signed ? spv::OpSConvert : spv::OpUConvert, u64_, {index});
  uint32_t term = Emit(spv::OpIMul, u64_, {w, types_.GetConstant(u64_, {stride, 0})});
  sum->dynamic = sum->dynamic ? Emit(spv::OpIAdd, u64_, {sum->dynamic, term}) : term;
}

// Without it the sum is 32-bit: the product's high word and each addition's carry say
// whether the offset left 32 bits, which makes the access out of bounds (sum->overflow).
void PointerPass::AddIndexTerm32(uint32_t index, bool is_signed, uint32_t stride, OffsetSum* sum) {
  if (is_signed) index = Emit(spv::OpBitcast, u32_, {index});
  uint32_t pair = types_.GetType(spv::OpTypeStruct, {u32_, u32_});
  // A signed index is a signed term (hi:lo as 64 bits, hi all ones when negative): the
  // offset so far, constants included, must be in the running sum before it is added.
  if (is_signed && !sum->dynamic && sum->constant != 0) {
    sum->dynamic = types_.GetUintConstant(sum->constant);
    sum->constant = 0;
  }
  uint32_t prod = Emit(is_signed ? spv::OpSMulExtended : spv::OpUMulExtended, pair,
                       {index, types_.GetUintConstant(stride)});
  uint32_t lo = Emit(spv::OpCompositeExtract, u32_, {prod, 0});
  uint32_t hi = Emit(spv::OpCompositeExtract, u32_, {prod, 1});
  uint32_t term = lo;
  uint32_t bad = 0;
  if (sum->dynamic) {
    uint32_t added = Emit(spv::OpIAddCarry, pair, {sum->dynamic, term});
    term = Emit(spv::OpCompositeExtract, u32_, {added, 0});
    uint32_t carry = Emit(spv::OpCompositeExtract, u32_, {added, 1});
    if (is_signed) {
      // In range exactly when hi + carry wraps to 0: a positive term without a carry,
      // or a negative one (hi = ~0) whose addition carries.
      uint32_t top = Emit(spv::OpIAdd, u32_, {hi, carry});
      bad = Emit(spv::OpINotEqual, bool_, {top, types_.GetUintConstant(0)});
    } else {
      uint32_t h = Emit(spv::OpINotEqual, bool_, {hi, types_.GetUintConstant(0)});
      uint32_t c = Emit(spv::OpINotEqual, bool_, {carry, types_.GetUintConstant(0)});
      bad = Emit(spv::OpLogicalOr, bool_, {h, c});
    }
  } else {
    bad = Emit(spv::OpINotEqual, bool_, {hi, types_.GetUintConstant(0)});
  }
  sum->dynamic = term;
  sum->overflow = sum->overflow ? Emit(spv::OpLogicalOr, bool_, {sum->overflow, bad}) : bad;
}

// The constant part added last (one instruction), and in 32-bit mode its carry joins the
// overflow.
void PointerPass::FinishOffset(const OffsetSum& sum, uint32_t* offset, uint32_t* overflow) {
  const bool wide = options_.shader_int64;
  uint32_t ovf = sum.overflow;
  uint32_t c = wide ? types_.GetConstant(u64_, {sum.constant, 0}) : types_.GetUintConstant(sum.constant);
  if (!sum.dynamic) {
    *offset = c;
  } else if (wide) {
    *offset = Emit(spv::OpIAdd, u64_, {sum.dynamic, c});
  } else {
    uint32_t pair = types_.GetType(spv::OpTypeStruct, {u32_, u32_});
    uint32_t added = Emit(spv::OpIAddCarry, pair, {sum.dynamic, c});
    *offset = Emit(spv::OpCompositeExtract, u32_, {added, 0});
    uint32_t carry = Emit(spv::OpCompositeExtract, u32_, {added, 1});
    uint32_t b = Emit(spv::OpINotEqual, bool_, {carry, types_.GetUintConstant(0)});
    ovf = ovf ? Emit(spv::OpLogicalOr, bool_, {ovf, b}) : b;
  }
  *overflow = ovf;
}

std::string PointerPass::EmitInBounds(uint32_t id, uint32_t bytes, uint32_t* condition) {
  uint32_t offset = 0, overflow = 0;
  Root root;
  std::string e = EmitOffset(id, &offset, &overflow, &root);
  if (!e.empty()) return e;
  if (!root.size) return "bounds checks: buffer size not loaded";
  if (options_.shader_int64) {
    uint32_t end = Emit(spv::OpIAdd, u64_, {offset, types_.GetConstant(u64_, {bytes, 0})});
    *condition = Emit(spv::OpULessThanEqual, bool_, {end, root.size});
  } else {
    uint32_t pair = types_.GetType(spv::OpTypeStruct, {u32_, u32_});
    uint32_t sum = Emit(spv::OpIAddCarry, pair, {offset, types_.GetUintConstant(bytes)});
    uint32_t end = Emit(spv::OpCompositeExtract, u32_, {sum, 0});
    uint32_t carry = Emit(spv::OpCompositeExtract, u32_, {sum, 1});
    uint32_t fits = Emit(spv::OpULessThanEqual, bool_, {end, root.size});
    uint32_t no_carry = Emit(spv::OpIEqual, bool_, {carry, types_.GetUintConstant(0)});
    uint32_t ok = Emit(spv::OpLogicalAnd, bool_, {fits, no_carry});
    if (overflow) ok = Emit(spv::OpLogicalAnd, bool_, {ok, Emit(spv::OpLogicalNot, bool_, {overflow})});
    *condition = ok;
  }
  return "";
}

// The converted variables function `f` names directly (indices into converted_); false
// when the function has nothing to rewrite (no such variable, no retyped id).
bool PointerPass::FunctionNeedsRewrite(uint32_t f, std::vector<uint32_t>* direct) const {
  for (uint32_t c = 0; c < converted_.size(); ++c)
    for (const Use& u : UsesOf(converted_[c].var.id))
      if (u.function == f) { direct->push_back(c); break; }
  if (!direct->empty()) return true;
  for (const Instruction& inst : m_.functions[f].instructions)
    if (Retyped(inst.result_id()) || retyped_return_[f]) return true;
  return false;
}

uint32_t PointerPass::PointeeOf(uint32_t old_id) {
  const Instruction* d = LocalDef(old_id);
  if (!d) d = types_.Def(old_id);
  return d ? types_.PointeeType(d->type_id()) : 0;
}

bool PointerPass::IsBufferPointer(uint32_t old_id) {
  if (!Retyped(old_id)) return false;
  const Instruction* d = LocalDef(old_id);
  if (!d) return ConvertedOf(old_id) >= 0;
  return types_.PointerStorageClass(MappedType(d->type_id())) == spv::StorageClassPhysicalStorageBuffer;
}

uint32_t PointerPass::UndefOf(uint32_t type) {
  if (const uint32_t* known = undef_of_type_.Find(type)) return *known;
  uint32_t id = m_.TakeId();
  types_.AddGlobal(Instruction(spv::OpUndef, type, id, {}));
  undef_of_type_[type] = id;
  return id;
}

bool PointerPass::Guarded(const Instruction& x) {
  const spv::Op o = x.opcode();
  if (o == spv::OpLoad || IsAtomic(o)) return IsBufferPointer(x.operand(0));
  if (o == spv::OpStore || o == spv::OpCopyMemory || o == spv::OpCopyMemorySized)
    return IsBufferPointer(x.operand(0)) || IsBufferPointer(x.operand(1));
  return false;
}

// Whether converted variable `c`'s pointer is kept in a RestrictPointer variable
// (RewriteOptions::restrict_pointers): a buffer the module does not declare Aliased.
bool PointerPass::KeepsRestrictPointer(uint32_t c) const {
  const Converted& cv = converted_[c];
  return options_.restrict_pointers && !cv.var.array_type && !types_.HasDecoration(cv.var.id, spv::DecorationAliased);
}

void PointerPass::EmitFunctionPrologue(const std::vector<uint32_t>& direct) {
  // The restrict variables first: a function's variables open its entry block.
  PooledScratch<uint32_t> holders_scratch;
  std::vector<uint32_t>& holders = holders_scratch.v;
  holders.assign(direct.size(), 0);
  for (size_t k = 0; k < direct.size(); ++k) {
    if (!KeepsRestrictPointer(direct[k])) continue;
    const uint32_t type = types_.GetPointerType(spv::StorageClassFunction, converted_[direct[k]].psb_block_pointer);
    holders[k] = Emit(spv::OpVariable, type, {spv::StorageClassFunction});
    types_.AddDecoration(holders[k], spv::DecorationRestrictPointer);
  }
  for (uint32_t c : direct) {
    uint32_t s = static_cast<uint32_t>(converted_[c].set - options_.sets.data());
    if (!set_records_[s] && block_member_[s] != kNoMember) set_records_[s] = EmitRootPointer(s);
  }
  for (size_t k = 0; k < direct.size(); ++k) {
    const uint32_t c = direct[k];
    if (converted_[c].var.array_type) continue;
    uint32_t size = 0;
    uint32_t p = EmitRecordPointer(c, 0, 0, converted_[c].needs_size ? &size : nullptr);
    if (holders[k] != 0) {
      // Every use reads the pointer back from the RestrictPointer variable: the pointer
      // is then one a driver may assume aliases no other buffer, as the descriptor was.
      out_.emplace_back(spv::OpStore, 0, 0, std::initializer_list<uint32_t>{holders[k], p});
      p = Emit(spv::OpLoad, converted_[c].psb_block_pointer, {holders[k]});
    }
    replace_[converted_[c].var.id] = p;
    roots_[converted_[c].var.id] = Root{c, size};
    if (!converted_[c].var.name.empty()) {
      Instruction name(spv::OpName, 0, 0, {p});
      name.add_string_operand(converted_[c].var.name);
      m_.debug.push_back(std::move(name));
    }
  }
}

// A loop header must keep its OpLoopMerge right before its terminator, so it cannot be
// split. With a checked access in it, the header keeps only its phis and the merge
// instruction, and branches to a new block holding the rest: the header's body moves
// into the loop (as glslang lays out `while` loops), where it may be split.
void PointerPass::BeginBlock(const std::vector<Instruction>& in, uint32_t i, Instruction label) {
  current_label_ = block_label_ = label.result_id();
  out_.push_back(std::move(label));
  if (!options_.bounds_checks || !loop_headers_.Contains(block_label_)) return;
  size_t merge = SIZE_MAX;
  bool any_guarded = false;
  for (size_t k = i + 1; k < in.size() && !IsTerminator(in[k].opcode()); ++k) {
    if (in[k].opcode() == spv::OpLoopMerge) merge = k;
    any_guarded |= Guarded(in[k]);
  }
  // A one-block loop (the header is its own continue target) would need a new continue
  // block; not done: the access then refuses the module (EmitGuardedAccess's safety net).
  if (merge != SIZE_MAX && any_guarded && in[merge].operand(1) != block_label_) {
    hoisted_loop_merge_ = merge;
    split_header_pending_ = true;
  }
}

void PointerPass::SplitLoopHeader(const std::vector<Instruction>& in) {
  split_header_pending_ = false;
  const uint32_t body = m_.TakeId();
  out_.push_back(in[hoisted_loop_merge_]);
  out_.emplace_back(spv::OpBranch, 0, 0, std::initializer_list<uint32_t>{body});
  out_.emplace_back(spv::OpLabel, 0, body, std::initializer_list<uint32_t>{});
  current_label_ = body;
}

void PointerPass::RetypeFunction(uint32_t f, const std::vector<Instruction>& in, uint32_t i, Instruction inst) {
  bool change = retyped_return_[f] != 0;
  PooledScratch<uint32_t> params_scratch;
  std::vector<uint32_t>& params = params_scratch.v;
  for (uint32_t k = i + 1; k < in.size() && in[k].opcode() == spv::OpFunctionParameter; ++k) {
    uint32_t t = in[k].type_id();
    if (Retyped(in[k].result_id())) { t = MappedType(t); change = true; }
    params.push_back(t);
  }
  if (change) {
    uint32_t ret = retyped_return_[f] ? MappedType(inst.type_id()) : inst.type_id();
    params.insert(params.begin(), ret);
    inst.set_type_id(ret);
    inst.set_operand(1, types_.GetType(spv::OpTypeFunction, params));
  }
  out_.push_back(std::move(inst));
}

bool PointerPass::IsArrayedConvertedChain(const Instruction& original) const {
  const spv::Op op = original.opcode();
  return (op == spv::OpAccessChain || op == spv::OpInBoundsAccessChain) && ConvertedOf(original.operand(0)) >= 0 &&
         converted_[static_cast<uint32_t>(ConvertedOf(original.operand(0)))].var.array_type;
}

void PointerPass::RewriteArrayedChain(const Instruction& original, const Instruction& inst, uint32_t result) {
  uint32_t c = static_cast<uint32_t>(ConvertedOf(original.operand(0)));
  uint32_t size = 0;
  uint32_t* want_size = converted_[c].needs_size ? &size : nullptr;
  if (inst.operand_count() == 2) {
    EmitRecordPointer(c, inst.operand(1), result, want_size);
    roots_[result] = Root{c, size};
    return;
  }
  uint32_t p = EmitRecordPointer(c, inst.operand(1), 0, want_size);
  roots_[p] = Root{c, size};
  split_root_[result] = p;
  Instruction chain(inst.opcode(), MappedType(inst.type_id()), result, {p});
  for (uint32_t k = 2; k < inst.operand_count(); ++k) chain.add_operand(inst.operand(k));
  WidenChainIndices(&chain, 0, converted_[c].var.block_type, 1);
  out_.push_back(std::move(chain));
}

std::string PointerPass::RewriteArrayLength(const Instruction& original, uint32_t result) {
  const Root* r = roots_.Find(original.operand(0));
  if (r == nullptr || !r->size) return "OpArrayLength on a pointer whose buffer is not known";
  const Root known = *r;  // EmitArrayLength may grow roots_ (new ids)
  EmitArrayLength(known.converted, known.size, result);
  return "";
}

void PointerPass::RetypeParameter(Instruction inst, uint32_t result) {
  inst.set_type_id(MappedType(inst.type_id()));
  // A physical pointer parameter is Aliased or Restrict, exactly one: the module's
  // own choice stands.
  if (types_.PointerStorageClass(inst.type_id()) == spv::StorageClassPhysicalStorageBuffer &&
      !types_.HasDecoration(result, spv::DecorationAliased) && !types_.HasDecoration(result, spv::DecorationRestrict))
    types_.AddDecoration(result, spv::DecorationAliased);
  out_.push_back(std::move(inst));
}

void PointerPass::RetypeResult(uint32_t result, Instruction* inst) {
  const spv::Op op = inst->opcode();
  inst->set_type_id(MappedType(inst->type_id()));
  // Likewise a variable holding a physical pointer: AliasedPointer or RestrictPointer.
  if (op == spv::OpVariable && !types_.HasDecoration(result, spv::DecorationAliasedPointer) &&
      !types_.HasDecoration(result, spv::DecorationRestrictPointer))
    types_.AddDecoration(result, spv::DecorationAliasedPointer);
  if (op == spv::OpPhi || op == spv::OpSelect)
    for (uint32_t k = op == spv::OpSelect ? 1 : 0; k < inst->operand_count(); k += op == spv::OpSelect ? 1 : 2) {
      const Instruction* g = types_.Def(inst->operand(k));
      if (g && g->opcode() == spv::OpUndef) inst->set_operand(k, UndefOf(inst->type_id()));
    }
}

// Memory accesses through buffer pointers: Aligned operands (and the memory model's), and
// the pointers (with their access sizes) a bounds check must guard.
std::string PointerPass::AddMemoryOperands(const Instruction& original, Instruction* inst, uint32_t guard_pointer[2],
                                           uint32_t guard_bytes[2]) {
  const spv::Op op = original.opcode();
  if ((op == spv::OpLoad || op == spv::OpStore) && IsBufferPointer(original.operand(0))) {
    uint32_t pointee = PointeeOf(original.operand(0));
    AddAligned(inst, op == spv::OpLoad ? 1 : 2,
               std::max(types_.ScalarAlignment(pointee), DescriptorAccessAlignment(original.operand(0))));
    if (vulkan_memory_model_) AddCoherenceOperands(inst, op == spv::OpLoad ? 1 : 2, original.operand(0), op == spv::OpStore);
    guard_pointer[0] = original.operand(0);
    guard_bytes[0] = types_.SizeOf(pointee);
  } else if ((op == spv::OpCopyMemory || op == spv::OpCopyMemorySized) &&
             (IsBufferPointer(original.operand(0)) || IsBufferPointer(original.operand(1)))) {
    uint32_t first = op == spv::OpCopyMemory ? 2 : 3;
    uint32_t at = std::min(types_.ScalarAlignment(PointeeOf(original.operand(0))),
                           types_.ScalarAlignment(PointeeOf(original.operand(1))));
    if (m_.version >= 0x00010400) {
      std::string e = AlignCopyOperandSets(inst, first, at);
      if (!e.empty()) return e;
    } else {
      AddAligned(inst, first, at);
    }
    for (int s = 0; s < 2; ++s)
      if (IsBufferPointer(original.operand(s))) {
        guard_pointer[s] = original.operand(s);
        guard_bytes[s] = op == spv::OpCopyMemory ? types_.SizeOf(PointeeOf(original.operand(s))) : 0;
      }
    if (op == spv::OpCopyMemorySized && options_.bounds_checks) return "bounds checks: OpCopyMemorySized";
  } else if (IsAtomic(op) && IsBufferPointer(original.operand(0))) {
    guard_pointer[0] = original.operand(0);
    guard_bytes[0] = types_.SizeOf(PointeeOf(original.operand(0)));
  }
  return "";
}

// SPIR-V 1.4's OpCopyMemory(Sized): two memory-operand sets, the first for the target, the
// second for the source. A set is a mask then its operands (Aligned literal, MakePointer*
// scope ids); one set given applies to both.
std::string PointerPass::AlignCopyOperandSets(Instruction* inst, uint32_t first, uint32_t at) {
  auto set_length = [](uint32_t mask) {
    return 1u + ((mask & spv::MemoryAccessAlignedMask) ? 1u : 0u) +
           ((mask & spv::MemoryAccessMakePointerAvailableMask) ? 1u : 0u) +
           ((mask & spv::MemoryAccessMakePointerVisibleMask) ? 1u : 0u);
  };
  std::vector<uint32_t> sets[2];
  uint32_t k = first;
  for (int s = 0; s < 2 && k < inst->operand_count(); ++s) {
    uint32_t n = set_length(inst->operand(k));
    if (k + n > inst->operand_count()) return "malformed memory operands";
    sets[s].assign(inst->words().begin() + inst->first_operand_index() + k,
                   inst->words().begin() + inst->first_operand_index() + k + n);
    k += n;
  }
  if (sets[1].empty()) sets[1] = sets[0];
  inst->truncate_operands(first);
  for (int s = 0; s < 2; ++s) {
    Instruction one(spv::OpNop, 0, 0, {});
    for (uint32_t w : sets[s]) one.add_operand(w);
    // Both sets state the alignment: SPIRV-Tools checks the first set for either side.
    AddAligned(&one, 0, at);
    if (one.operand_count() == 0) one.add_operand(spv::MemoryAccessMaskNone);
    for (uint32_t w = 0; w < one.operand_count(); ++w) inst->add_operand(one.operand(w));
  }
  return "";
}

// Bounds checks: the access runs in a selection on its pointers being inside their
// buffers. The value of a checked load is the loaded one or zero, merged by a phi. A type
// the module may only load, store and convert (8/16-bit storage without Int8 / Int16 /
// Float16; the caller gives those where the device has them: RewriteOptions::float16)
// can have no zero constant and no phi: an integer travels widened to 32 bits and is
// narrowed after the merge (exact: UConvert/SConvert keep every bit). A 16-bit float
// cannot: widened and narrowed by OpFConvert, a signalling NaN comes back quiet on
// lavapipe and the H100 (ggml's quantized blocks, copied as float16 words, changed).
std::string PointerPass::EmitGuardedAccess(Instruction inst, uint32_t result, const uint32_t guard_pointer[2],
                                           const uint32_t guard_bytes[2]) {
  // Safety net: a header is split (BeginBlock); never wrap an access in the header itself.
  if (loop_headers_.Contains(current_label_)) return "bounds checks: a buffer access in a loop header block";
  uint32_t cond = 0;
  for (int s = 0; s < 2; ++s) {
    if (!guard_pointer[s]) continue;
    uint32_t c = 0;
    std::string e = EmitInBounds(guard_pointer[s], guard_bytes[s], &c);
    if (!e.empty()) return e;
    cond = cond ? Emit(spv::OpLogicalAnd, bool_, {cond, c}) : c;
  }
  uint32_t widened = 0;
  spv::Op widen_op = spv::OpNop;
  if (result && IsStorageOnlyType(inst.type_id())) {
    if (IsStorageOnlyFloat(inst.type_id()))
      return "bounds checks: a load of 16-bit floats without the Float16 capability (widened to 32 bits and "
             "back, a signalling NaN would not keep its bits)";
    if (!WidenedType(inst.type_id(), &widened, &widen_op))
      return "bounds checks: a whole-" + std::string(ShapeName(inst.type_id())) +
             " load of 8/16-bit storage-only values (without the Int8/Int16/Float16 capability a zero of it "
             "cannot be formed)";
  }
  uint32_t then_label = m_.TakeId(), merge_label = m_.TakeId();
  uint32_t header = current_label_;
  out_.emplace_back(spv::OpSelectionMerge, 0, 0, std::initializer_list<uint32_t>{merge_label, spv::SelectionControlMaskNone});
  out_.emplace_back(spv::OpBranchConditional, 0, 0, std::initializer_list<uint32_t>{cond, then_label, merge_label});
  out_.emplace_back(spv::OpLabel, 0, then_label, std::initializer_list<uint32_t>{});
  uint32_t inner = 0;
  uint32_t type = inst.type_id();
  if (result) {
    inner = m_.TakeId();
    inst.set_result_id(inner);
  }
  out_.push_back(std::move(inst));
  if (widened) inner = Emit(widen_op, widened, {inner});
  out_.emplace_back(spv::OpBranch, 0, 0, std::initializer_list<uint32_t>{merge_label});
  out_.emplace_back(spv::OpLabel, 0, merge_label, std::initializer_list<uint32_t>{});
  current_label_ = merge_label;
  if (result && widened) {
    const uint32_t merged = Emit(spv::OpPhi, widened, {inner, then_label, types_.GetNullConstant(widened), header});
    EmitWithId(widen_op, type, result, {merged});
  } else if (result) {
    out_.emplace_back(spv::OpPhi, type, result,
                      std::initializer_list<uint32_t>{inner, then_label, types_.GetNullConstant(type), header});
  }
  return "";
}

// Phis of the original code name the split block's last part as the predecessor.
void PointerPass::FixSplitPredecessors(const std::vector<size_t>& original_phis) {
  for (size_t position : original_phis) {
    Instruction& phi = out_[position];
    for (uint32_t k = 1; k < phi.operand_count(); k += 2) {
      if (const uint32_t* last = label_after_split_.Find(phi.operand(k))) phi.set_operand(k, *last);
    }
  }
}

// One function, instruction by instruction, in the named steps above.
std::string PointerPass::RewriteFunction(uint32_t f) {
  const std::vector<Instruction>& in = m_.functions[f].instructions;
  PooledScratch<uint32_t> direct_scratch;
  std::vector<uint32_t>& direct = direct_scratch.v;
  if (!StartFunction(f, &direct)) return "";
  PooledScratch<size_t> original_phis_scratch;
  std::vector<size_t>& original_phis = original_phis_scratch.v;
  bool prologue_done = false;
  bool seen_label = false;
  for (uint32_t i = 0; i < in.size(); ++i) {
    Instruction inst = in[i];
    const spv::Op op = inst.opcode();
    // The prologue goes after the entry block's variables (which must open the block).
    if (seen_label && !prologue_done && op != spv::OpVariable && op != spv::OpLine && op != spv::OpNoLine) {
      prologue_done = true;
      EmitFunctionPrologue(direct);
    }
    if (op == spv::OpLabel) {
      seen_label = true;
      BeginBlock(in, i, std::move(inst));
      continue;
    }
    if (split_header_pending_ && op != spv::OpPhi && op != spv::OpLine && op != spv::OpNoLine) SplitLoopHeader(in);
    if (i == hoisted_loop_merge_) continue;  // already emitted at the top of the header
    if (op == spv::OpFunction) {
      RetypeFunction(f, in, i, std::move(inst));
      continue;
    }
    std::string e = RewriteInstruction(in[i], std::move(inst), &original_phis);
    if (!e.empty()) return e;
  }
  FixSplitPredecessors(original_phis);
  m_.functions[f].instructions.swap(out_);
  return "";
}

// The per-function state cleared for function `f`; false when it has nothing to rewrite
// (FunctionNeedsRewrite; `direct` gets the converted variables it names).
bool PointerPass::StartFunction(uint32_t f, std::vector<uint32_t>* direct) {
  out_.clear();
  out_.reserve(m_.functions[f].instructions.size() + 32);
  replace_.Clear();
  roots_.Clear();
  split_root_.Clear();
  label_after_split_.Clear();
  set_records_.assign(options_.sets.size(), 0);
  if (!FunctionNeedsRewrite(f, direct)) return false;
  hoisted_loop_merge_ = SIZE_MAX;  // index in the function of the merge emitted early (BeginBlock)
  split_header_pending_ = false;
  return true;
}

// One instruction of a block (`original` as the module has it, `inst` its copy to edit):
// its uses of converted variables replaced, then the first step that applies (a chain into
// a descriptor array, an array length, a retyped parameter), else retyped, its indices
// widened, its memory operands set, and bounds-checked where it accesses a buffer.
std::string PointerPass::RewriteInstruction(const Instruction& original, Instruction&& inst,
                                            std::vector<size_t>* original_phis) {
  const spv::Op op = inst.opcode();
  // Uses of non-arrayed converted variables become the loaded pointer.
  if (!replace_.empty())
    ForEachPointerOperand(original, PointerOperandsOf(op), ext_sets_, [&](uint32_t k) {
      const uint32_t w = inst.operand(k);
      if (w >= m_.bound) return;
      if (const uint32_t* r = replace_.Find(w)) inst.set_operand(k, *r);
    });
  const uint32_t result = inst.has_result() ? inst.result_id() : 0;
  const bool retyped_result = Retyped(result);

  if (IsArrayedConvertedChain(original)) {
    RewriteArrayedChain(original, inst, result);
    return "";
  }
  if (op == spv::OpArrayLength && IsBufferPointer(original.operand(0))) return RewriteArrayLength(original, result);
  if (op == spv::OpFunctionParameter && retyped_result) {
    RetypeParameter(std::move(inst), result);
    return "";
  }
  if (retyped_result) RetypeResult(result, &inst);
  if (retyped_result && options_.shader_int64 && IsAccessChain(op) &&
      types_.PointerStorageClass(inst.type_id()) == spv::StorageClassPhysicalStorageBuffer) {
    const Instruction* base = LocalDef(original.operand(0));
    if (base == nullptr) base = types_.Def(original.operand(0));
    const uint32_t base_type = base ? base->type_id() : 0;
    WidenChainIndices(&inst, base_type, types_.PointeeType(base_type), 1);
  }

  uint32_t guard_pointer[2] = {0, 0};
  uint32_t guard_bytes[2] = {0, 0};
  std::string e = AddMemoryOperands(original, &inst, guard_pointer, guard_bytes);
  if (!e.empty()) return e;
  if (options_.bounds_checks && guard_pointer[0] + guard_pointer[1] != 0)
    return EmitGuardedAccess(std::move(inst), result, guard_pointer, guard_bytes);
  if (IsTerminator(op) && current_label_ != block_label_) label_after_split_[block_label_] = current_label_;
  if (op == spv::OpPhi) original_phis->push_back(out_.size());
  out_.push_back(std::move(inst));
  return "";
}

bool PointerPass::IsStorageOnlyType(uint32_t type) const {
  const Instruction* t = types_.Def(type);
  if (!t) return false;
  switch (t->opcode()) {
    case spv::OpTypeInt:
      return (t->operand(0) == 16 && !has_int16_) || (t->operand(0) == 8 && !has_int8_);
    case spv::OpTypeFloat:
      return t->operand(0) == 16 && !has_float16_;
    case spv::OpTypeVector:
    case spv::OpTypeMatrix:
    case spv::OpTypeArray:
    case spv::OpTypeRuntimeArray:
      return IsStorageOnlyType(t->operand(0));
    case spv::OpTypeStruct:
      for (uint32_t i = 0; i < t->operand_count(); ++i)
        if (IsStorageOnlyType(t->operand(i))) return true;
      return false;
    default:
      return false;
  }
}

bool PointerPass::IsStorageOnlyFloat(uint32_t type) const {
  const Instruction* t = types_.Def(type);
  if (t != nullptr && t->opcode() == spv::OpTypeVector) t = types_.Def(t->operand(0));
  return t != nullptr && t->opcode() == spv::OpTypeFloat && t->operand(0) == 16 && !has_float16_;
}

bool PointerPass::WidenedType(uint32_t type, uint32_t* wide, spv::Op* op) {
  const Instruction* t = types_.Def(type);
  if (!t) return false;
  uint32_t components = 0;
  if (t->opcode() == spv::OpTypeVector) {
    components = t->operand(1);
    t = types_.Def(t->operand(0));
    if (!t) return false;
  }
  uint32_t scalar = 0;
  if (t->opcode() == spv::OpTypeInt) {
    const bool is_signed = t->operand(1) != 0;
    scalar = types_.GetIntType(32, is_signed);
    // UConvert's result is unsigned; SConvert keeps the bits of a signed value.
    *op = is_signed ? spv::OpSConvert : spv::OpUConvert;
  } else {
    return false;
  }
  *wide = components ? types_.GetVectorType(scalar, components) : scalar;
  return true;
}

const char* PointerPass::ShapeName(uint32_t type) const {
  const Instruction* t = types_.Def(type);
  if (!t) return "value";
  switch (t->opcode()) {
    case spv::OpTypeStruct: return "struct";
    case spv::OpTypeArray: case spv::OpTypeRuntimeArray: return "array";
    case spv::OpTypeMatrix: return "matrix";
    default: return "value";
  }
}

}  // namespace bindery::spirv
