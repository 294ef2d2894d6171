// PointerPass: decorations of a converted variable itself (Coherent, Volatile, NonWritable,
// NonReadable) stay in effect once the variable is a physical pointer, and the Device
// scope capability the Vulkan memory model then needs.
//
// A pointer value cannot carry those decorations, so they move to every member of the
// block it points to (what glslang writes for a qualified block anyway). When converted
// buffers share a block but need different decorations, each distinct need gets its own
// copy of the block; a copy is only taken where every use of the buffer is an access
// chain into it (a whole-block load, select or call would see two struct types).
// Under the Vulkan memory model Coherent and Volatile are not decorations at all: loads
// and stores through such a buffer get MakePointerVisible / MakePointerAvailable +
// NonPrivatePointer at Device scope, and Volatile, as memory operands.
#include <algorithm>
#include <map>

#include "spirv/pointer_pass.h"
#include "spirv/use_kinds.h"

namespace bindery::spirv {
namespace {

constexpr uint32_t kAvailableMask = spv::MemoryAccessMakePointerAvailableMask;
constexpr uint32_t kVisibleMask = spv::MemoryAccessMakePointerVisibleMask;

}  // namespace

std::string PointerPass::PlanVariableDecorations() {
  // Decorations that become member decorations (Coherent and Volatile are operands under
  // the Vulkan memory model).
  const uint32_t member_kinds = vulkan_memory_model_ ? (kNonWritable | kNonReadable) : ~0u;
  for (Converted& c : converted_) c.pointee_block = c.var.block_type;
  PooledScratch<uint32_t> by_block_scratch, differ_scratch;
  std::vector<uint32_t>& by_block = by_block_scratch.v;
  std::vector<uint32_t>& users_differ = differ_scratch.v;
  SortByBlockMarkingDifferences(member_kinds, &by_block, &users_differ);
  // Buffers needing decorations, of blocks whose buffers differ, get a copy: every use
  // must be an access chain into the block (for descriptor arrays, into an element).
  for (const uint32_t c : by_block) {
    if (!users_differ[c] || (converted_[c].memory_flags & member_kinds) == 0) continue;
    const bool arrayed = converted_[c].var.array_type != 0;
    std::vector<uint32_t> pointers{converted_[c].var.id};
    for (size_t p = 0; p < pointers.size(); ++p) {
      const bool element_level = arrayed && p == 0;
      for (const Use& u : UsesOf(pointers[p])) {
        const Instruction& inst = m_.functions[u.function].instructions[u.index];
        const bool chain = IsAccessChain(inst.opcode()) && u.operand == 0;
        if (element_level && chain && inst.operand_count() == 2) {
          pointers.push_back(inst.result_id());  // an element pointer: follow its uses too
          continue;
        }
        if ((chain && inst.operand_count() >= (element_level ? 3u : 2u)) ||
            (inst.opcode() == spv::OpArrayLength && !element_level))
          continue;
        return "converted buffers share a block type but differ in Coherent/Volatile/NonWritable/NonReadable, "
               "and " + (converted_[c].var.name.empty() ? std::string("one") : converted_[c].var.name) +
               " is used as a whole pointer";
      }
    }
  }
  return "";
}

void PointerPass::ApplyVariableDecorations() {
  const uint32_t member_kinds = vulkan_memory_model_ ? (kNonWritable | kNonReadable) : ~0u;
  static constexpr std::pair<uint32_t, spv::Decoration> kDecorations[] = {
      {kCoherent, spv::DecorationCoherent}, {kVolatile, spv::DecorationVolatile},
      {kNonWritable, spv::DecorationNonWritable}, {kNonReadable, spv::DecorationNonReadable}};
  auto decorate_members = [&](uint32_t block, uint32_t flags) {
    const Instruction* t = types_.Def(block);
    const uint32_t members = t ? t->operand_count() : 0;
    for (uint32_t i = 0; i < members; ++i)
      for (const auto& [flag, decoration] : kDecorations)
        if ((flags & flag) && !types_.GetMemberDecoration(block, i, decoration, nullptr))
          types_.AddMemberDecoration(block, i, decoration);
  };
  // Per converted buffer, whether the buffers sharing its block differ in the flags.
  PooledScratch<uint32_t> by_block_scratch, differ_scratch;
  std::vector<uint32_t>& by_block = by_block_scratch.v;
  std::vector<uint32_t>& users_differ = differ_scratch.v;
  SortByBlockMarkingDifferences(member_kinds, &by_block, &users_differ);
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> copies;  // (block, flags) -> copy
  for (uint32_t index = 0; index < converted_.size(); ++index) {
    Converted& c = converted_[index];
    const uint32_t f = c.memory_flags & member_kinds;
    if (f == 0) continue;
    if (!users_differ[index]) continue;  // decorated in place below
    uint32_t& copy = copies[{c.var.block_type, f}];
    if (copy == 0) {
      std::vector<uint32_t> members;
      const Instruction* t = types_.Def(c.var.block_type);
      for (uint32_t i = 0; t && i < t->operand_count(); ++i) members.push_back(t->operand(i));
      copy = types_.CreateType(spv::OpTypeStruct, members);
      std::vector<Instruction> decorations;
      for (uint32_t a : types_.DecorationsOf(c.var.block_type)) decorations.push_back(m_.annotations[a]);
      for (Instruction& d : decorations) {
        d.set_operand(0, copy);
        // The pointee of a physical pointer is a Block, never a (legacy) BufferBlock.
        if (d.opcode() == spv::OpDecorate && d.operand(1) == spv::DecorationBufferBlock)
          d.set_operand(1, spv::DecorationBlock);
        types_.AddAnnotation(std::move(d));
      }
      decorate_members(copy, f);
    }
    c.pointee_block = copy;
  }
  // Blocks whose buffers agree, in ascending block id (the order of the output's decorations).
  for (std::size_t u = 0; u < by_block.size(); ++u) {
    const uint32_t c = by_block[u];
    const bool first_of_block = u == 0 || converted_[by_block[u - 1]].var.block_type != converted_[c].var.block_type;
    const uint32_t f = converted_[c].memory_flags & member_kinds;
    if (first_of_block && !users_differ[c] && f != 0) decorate_members(converted_[c].var.block_type, f);
  }
}

void PointerPass::SortByBlock(std::vector<uint32_t>* order) const {
  order->resize(converted_.size());
  for (uint32_t c = 0; c < converted_.size(); ++c) (*order)[c] = c;
  // std::sort with the index as the tie-break: stable without stable_sort's buffer.
  std::sort(order->begin(), order->end(), [&](uint32_t a, uint32_t b) {
    const uint32_t block_a = converted_[a].var.block_type, block_b = converted_[b].var.block_type;
    return block_a != block_b ? block_a < block_b : a < b;
  });
}

void PointerPass::SortByBlockMarkingDifferences(uint32_t member_kinds, std::vector<uint32_t>* order,
                                                std::vector<uint32_t>* users_differ) const {
  SortByBlock(order);
  const std::vector<uint32_t>& by_block = *order;
  users_differ->assign(converted_.size(), 0);
  for (std::size_t first = 0, last = 0; first < by_block.size(); first = last) {
    last = first + 1;
    while (last < by_block.size() && converted_[by_block[last]].var.block_type == converted_[by_block[first]].var.block_type)
      ++last;
    bool differ = false;
    for (std::size_t u = first; u < last; ++u)
      differ |= (converted_[by_block[u]].memory_flags & member_kinds) !=
                (converted_[by_block[first]].memory_flags & member_kinds);
    for (std::size_t u = first; u < last; ++u) (*users_differ)[by_block[u]] = differ ? 1 : 0;
  }
}

int32_t PointerPass::StaticRootOf(uint32_t id) const {
  for (int steps = 0; steps < 1024; ++steps) {
    if (ConvertedOf(id) >= 0) return ConvertedOf(id);
    const Instruction* d = LocalDef(id);
    if (!d || !(IsAccessChain(d->opcode()) || d->opcode() == spv::OpCopyObject)) return -1;
    id = d->operand(0);
  }
  return -1;
}

void PointerPass::AddCoherenceOperands(Instruction* inst, uint32_t first, uint32_t id, bool is_store) {
  uint32_t flags = 0;
  const int32_t root = StaticRootOf(id);
  if (root >= 0) {
    flags = converted_[static_cast<uint32_t>(root)].memory_flags;
  } else {
    for (const Converted& c : converted_) flags |= c.memory_flags;  // unknown buffer: the strictest
  }
  flags &= kCoherent | kVolatile;
  if (flags == 0) return;
  // Current operands: mask, then Aligned literal, Available scope, Visible scope (bit order).
  uint32_t mask = inst->operand_count() > first ? inst->operand(first) : 0;
  uint32_t k = first + 1;
  uint32_t aligned = 0, available = 0, visible = 0;
  if (mask & spv::MemoryAccessAlignedMask) aligned = inst->operand(k++);
  if (mask & kAvailableMask) available = inst->operand(k++);
  if (mask & kVisibleMask) visible = inst->operand(k++);
  const uint32_t device = types_.GetUintConstant(spv::ScopeDevice);
  if (flags & kVolatile) mask |= spv::MemoryAccessVolatileMask;
  if (flags & kCoherent) {
    mask |= spv::MemoryAccessNonPrivatePointerMask;
    if (is_store && !(mask & kAvailableMask)) { mask |= kAvailableMask; available = device; emitted_device_scope_ = true; }
    if (!is_store && !(mask & kVisibleMask)) { mask |= kVisibleMask; visible = device; emitted_device_scope_ = true; }
  }
  inst->truncate_operands(first);
  inst->add_operand(mask);
  if (mask & spv::MemoryAccessAlignedMask) inst->add_operand(aligned);
  if (mask & kAvailableMask) inst->add_operand(available);
  if (mask & kVisibleMask) inst->add_operand(visible);
}

void PointerPass::AddDeviceScopeCapability() {
  bool vulkan_model_capability = false, has_device_scope_capability = false;
  for (const Instruction& c : m_.capabilities) {
    vulkan_model_capability |= c.operand(0) == spv::CapabilityVulkanMemoryModel;
    has_device_scope_capability |= c.operand(0) == spv::CapabilityVulkanMemoryModelDeviceScope;
  }
  if (!vulkan_model_capability || has_device_scope_capability) return;
  // spirv-val: with the VulkanMemoryModel capability, any Device scope operand needs
  // VulkanMemoryModelDeviceScope. Ours (coherent accesses) and atomics' scopes.
  bool device = emitted_device_scope_;
  for (const Function& fn : m_.functions)
    for (const Instruction& inst : fn.instructions) {
      if (device) break;
      uint32_t value = 0;
      if (IsAtomic(inst.opcode()) && types_.GetConstantValue(inst.operand(1), &value) && value == spv::ScopeDevice)
        device = true;
    }
  if (device)
    m_.capabilities.emplace_back(spv::OpCapability, 0, 0,
                                 std::initializer_list<uint32_t>{spv::CapabilityVulkanMemoryModelDeviceScope});
}

}  // namespace bindery::spirv
