// TypeManager (type_manager.h).
#include "spirv/type_manager.h"

#include <algorithm>

#include "spirv/instruction_shape.h"

namespace bindery::spirv {
namespace {

// Lookup key of a global: its words less the result id, with the bare opcode first.
std::vector<uint32_t> KeyOf(const Instruction& inst) {
  std::vector<uint32_t> key;
  key.reserve(inst.word_count());
  key.push_back(static_cast<uint32_t>(inst.opcode()));
  if (inst.has_type()) key.push_back(inst.type_id());
  for (uint32_t i = 0; i < inst.operand_count(); ++i) key.push_back(inst.operand(i));
  return key;
}

std::vector<uint32_t> KeyOf(spv::Op op, uint32_t type, const std::vector<uint32_t>& operands) {
  std::vector<uint32_t> key;
  key.reserve(operands.size() + 2);
  key.push_back(static_cast<uint32_t>(op));
  if (type) key.push_back(type);
  key.insert(key.end(), operands.begin(), operands.end());
  return key;
}

bool IsLayoutDecoration(uint32_t d) {
  return d == spv::DecorationArrayStride || d == spv::DecorationOffset || d == spv::DecorationBlock ||
         d == spv::DecorationBufferBlock || d == spv::DecorationMatrixStride || d == spv::DecorationRowMajor ||
         d == spv::DecorationColMajor;
}

const std::vector<uint32_t> kNoDecorations;

}  // namespace

TypeManager::TypeManager(Module& module) : m_(module) { Reindex(); }

void TypeManager::Reindex() {
  by_key_.clear();
  decorations_.clear();
  def_index_.assign(m_.bound, -1);
  for (uint32_t i = 0; i < m_.types_values.size(); ++i) Index(i);
  for (uint32_t i = 0; i < m_.annotations.size(); ++i) {
    const Instruction& a = m_.annotations[i];
    if (a.operand_count() == 0) continue;
    switch (a.opcode()) {
      case spv::OpDecorate: case spv::OpMemberDecorate: case spv::OpDecorateId:
      case spv::OpDecorateString: case spv::OpMemberDecorateString:
        decorations_[a.operand(0)].push_back(i);
        break;
      default: break;
    }
  }
}

void TypeManager::Index(uint32_t position) {
  const Instruction& inst = m_.types_values[position];
  if (!inst.has_result()) return;
  uint32_t id = inst.result_id();
  if (id >= def_index_.size()) def_index_.resize(id + 1, -1);
  def_index_[id] = static_cast<int32_t>(position);
  const spv::Op op = inst.opcode();
  if ((op >= spv::OpTypeVoid && op <= spv::OpTypeForwardPointer) || op == spv::OpConstant ||
      op == spv::OpConstantTrue || op == spv::OpConstantFalse || op == spv::OpConstantNull ||
      op == spv::OpConstantComposite)
    by_key_[KeyOf(inst)].push_back(id);
}

const Instruction* TypeManager::Def(uint32_t id) const {
  int i = DefIndex(id);
  return i < 0 ? nullptr : &m_.types_values[static_cast<uint32_t>(i)];
}

const std::vector<uint32_t>& TypeManager::DecorationsOf(uint32_t id) const {
  auto it = decorations_.find(id);
  return it == decorations_.end() ? kNoDecorations : it->second;
}

bool TypeManager::HasDecoration(uint32_t id, spv::Decoration d) const {
  for (uint32_t i : DecorationsOf(id)) {
    const Instruction& a = m_.annotations[i];
    if (a.opcode() == spv::OpDecorate && a.operand_count() >= 2 && a.operand(1) == static_cast<uint32_t>(d)) return true;
  }
  return false;
}

bool TypeManager::GetDecoration(uint32_t id, spv::Decoration d, uint32_t* value) const {
  for (uint32_t i : DecorationsOf(id)) {
    const Instruction& a = m_.annotations[i];
    if (a.opcode() == spv::OpDecorate && a.operand_count() >= 3 && a.operand(1) == static_cast<uint32_t>(d)) {
      *value = a.operand(2);
      return true;
    }
  }
  return false;
}

bool TypeManager::GetMemberDecoration(uint32_t struct_id, uint32_t member, spv::Decoration d, uint32_t* value) const {
  for (uint32_t i : DecorationsOf(struct_id)) {
    const Instruction& a = m_.annotations[i];
    if (a.opcode() == spv::OpMemberDecorate && a.operand_count() >= 3 && a.operand(1) == member &&
        a.operand(2) == static_cast<uint32_t>(d)) {
      if (value) *value = a.operand_count() >= 4 ? a.operand(3) : 0;
      return true;
    }
  }
  return false;
}

void TypeManager::AddDecoration(uint32_t id, spv::Decoration d, std::initializer_list<uint32_t> literals) {
  Instruction a(spv::OpDecorate, 0, 0, {id, static_cast<uint32_t>(d)});
  for (uint32_t l : literals) a.add_operand(l);
  decorations_[id].push_back(static_cast<uint32_t>(m_.annotations.size()));
  m_.annotations.push_back(std::move(a));
}

void TypeManager::AddMemberDecoration(uint32_t id, uint32_t member, spv::Decoration d, std::initializer_list<uint32_t> literals) {
  Instruction a(spv::OpMemberDecorate, 0, 0, {id, member, static_cast<uint32_t>(d)});
  for (uint32_t l : literals) a.add_operand(l);
  decorations_[id].push_back(static_cast<uint32_t>(m_.annotations.size()));
  m_.annotations.push_back(std::move(a));
}

std::vector<uint32_t> TypeManager::LayoutSignature(uint32_t id) const {
  std::vector<std::vector<uint32_t>> decs;
  for (uint32_t i : DecorationsOf(id)) {
    const Instruction& a = m_.annotations[i];
    std::vector<uint32_t> d;
    if (a.opcode() == spv::OpDecorate && a.operand_count() >= 2 && IsLayoutDecoration(a.operand(1))) {
      d.push_back(0xffffffffu);
      for (uint32_t k = 1; k < a.operand_count(); ++k) d.push_back(a.operand(k));
    } else if (a.opcode() == spv::OpMemberDecorate && a.operand_count() >= 3 && IsLayoutDecoration(a.operand(2))) {
      for (uint32_t k = 1; k < a.operand_count(); ++k) d.push_back(a.operand(k));
    } else {
      continue;
    }
    decs.push_back(std::move(d));
  }
  std::sort(decs.begin(), decs.end());
  std::vector<uint32_t> flat;
  for (auto& d : decs) {
    flat.push_back(static_cast<uint32_t>(d.size()));
    flat.insert(flat.end(), d.begin(), d.end());
  }
  return flat;
}

uint32_t TypeManager::FindWithLayout(spv::Op op, const std::vector<uint32_t>& operands,
                                     const std::vector<uint32_t>& layout) const {
  auto it = by_key_.find(KeyOf(op, 0, operands));
  if (it == by_key_.end()) return 0;
  for (uint32_t id : it->second)
    if (LayoutSignature(id) == layout) return id;
  return 0;
}

uint32_t TypeManager::FindType(spv::Op op, const std::vector<uint32_t>& operands) const {
  auto it = by_key_.find(KeyOf(op, 0, operands));
  if (it == by_key_.end()) return 0;
  for (uint32_t id : it->second)
    if (LayoutSignature(id).empty()) return id;
  return 0;
}

uint32_t TypeManager::CreateType(spv::Op op, const std::vector<uint32_t>& operands) {
  uint32_t id = m_.TakeId();
  Instruction inst(op, 0, id, {});
  for (uint32_t w : operands) inst.add_operand(w);
  m_.types_values.push_back(std::move(inst));
  Index(static_cast<uint32_t>(m_.types_values.size() - 1));
  return id;
}

uint32_t TypeManager::GetType(spv::Op op, const std::vector<uint32_t>& operands) {
  if (uint32_t id = FindType(op, operands)) return id;
  return CreateType(op, operands);
}

uint32_t TypeManager::GetPointerType(spv::StorageClass sc, uint32_t pointee, uint32_t array_stride) {
  std::vector<uint32_t> ops{static_cast<uint32_t>(sc), pointee};
  if (array_stride == 0) return GetType(spv::OpTypePointer, ops);
  std::vector<uint32_t> layout{3, 0xffffffffu, spv::DecorationArrayStride, array_stride};
  if (uint32_t id = FindWithLayout(spv::OpTypePointer, ops, layout)) return id;
  uint32_t id = CreateType(spv::OpTypePointer, ops);
  AddDecoration(id, spv::DecorationArrayStride, {array_stride});
  return id;
}

uint32_t TypeManager::GetRuntimeArrayType(uint32_t element, uint32_t array_stride) {
  std::vector<uint32_t> layout{3, 0xffffffffu, spv::DecorationArrayStride, array_stride};
  if (uint32_t id = FindWithLayout(spv::OpTypeRuntimeArray, {element}, layout)) return id;
  uint32_t id = CreateType(spv::OpTypeRuntimeArray, {element});
  AddDecoration(id, spv::DecorationArrayStride, {array_stride});
  return id;
}

uint32_t TypeManager::GetArrayType(uint32_t element, uint32_t length, uint32_t array_stride) {
  uint32_t len = GetUintConstant(length);
  std::vector<uint32_t> layout{3, 0xffffffffu, spv::DecorationArrayStride, array_stride};
  if (uint32_t id = FindWithLayout(spv::OpTypeArray, {element, len}, layout)) return id;
  uint32_t id = CreateType(spv::OpTypeArray, {element, len});
  AddDecoration(id, spv::DecorationArrayStride, {array_stride});
  return id;
}

uint32_t TypeManager::GetStructType(const std::vector<uint32_t>& members, const std::vector<uint32_t>& offsets, bool block) {
  std::vector<std::vector<uint32_t>> decs;
  if (block) decs.push_back({0xffffffffu, spv::DecorationBlock});
  for (uint32_t i = 0; i < offsets.size(); ++i) decs.push_back({i, spv::DecorationOffset, offsets[i]});
  std::sort(decs.begin(), decs.end());
  std::vector<uint32_t> layout;
  for (auto& d : decs) {
    layout.push_back(static_cast<uint32_t>(d.size()));
    layout.insert(layout.end(), d.begin(), d.end());
  }
  if (uint32_t id = FindWithLayout(spv::OpTypeStruct, members, layout)) return id;
  uint32_t id = CreateType(spv::OpTypeStruct, members);
  if (block) AddDecoration(id, spv::DecorationBlock);
  for (uint32_t i = 0; i < offsets.size(); ++i) AddMemberDecoration(id, i, spv::DecorationOffset, {offsets[i]});
  return id;
}

uint32_t TypeManager::GetConstant(uint32_t type, const std::vector<uint32_t>& value_words) {
  auto it = by_key_.find(KeyOf(spv::OpConstant, type, value_words));
  if (it != by_key_.end() && !it->second.empty()) return it->second.front();
  uint32_t id = m_.TakeId();
  Instruction inst(spv::OpConstant, type, id, {});
  for (uint32_t w : value_words) inst.add_operand(w);
  m_.types_values.push_back(std::move(inst));
  Index(static_cast<uint32_t>(m_.types_values.size() - 1));
  return id;
}

uint32_t TypeManager::GetNullConstant(uint32_t type) {
  auto it = by_key_.find(KeyOf(spv::OpConstantNull, type, {}));
  if (it != by_key_.end() && !it->second.empty()) return it->second.front();
  uint32_t id = m_.TakeId();
  m_.types_values.emplace_back(spv::OpConstantNull, type, id, std::initializer_list<uint32_t>{});
  Index(static_cast<uint32_t>(m_.types_values.size() - 1));
  return id;
}

uint32_t TypeManager::GetBoolConstant(bool v) {
  uint32_t type = GetBoolType();
  spv::Op op = v ? spv::OpConstantTrue : spv::OpConstantFalse;
  auto it = by_key_.find(KeyOf(op, type, {}));
  if (it != by_key_.end() && !it->second.empty()) return it->second.front();
  uint32_t id = m_.TakeId();
  m_.types_values.emplace_back(op, type, id, std::initializer_list<uint32_t>{});
  Index(static_cast<uint32_t>(m_.types_values.size() - 1));
  return id;
}

bool TypeManager::GetConstantValue(uint32_t id, uint32_t* value) const {
  const Instruction* c = Def(id);
  if (!c || c->opcode() != spv::OpConstant || c->operand_count() != 1) return false;
  const Instruction* t = Def(c->type_id());
  if (!t || t->opcode() != spv::OpTypeInt || t->operand(0) != 32) return false;
  *value = c->operand(0);
  return true;
}

void TypeManager::AddGlobal(Instruction inst) {
  m_.types_values.push_back(std::move(inst));
  Index(static_cast<uint32_t>(m_.types_values.size() - 1));
}

bool TypeManager::IsPointerType(uint32_t type) const {
  const Instruction* t = Def(type);
  return t && t->opcode() == spv::OpTypePointer;
}

spv::StorageClass TypeManager::PointerStorageClass(uint32_t pointer_type) const {
  const Instruction* t = Def(pointer_type);
  if (!t || t->opcode() != spv::OpTypePointer || t->operand_count() < 2) return spv::StorageClassMax;
  return ToStorageClass(t->operand(0));
}

uint32_t TypeManager::PointeeType(uint32_t pointer_type) const {
  const Instruction* t = Def(pointer_type);
  if (!t || t->opcode() != spv::OpTypePointer || t->operand_count() < 2) return 0;
  return t->operand(1);
}

uint32_t TypeManager::SizeOf(uint32_t type) const {
  const Instruction* t = Def(type);
  if (!t) return 0;
  switch (t->opcode()) {
    case spv::OpTypeBool: return 4;
    case spv::OpTypeInt:
    case spv::OpTypeFloat: return t->operand_count() ? t->operand(0) / 8 : 0;
    case spv::OpTypePointer: return 8;
    case spv::OpTypeVector: return t->operand_count() >= 2 ? SizeOf(t->operand(0)) * t->operand(1) : 0;
    case spv::OpTypeMatrix: {
      uint32_t stride = 0;
      // Matrix stride lives on the struct member; without it assume tightly packed columns.
      (void)stride;
      return t->operand_count() >= 2 ? SizeOf(t->operand(0)) * t->operand(1) : 0;
    }
    case spv::OpTypeArray: {
      uint32_t stride = 0, len = 0;
      if (!GetDecoration(type, spv::DecorationArrayStride, &stride)) stride = SizeOf(t->operand(0));
      if (!GetConstantValue(t->operand(1), &len)) return 0;
      return stride * len;
    }
    case spv::OpTypeStruct: {
      uint32_t end = 0;
      for (uint32_t i = 0; i < t->operand_count(); ++i) {
        uint32_t off = 0;
        if (!GetMemberDecoration(type, i, spv::DecorationOffset, &off)) return 0;
        uint32_t size = SizeOf(t->operand(i));
        uint32_t matrix_stride = 0;
        const Instruction* mt = Def(t->operand(i));
        if (mt && mt->opcode() == spv::OpTypeMatrix &&
            GetMemberDecoration(type, i, spv::DecorationMatrixStride, &matrix_stride)) {
          bool row_major = GetMemberDecoration(type, i, spv::DecorationRowMajor, nullptr);
          const Instruction* col = Def(mt->operand(0));
          uint32_t cols = mt->operand(1), rows = col ? col->operand(1) : 0;
          uint32_t comp = col ? SizeOf(col->operand(0)) : 0;
          size = row_major ? matrix_stride * (rows - 1) + comp * cols : matrix_stride * (cols - 1) + comp * rows;
        }
        end = std::max(end, off + size);
      }
      return end;
    }
    default: return 0;
  }
}

uint32_t TypeManager::ScalarAlignment(uint32_t type) const {
  const Instruction* t = Def(type);
  if (!t) return 4;
  switch (t->opcode()) {
    case spv::OpTypeInt:
    case spv::OpTypeFloat: return std::max(1u, t->operand(0) / 8);
    case spv::OpTypeBool: return 4;
    case spv::OpTypePointer: return 8;
    case spv::OpTypeVector:
    case spv::OpTypeMatrix:
    case spv::OpTypeArray:
    case spv::OpTypeRuntimeArray: return ScalarAlignment(t->operand(0));
    case spv::OpTypeStruct: {
      uint32_t a = 1;
      for (uint32_t i = 0; i < t->operand_count(); ++i) a = std::max(a, ScalarAlignment(t->operand(i)));
      return a;
    }
    default: return 4;
  }
}

}  // namespace bindery::spirv
