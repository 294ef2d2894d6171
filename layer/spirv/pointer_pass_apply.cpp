// PointerPass rewrite: the types the emitted code uses, the root (push constants, root
// buffer or root block), record loads, retyped types, OpArrayLength from the stored size,
// Aligned operands. Bounds checks are in pointer_pass_functions.cpp, capabilities and
// interfaces in rewrite.cpp (FinishModule).
#include <algorithm>
#include <map>
#include <set>

#include "spirv/instruction_shape.h"
#include "spirv/pointer_pass.h"
#include "spirv/use_kinds.h"

namespace bindery::spirv {
namespace {

constexpr uint32_t kNone = 0xffffffffu;
constexpr uint32_t kRecordAlignment = 8;

}  // namespace

uint32_t PointerPass::MappedType(uint32_t old_type) {
  if (const uint32_t* known = mapped_type_.Find(old_type)) return *known;
  uint32_t mapped = old_type;
  const Instruction* t = types_.Def(old_type);
  if (t && t->opcode() == spv::OpTypePointer) {
    const spv::StorageClass sc = ToStorageClass(t->operand(0));
    uint32_t pointee = t->operand(1);
    if (sc == spv::StorageClassStorageBuffer || sc == spv::StorageClassUniform) {
      uint32_t stride = 0;
      types_.GetDecoration(old_type, spv::DecorationArrayStride, &stride);
      mapped = types_.GetPointerType(spv::StorageClassPhysicalStorageBuffer, pointee, stride);
    } else if (types_.IsPointerType(pointee)) {
      mapped = types_.GetPointerType(sc, MappedType(pointee));
    }
  }
  mapped_type_[old_type] = mapped;
  return mapped;
}

uint32_t PointerPass::Emit(spv::Op op, uint32_t type, std::initializer_list<uint32_t> operands) {
  uint32_t id = m_.TakeId();
  out_.emplace_back(op, type, id, operands);
  return id;
}

void PointerPass::EmitWithId(spv::Op op, uint32_t type, uint32_t result, std::initializer_list<uint32_t> operands) {
  out_.emplace_back(op, type, result, operands);
}

void PointerPass::SetUpTypes() {
  u32_ = types_.GetUintType();
  bool_ = types_.GetBoolType();
  if (options_.shader_int64) {
    u64_ = types_.GetIntType(64, false);
    address_type_ = offset_type_ = u64_;
    uses_int64_ = true;
  } else {
    uvec2_ = types_.GetVectorType(u32_, 2);
    address_type_ = uvec2_;
    offset_type_ = u32_;
  }
  // The argument block, as types of its own (never one of the module's, which the
  // decorations below would change): shaders only read it, and NonWritable says so, so a
  // driver may fetch records through its read-only path as it does descriptors.
  uint32_t record = types_.CreateType(spv::OpTypeStruct, {address_type_, address_type_});
  types_.AddMemberDecoration(record, 0, spv::DecorationOffset, {0});
  types_.AddMemberDecoration(record, 1, spv::DecorationOffset, {8});
  types_.AddMemberDecoration(record, 0, spv::DecorationNonWritable);
  types_.AddMemberDecoration(record, 1, spv::DecorationNonWritable);
  uint32_t records = types_.GetRuntimeArrayType(record, 16);
  uint32_t block = types_.CreateType(spv::OpTypeStruct, {records});
  types_.AddDecoration(block, spv::DecorationBlock);
  types_.AddMemberDecoration(block, 0, spv::DecorationOffset, {0});
  types_.AddMemberDecoration(block, 0, spv::DecorationNonWritable);
  records_pointer_ = types_.GetPointerType(spv::StorageClassPhysicalStorageBuffer, block);
  address_pointer_ = types_.GetPointerType(spv::StorageClassPhysicalStorageBuffer, address_type_);
  ApplyVariableDecorations();  // decides each pointee_block
  for (Converted& c : converted_)
    c.psb_block_pointer = types_.GetPointerType(spv::StorageClassPhysicalStorageBuffer, c.pointee_block);
}

// The root members (one address per set, dynamic offsets) join the module's push-constant
// block, or a new block when it has none; or, by the root's placement, form a buffer or a
// block in memory of their own (whose address alone joins the push constants).
void PointerPass::SetUpPushConstants(RewriteReport* report) {
  PooledScratch<RootMember> members_scratch;
  std::vector<RootMember>& members = members_scratch.v;
  CollectRootMembers(&members);
  if (options_.root_placement == RootPlacement::kStorageBuffer) {
    SetUpRootBuffer(members, report);
    return;
  }
  if (options_.root_placement == RootPlacement::kPushAddress) {
    // The root's members form a block in memory; the push constants get its address alone.
    if (!SetUpRootStruct(members, report)) return;
    members.clear();
    members.push_back({options_.root_address_offset, address_type_, &root_address_member_, "bindery_root_address", 0});
  }
  JoinPushConstants(members, report);
}

// Every member the root has for this module, in offset order: per set the module reads,
// its block's address or its records (RootMembersOfSet), then each dynamic binding's offsets.
void PointerPass::CollectRootMembers(std::vector<RootMember>* members) {
  root_member_.assign(options_.sets.size(), kNone);
  block_member_.assign(options_.sets.size(), kNone);
  dynamic_member_.assign(converted_.size(), kNone);
  for (uint32_t s = 0; s < options_.sets.size(); ++s) AddRootMembersOfSet(s, members);
  for (uint32_t i = 0; i < converted_.size(); ++i)
    if (converted_[i].binding->dynamic_offsets_root_offset != kNoRootOffset)
      members->push_back({converted_[i].binding->dynamic_offsets_root_offset,
                          types_.GetArrayType(u32_, std::max(1u, converted_[i].binding->array_size), 4),
                          &dynamic_member_[i], "bindery_dynamic_offsets", i});
  std::sort(members->begin(), members->end(),
            [](const RootMember& a, const RootMember& b) { return a.offset < b.offset; });
}

// The root members of set `s` (an index into options_.sets), none where the module reads
// none of its bindings. Records in the root: an array covering every record this module
// reads there (its type a record struct of its own, never the argument block's); the
// block's address where some binding it reads lies in the block (after a prefix of
// records in the root).
void PointerPass::AddRootMembersOfSet(uint32_t s, std::vector<RootMember>* members) {
  const SetLayout& set = options_.sets[s];
  uint32_t records_used = 0;
  bool used = false, reads_block = false;
  for (const Converted& c : converted_)
    if (c.set == &set) {
      used = true;
      if (!set.BindingInRoot(*c.binding)) {
        reads_block = true;
        continue;
      }
      records_used = std::max(records_used, c.binding->first_record + std::max(1u, c.binding->array_size));
    }
  if (!used) return;
  if (!set.records_in_root) {
    members->push_back({set.root_offset, address_type_, &block_member_[s], "bindery_set", set.set});
    return;
  }
  if (reads_block) {
    members->push_back({set.root_offset + 16 * set.root_records, address_type_, &block_member_[s],
                        "bindery_set_block", set.set});
  }
  if (records_used == 0) return;
  uint32_t record = types_.CreateType(spv::OpTypeStruct, {address_type_, address_type_});
  types_.AddMemberDecoration(record, 0, spv::DecorationOffset, {0});
  types_.AddMemberDecoration(record, 1, spv::DecorationOffset, {8});
  members->push_back({set.root_offset, types_.GetArrayType(record, records_used, 16), &root_member_[s],
                      "bindery_set_records", set.set});
}

// `members` (offset order) after the members of the push-constant block the root joins.
// Their types are created after that block, so the block is re-declared at the end of the
// types with the old members first, and the variable moves after it.
void PointerPass::JoinPushConstants(const std::vector<RootMember>& members, RewriteReport* report) {
  PooledScratch<uint32_t> member_types_scratch, offsets_scratch;
  std::vector<uint32_t>& member_types = member_types_scratch.v;
  std::vector<uint32_t>& offsets = offsets_scratch.v;
  PooledScratch<Instruction> member_decorations_scratch;
  std::vector<Instruction>& member_decorations = member_decorations_scratch.v;
  const VariableInfo* pc = nullptr;
  const std::string why = ChoosePushConstantVariable(&pc);
  if (!why.empty()) {
    report->reason = why;
    return;
  }
  uint32_t end = 0;
  if (pc && !TakeOldPushConstantMembers(*pc, &member_types, &member_decorations, &end, report)) return;
  for (const RootMember& mb : members) {
    if (mb.offset < end) {
      report->reason = "root at byte " + std::to_string(mb.offset) + " overlaps push constants ending at " + std::to_string(end);
      return;
    }
    *mb.index = static_cast<uint32_t>(member_types.size());
    member_types.push_back(mb.type);
    offsets.push_back(mb.offset);
    end = mb.offset + types_.SizeOf(mb.type);
  }
  report->push_constant_end = end;
  CreatePushConstantBlock(members, member_types, offsets, member_decorations);
  uint32_t pointer = types_.CreateType(spv::OpTypePointer, {spv::StorageClassPushConstant, pc_struct_});
  if (pc) {
    RetypePushConstantVariable(*pc, pointer);
  } else {
    CreatePushConstantVariable(pointer);
  }
  SetUpRootPointerTypes();
}

// The members the module's push-constant block `pc` already has (types, member
// decorations) and where they end; false where its type is not a struct (why in report).
bool PointerPass::TakeOldPushConstantMembers(const VariableInfo& pc, std::vector<uint32_t>* member_types,
                                             std::vector<Instruction>* member_decorations, uint32_t* end,
                                             RewriteReport* report) {
  const Instruction* old_struct = types_.Def(pc.block_type);
  // Malformed input (found by the fuzzer): a push-constant variable whose pointee is not
  // a struct defined in the module. Not converted, never a crash.
  if (old_struct == nullptr || old_struct->opcode() != spv::OpTypeStruct) {
    report->reason = "the push-constant variable's type is not a struct";
    return false;
  }
  *end = types_.SizeOf(pc.block_type);
  for (uint32_t i = 0; i < old_struct->operand_count(); ++i) member_types->push_back(old_struct->operand(i));
  for (uint32_t i : types_.DecorationsOf(pc.block_type))
    if (m_.annotations[i].opcode() == spv::OpMemberDecorate) member_decorations->push_back(m_.annotations[i]);
  return true;
}

// pc_struct_: the old members (`member_decorations` theirs) then the root's, at `offsets`, named.
void PointerPass::CreatePushConstantBlock(const std::vector<RootMember>& members, const std::vector<uint32_t>& member_types,
                                          const std::vector<uint32_t>& offsets,
                                          const std::vector<Instruction>& member_decorations) {
  pc_struct_ = types_.CreateType(spv::OpTypeStruct, member_types);
  types_.AddDecoration(pc_struct_, spv::DecorationBlock);
  for (Instruction d : member_decorations) {
    d.set_operand(0, pc_struct_);
    types_.AddAnnotation(std::move(d));
  }
  uint32_t first_new = static_cast<uint32_t>(member_types.size() - members.size());
  for (uint32_t i = 0; i < members.size(); ++i) {
    types_.AddMemberDecoration(pc_struct_, first_new + i, spv::DecorationOffset, {offsets[i]});
    Instruction name(spv::OpMemberName, 0, 0, {pc_struct_, first_new + i});
    members[i].AddName(&name);
    m_.debug.push_back(std::move(name));
  }
}

// The module's push-constant variable `pc` now points to pc_struct_ (`pointer`), its old
// block's member names carried over.
void PointerPass::RetypePushConstantVariable(const VariableInfo& pc, uint32_t pointer) {
  pc_var_ = pc.id;
  PooledScratch<Instruction> names_scratch;
  std::vector<Instruction>& names = names_scratch.v;
  for (const Instruction& d : m_.debug)
    if (d.opcode() == spv::OpMemberName && d.operand(0) == pc.block_type) {
      names.push_back(d);
      names.back().set_operand(0, pc_struct_);
    }
  for (auto& n : names) m_.debug.push_back(std::move(n));
  // Moved after its new pointer type (the index follows the move).
  if (Instruction* var = types_.MoveGlobalToEnd(pc_var_)) var->set_type_id(pointer);
}

// A module without push constants: a new variable of `pointer`, named bindery_root.
void PointerPass::CreatePushConstantVariable(uint32_t pointer) {
  pc_var_ = m_.TakeId();
  new_pc_var_ = true;
  types_.AddGlobal(Instruction(spv::OpVariable, pointer, pc_var_, {spv::StorageClassPushConstant}));
  Instruction name(spv::OpName, 0, 0, {pc_var_});
  name.add_string_operand("bindery_root");
  m_.debug.push_back(std::move(name));
}

// The pointer types a root member is read through: push-constant ones, or with
// RootPlacement::kPushAddress PhysicalStorageBuffer ones (the push-constant pointer then
// serves the address's own load).
void PointerPass::SetUpRootPointerTypes() {
  pc_address_pointer_ = types_.GetPointerType(spv::StorageClassPushConstant, address_type_);
  pc_u32_pointer_ = types_.GetPointerType(spv::StorageClassPushConstant, u32_);
  if (options_.root_placement == RootPlacement::kPushAddress) {
    // Root reads go through the pointer (RootBase): the push-constant pointer types above
    // serve the address's own load.
    pc_root_address_pointer_ = pc_address_pointer_;
    pc_address_pointer_ = types_.GetPointerType(spv::StorageClassPhysicalStorageBuffer, address_type_);
    pc_u32_pointer_ = types_.GetPointerType(spv::StorageClassPhysicalStorageBuffer, u32_);
  }
}

// RootPlacement::kPushAddress: the root's members (offset order) as a block read through a
// PhysicalStorageBuffer pointer (storage-buffer layout, as the reserved set's buffer).
bool PointerPass::SetUpRootStruct(const std::vector<RootMember>& members, RewriteReport* report) {
  const uint32_t root_struct = CreateRootBlock(members, spv::DecorationBlock, report);
  if (root_struct == 0) return false;
  root_struct_pointer_ = types_.GetPointerType(spv::StorageClassPhysicalStorageBuffer, root_struct);
  return true;
}

// The root's members (offset order) as a read-only block of their own, for the placements
// that keep the root in memory (kStorageBuffer's buffer, kPushAddress's block): member i is
// members[i] (its index set), at its offset, named. Decorated `block_decoration` (Block,
// or BufferBlock for a Uniform-class buffer). 0 where two members overlap (why in report).
uint32_t PointerPass::CreateRootBlock(const std::vector<RootMember>& members, spv::Decoration block_decoration,
                                      RewriteReport* report) {
  PooledScratch<uint32_t> member_types_scratch;
  std::vector<uint32_t>& member_types = member_types_scratch.v;
  uint32_t end = 0;
  for (uint32_t i = 0; i < members.size(); ++i) {
    if (members[i].offset < end) {
      report->reason = "root members overlap at byte " + std::to_string(members[i].offset);
      return 0;
    }
    *members[i].index = i;
    member_types.push_back(members[i].type);
    end = members[i].offset + types_.SizeOf(members[i].type);
  }
  report->root_buffer_end = end;
  const uint32_t block = types_.CreateType(spv::OpTypeStruct, member_types);
  types_.AddDecoration(block, block_decoration);
  for (uint32_t i = 0; i < members.size(); ++i) {
    types_.AddMemberDecoration(block, i, spv::DecorationOffset, {members[i].offset});
    types_.AddMemberDecoration(block, i, spv::DecorationNonWritable);
    Instruction name(spv::OpMemberName, 0, 0, {block, i});
    members[i].AddName(&name);
    m_.debug.push_back(std::move(name));
  }
  return block;
}

// What root members are read through: the push-constant (or root buffer) variable, or, with
// RootPlacement::kPushAddress, a pointer made from the address in push constants, loaded
// at each use (a push-constant load, as the other placements' reads are).
uint32_t PointerPass::RootBase() {
  if (options_.root_placement != RootPlacement::kPushAddress) return pc_var_;
  const uint32_t at = Emit(spv::OpAccessChain, pc_root_address_pointer_, {pc_var_, types_.GetUintConstant(root_address_member_)});
  const uint32_t address = Emit(spv::OpLoad, address_type_, {at});
  return Emit(options_.shader_int64 ? spv::OpConvertUToPtr : spv::OpBitcast, root_struct_pointer_, {address});
}

// A load of a root member through `pointer` (from RootBase): aligned as the root's layout
// makes it where the root lies in memory (a PhysicalStorageBuffer load must say so).
uint32_t PointerPass::LoadRoot(uint32_t type, uint32_t pointer, uint32_t alignment) {
  if (options_.root_placement != RootPlacement::kPushAddress) return Emit(spv::OpLoad, type, {pointer});
  return Emit(spv::OpLoad, type, {pointer, spv::MemoryAccessAlignedMask, alignment});
}

// The push-constant variable the root joins (nullptr: a new one). A module usually has
// one, or none. With several (each entry point may have its own), the one the module's
// entry points use; none used (they all belong to entry points the caller left out): a new
// one, so the root's offsets need not clear a block no remaining entry point reads. Entry
// points using different ones cannot share one root: refused (name the entry point).
std::string PointerPass::ChoosePushConstantVariable(const VariableInfo** chosen) const {
  *chosen = nullptr;
  uint32_t count = 0;
  for (const VariableInfo& v : vars_)
    if (v.kind == ResourceKind::kPushConstants) {
      *chosen = &v;
      ++count;
    }
  if (count == 0 || (count == 1 && options_.entry_point.empty())) return "";
  *chosen = nullptr;
  const std::vector<std::vector<uint32_t>> used = GlobalsUsedByEntryPoints(m_);
  for (const std::vector<uint32_t>& globals : used)
    for (const VariableInfo& v : vars_) {
      if (v.kind != ResourceKind::kPushConstants || !std::binary_search(globals.begin(), globals.end(), v.id)) continue;
      if (*chosen != nullptr && *chosen != &v)
        return "entry points of the module use different push-constant variables (the rewrite must be made for one "
               "entry point)";
      *chosen = &v;
    }
  return "";
}

// RootPlacement::kStorageBuffer: the root members form a new read-only buffer block at
// (root_buffer_set, 0); pc_var_ and its pointer types then name that buffer, so the code
// that loads the root is the same for both placements. The module's own push constants
// stay as they are.
void PointerPass::SetUpRootBuffer(const std::vector<RootMember>& members, RewriteReport* report) {
  for (const VariableInfo& v : vars_) {
    if (v.kind == ResourceKind::kPushConstants) report->push_constant_end = std::max(report->push_constant_end, types_.SizeOf(v.block_type));
    if (v.is_resource && v.kind != ResourceKind::kPushConstants && v.set == options_.root_buffer_set && v.binding == 0) {
      report->reason = "the root buffer's binding (set " + std::to_string(v.set) + ", binding 0) is in use";
      return;
    }
  }
  // StorageBuffer is core from SPIR-V 1.3; before it, a Uniform + BufferBlock variable has
  // the same (storage-buffer) layout without an extension.
  const bool storage_class = m_.version >= 0x00010300;
  const spv::StorageClass sc = storage_class ? spv::StorageClassStorageBuffer : spv::StorageClassUniform;
  const uint32_t block = CreateRootBlock(members, storage_class ? spv::DecorationBlock : spv::DecorationBufferBlock, report);
  if (block == 0) return;
  pc_struct_ = block;
  uint32_t pointer = types_.CreateType(spv::OpTypePointer, {static_cast<uint32_t>(sc), pc_struct_});
  pc_var_ = m_.TakeId();
  new_pc_var_ = true;
  types_.AddGlobal(Instruction(spv::OpVariable, pointer, pc_var_, {static_cast<uint32_t>(sc)}));
  types_.AddDecoration(pc_var_, spv::DecorationDescriptorSet, {options_.root_buffer_set});
  types_.AddDecoration(pc_var_, spv::DecorationBinding, {0});
  Instruction name(spv::OpName, 0, 0, {pc_var_});
  name.add_string_operand("bindery_root");
  m_.debug.push_back(std::move(name));
  pc_address_pointer_ = types_.GetPointerType(sc, address_type_);
  pc_u32_pointer_ = types_.GetPointerType(sc, u32_);
}

uint32_t PointerPass::EmitRootPointer(uint32_t set_index) {
  uint32_t member = types_.GetUintConstant(block_member_[set_index]);
  uint32_t chain = Emit(spv::OpAccessChain, pc_address_pointer_, {RootBase(), member});
  uint32_t root = LoadRoot(address_type_, chain, 8);
  return Emit(options_.shader_int64 ? spv::OpConvertUToPtr : spv::OpBitcast, records_pointer_, {root});
}

uint32_t PointerPass::EmitRecordPointer(uint32_t c, uint32_t element, uint32_t result_id, uint32_t* size) {
  const Converted& cv = converted_[c];
  uint32_t set_index = static_cast<uint32_t>(cv.set - options_.sets.data());
  uint32_t records = set_records_[set_index];
  uint32_t first = types_.GetUintConstant(cv.binding->first_record);
  uint32_t index = first;
  uint32_t element_u32 = element;
  const bool in_root = cv.set->BindingInRoot(*cv.binding);
  if (element != 0) {
    index = Emit(spv::OpIAdd, u32_, {first, element});
    // 64-bit like every dynamic index of a buffer-pointer chain (pointer_pass_wide_indices.cpp).
    if (options_.shader_int64 && !in_root) index = Emit(spv::OpUConvert, u64_, {index});
  } else {
    element_u32 = types_.GetUintConstant(0);
  }
  uint32_t c0 = types_.GetUintConstant(0), c1 = types_.GetUintConstant(1);
  // A record in the root is a member of the push constants (or the root buffer): read
  // like any of them, with no pointer load first.
  const uint32_t root_records = in_root ? types_.GetUintConstant(root_member_[set_index]) : 0;
  auto record_word = [&](uint32_t member) {
    if (in_root) {
      uint32_t at = Emit(spv::OpAccessChain, pc_address_pointer_, {RootBase(), root_records, index, member});
      return LoadRoot(address_type_, at, 8);
    }
    uint32_t at = Emit(spv::OpAccessChain, address_pointer_, {records, c0, index, member});
    return Emit(spv::OpLoad, address_type_, {at, spv::MemoryAccessAlignedMask, kRecordAlignment});
  };
  uint32_t address = record_word(c0);
  uint32_t dynamic = 0;
  if (dynamic_member_[c] != kNone) {
    uint32_t at = Emit(spv::OpAccessChain, pc_u32_pointer_, {RootBase(), types_.GetUintConstant(dynamic_member_[c]), element_u32});
    dynamic = LoadRoot(u32_, at, 4);
    if (options_.shader_int64) {
      uint32_t wide = Emit(spv::OpUConvert, u64_, {dynamic});
      address = Emit(spv::OpIAdd, u64_, {address, wide});
    } else {
      uint32_t pair = types_.GetType(spv::OpTypeStruct, {u32_, u32_});
      uint32_t lo = Emit(spv::OpCompositeExtract, u32_, {address, 0});
      uint32_t hi = Emit(spv::OpCompositeExtract, u32_, {address, 1});
      uint32_t sum = Emit(spv::OpIAddCarry, pair, {lo, dynamic});
      uint32_t new_lo = Emit(spv::OpCompositeExtract, u32_, {sum, 0});
      uint32_t carry = Emit(spv::OpCompositeExtract, u32_, {sum, 1});
      uint32_t new_hi = Emit(spv::OpIAdd, u32_, {hi, carry});
      address = Emit(spv::OpCompositeConstruct, uvec2_, {new_lo, new_hi});
    }
  }
  if (result_id == 0) result_id = m_.TakeId();
  EmitWithId(options_.shader_int64 ? spv::OpConvertUToPtr : spv::OpBitcast, cv.psb_block_pointer, result_id, {address});
  if (size) {
    uint32_t raw = record_word(c1);
    uint32_t s = raw;
    if (!options_.shader_int64) {
      // Without 64-bit integers sizes are 32-bit: a buffer of 4 GiB or more reads as 4 GiB - 1.
      uint32_t lo = Emit(spv::OpCompositeExtract, u32_, {raw, 0});
      uint32_t hi = Emit(spv::OpCompositeExtract, u32_, {raw, 1});
      uint32_t big = Emit(spv::OpINotEqual, bool_, {hi, types_.GetUintConstant(0)});
      s = Emit(spv::OpSelect, u32_, {big, types_.GetUintConstant(0xffffffffu), lo});
    }
    if (dynamic) {
      uint32_t d = options_.shader_int64 ? Emit(spv::OpUConvert, u64_, {dynamic}) : dynamic;
      uint32_t below = Emit(spv::OpULessThan, bool_, {s, d});
      uint32_t diff = Emit(spv::OpISub, offset_type_, {s, d});
      s = Emit(spv::OpSelect, offset_type_, {below, types_.GetNullConstant(offset_type_), diff});
    }
    *size = s;
  }
  return result_id;
}

uint32_t PointerPass::EmitArrayLength(uint32_t c, uint32_t size, uint32_t result_id) {
  const Converted& cv = converted_[c];
  const Instruction* block = types_.Def(cv.var.block_type);
  uint32_t last = block->operand_count() - 1;
  uint32_t offset = 0, stride = 1;
  types_.GetMemberDecoration(cv.var.block_type, last, spv::DecorationOffset, &offset);
  types_.GetDecoration(block->operand(last), spv::DecorationArrayStride, &stride);
  auto constant = [&](uint32_t v) {
    return options_.shader_int64 ? types_.GetConstant(u64_, {v, 0}) : types_.GetUintConstant(v);
  };
  uint32_t below = Emit(spv::OpULessThan, bool_, {size, constant(offset)});
  uint32_t diff = Emit(spv::OpISub, offset_type_, {size, constant(offset)});
  uint32_t bytes = Emit(spv::OpSelect, offset_type_, {below, types_.GetNullConstant(offset_type_), diff});
  if (options_.shader_int64) {
    uint32_t count = Emit(spv::OpUDiv, u64_, {bytes, constant(std::max(1u, stride))});
    // OpArrayLength is 32-bit: a longer array (bytes beyond 4 GiB) reads as the largest
    // length, never as the length modulo 2^32.
    count = ClampToU32(count);
    EmitWithId(spv::OpUConvert, u32_, result_id, {count});
  } else {
    EmitWithId(spv::OpUDiv, u32_, result_id, {bytes, constant(std::max(1u, stride))});
  }
  return result_id;
}

uint32_t PointerPass::ClampToU32(uint32_t value64) {
  const uint32_t max = types_.GetConstant(u64_, {0xffffffffu, 0});
  const uint32_t over = Emit(spv::OpUGreaterThan, bool_, {value64, max});
  return Emit(spv::OpSelect, u64_, {over, max, value64});
}

void PointerPass::AddAligned(Instruction* inst, uint32_t first, uint32_t alignment) {
  // Memory operands: a mask, then the Aligned literal first among the mask's operands.
  if (inst->operand_count() <= first) {
    inst->add_operand(spv::MemoryAccessAlignedMask);
    inst->add_operand(alignment);
    return;
  }
  uint32_t mask = inst->operand(first);
  if (mask & spv::MemoryAccessAlignedMask) return;  // already states an alignment
  std::vector<uint32_t> rest;
  for (uint32_t k = first + 1; k < inst->operand_count(); ++k) rest.push_back(inst->operand(k));
  inst->truncate_operands(first);
  inst->add_operand(mask | spv::MemoryAccessAlignedMask);
  inst->add_operand(alignment);
  for (uint32_t w : rest) inst->add_operand(w);
}

}  // namespace bindery::spirv
