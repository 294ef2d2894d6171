// TypeManager (type_manager.h).
#include "spirv/type_manager.h"

#include <algorithm>

#include "spirv/id_map.h"
#include "spirv/instruction_shape.h"

namespace bindery::spirv {
namespace {

// Lookup key of a global: the bare opcode, its type when it has one, then its operands.
// A view over words that live elsewhere, so lookups build nothing.
struct KeyView {
  uint32_t head[2];
  uint32_t head_count;
  const uint32_t* operands;
  uint32_t operand_count;

  uint32_t size() const { return head_count + operand_count; }
  // FNV-1a over the head, then the operands (two plain loops: a branch per word choosing
  // between them was a visible share of building the index).
  uint64_t Hash() const {
    uint64_t h = 1469598103934665603ull;
    for (uint32_t j = 0; j < head_count; ++j) h = (h ^ head[j]) * 1099511628211ull;
    for (uint32_t j = 0; j < operand_count; ++j) h = (h ^ operands[j]) * 1099511628211ull;
    return h ^ (h >> 29);
  }
  bool operator==(const KeyView& o) const {
    if (head_count != o.head_count || operand_count != o.operand_count) return false;
    for (uint32_t j = 0; j < head_count; ++j)
      if (head[j] != o.head[j]) return false;
    for (uint32_t j = 0; j < operand_count; ++j)
      if (operands[j] != o.operands[j]) return false;
    return true;
  }
};

KeyView KeyOf(spv::Op op, uint32_t type, const uint32_t* operands, uint32_t operand_count) {
  KeyView k{{static_cast<uint32_t>(op), type}, type ? 2u : 1u, operands, operand_count};
  return k;
}

KeyView KeyOf(const Instruction& inst) {
  KeyView k{{static_cast<uint32_t>(inst.opcode()), inst.type_id()}, inst.has_type() ? 2u : 1u,
            inst.words().data() + inst.first_operand_index(), inst.operand_count()};
  return k;
}

bool IsKeyed(spv::Op op) {
  return (op >= spv::OpTypeVoid && op <= spv::OpTypeForwardPointer) || op == spv::OpConstant ||
         op == spv::OpConstantTrue || op == spv::OpConstantFalse || op == spv::OpConstantNull ||
         op == spv::OpConstantComposite;
}

bool IsLayoutDecoration(uint32_t d) {
  return d == spv::DecorationArrayStride || d == spv::DecorationOffset || d == spv::DecorationBlock ||
         d == spv::DecorationBufferBlock || d == spv::DecorationMatrixStride || d == spv::DecorationRowMajor ||
         d == spv::DecorationColMajor;
}

}  // namespace


TypeManager::TypeManager(Module& module) : m_(module) {
  TakePooled(&def_index_);
  TakePooled(&keyed_slots_);
  TakePooled(&keyed_ids_);
  TakePooled(&first_decoration_);
  TakePooled(&last_decoration_);
  TakePooled(&next_decoration_);
  TakePooled(&layout_scratch_);
  TakePooled(&signature_words_);
  TakePooled(&signature_spans_);
  TakePooled(&signature_);
  Reindex();
}

TypeManager::~TypeManager() {
  GivePooled(&def_index_);
  GivePooled(&keyed_slots_);
  GivePooled(&keyed_ids_);
  GivePooled(&first_decoration_);
  GivePooled(&last_decoration_);
  GivePooled(&next_decoration_);
  GivePooled(&layout_scratch_);
  GivePooled(&signature_words_);
  GivePooled(&signature_spans_);
  GivePooled(&signature_);
}

void TypeManager::Reindex() {
  // What FindKeyed answers first may change with the module order: ask again.
  uint_type_ = 0;
  for (uint32_t& id : small_uint_constants_) id = 0;
  // Room for every global and the few dozen the rewrite adds, at most half full: no regrowth
  // for an ordinary module.
  std::size_t slots = 64;
  while (slots < 2 * (m_.types_values.size() + 32)) slots *= 2;
  keyed_slots_.assign(slots, 0);
  keyed_count_ = 0;
  keyed_ids_.clear();
  keyed_ids_.reserve(m_.types_values.size() + 32);
  // Headroom for the ids the rewrite takes above the bound, so indexing a new type does
  // not grow the table one id at a time.
  def_index_.assign(std::size_t{m_.bound} + 128, -1);
  first_decoration_.assign(m_.bound, 0);
  last_decoration_.assign(m_.bound, 0);
  // Sized for every annotation at once (IndexDecoration grows it only for appended ones).
  next_decoration_.reserve(m_.annotations.size() + 16);
  next_decoration_.assign(m_.annotations.size(), 0);
  for (uint32_t i = 0; i < m_.types_values.size(); ++i) Index(i);
  for (uint32_t i = 0; i < m_.annotations.size(); ++i) IndexDecoration(i);
}

void TypeManager::IndexDecoration(uint32_t annotation) {
  // Appended annotations arrive one at a time: push_back grows geometrically, where a
  // resize by one per annotation was a call into the vector's fill path each time.
  if (next_decoration_.size() == annotation) next_decoration_.push_back(0);
  else if (next_decoration_.size() < annotation) next_decoration_.resize(std::size_t{annotation} + 1, 0);
  const Instruction& a = m_.annotations[annotation];
  if (a.operand_count() == 0) return;
  switch (a.opcode()) {
    case spv::OpDecorate: case spv::OpMemberDecorate: case spv::OpDecorateId:
    case spv::OpDecorateString: case spv::OpMemberDecorateString:
      break;
    default: return;
  }
  const uint32_t id = a.operand(0);
  // A target past the bound (hostile input: any word) is no id of the module; indexing it
  // would size the tables by that word.
  if (id >= m_.bound) return;
  if (id >= first_decoration_.size()) {
    first_decoration_.resize(std::size_t{id} + 1, 0);
    last_decoration_.resize(std::size_t{id} + 1, 0);
  }
  if (last_decoration_[id]) next_decoration_[last_decoration_[id] - 1] = annotation + 1;
  else first_decoration_[id] = annotation + 1;
  last_decoration_[id] = annotation + 1;
}

void TypeManager::Index(uint32_t position) {
  const Instruction& inst = m_.types_values[position];
  if (!inst.has_result()) return;
  uint32_t id = inst.result_id();
  if (id >= def_index_.size()) def_index_.resize(id + 1, -1);
  def_index_[id] = static_cast<int32_t>(position);
  if (IsKeyed(inst.opcode())) InsertKeyed(id, inst);
}

void TypeManager::InsertKeyed(uint32_t id) {
  if (const Instruction* inst = Def(id)) InsertKeyed(id, *inst);
}

void TypeManager::InsertKeyed(uint32_t id, const Instruction& inst) {
  if ((keyed_count_ + 1) * 2 > keyed_slots_.size()) {
    // Grow, and insert again in the original order (so equal keys stay in module order).
    keyed_slots_.assign(keyed_slots_.size() * 2, 0);
    keyed_count_ = 0;
    std::vector<uint32_t> ids;
    ids.swap(keyed_ids_);
    for (uint32_t old : ids) InsertKeyed(old);
  }
  const std::size_t mask = keyed_slots_.size() - 1;
  std::size_t slot = static_cast<std::size_t>(KeyOf(inst).Hash()) & mask;
  while (keyed_slots_[slot] != 0) slot = (slot + 1) & mask;
  keyed_slots_[slot] = id;
  ++keyed_count_;
  keyed_ids_.push_back(id);
}

template <typename Visit>
uint32_t TypeManager::FindKeyed(spv::Op op, uint32_t type, const uint32_t* operands, uint32_t operand_count,
                                Visit visit) const {
  const KeyView key = KeyOf(op, type, operands, operand_count);
  const std::size_t mask = keyed_slots_.size() - 1;
  for (std::size_t slot = static_cast<std::size_t>(key.Hash()) & mask; keyed_slots_[slot] != 0; slot = (slot + 1) & mask) {
    const uint32_t id = keyed_slots_[slot];
    const Instruction* inst = Def(id);
    if (inst && KeyOf(*inst) == key && visit(id)) return id;
  }
  return 0;
}

const Instruction* TypeManager::Def(uint32_t id) const {
  int i = DefIndex(id);
  return i < 0 ? nullptr : &m_.types_values[static_cast<uint32_t>(i)];
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
  m_.annotations.push_back(std::move(a));
  IndexDecoration(static_cast<uint32_t>(m_.annotations.size() - 1));
}

void TypeManager::AddAnnotation(Instruction annotation) {
  m_.annotations.push_back(std::move(annotation));
  IndexDecoration(static_cast<uint32_t>(m_.annotations.size() - 1));
}

Instruction* TypeManager::MoveGlobalToEnd(uint32_t id) {
  const int at = DefIndex(id);
  if (at < 0) return nullptr;
  std::vector<Instruction>& globals = m_.types_values;
  Instruction moved = std::move(globals[static_cast<uint32_t>(at)]);
  globals.erase(globals.begin() + at);
  globals.push_back(std::move(moved));
  // A type or constant moving would change the module order of equal keys: index it all again.
  if (IsKeyed(globals.back().opcode())) {
    Reindex();
    return &globals.back();
  }
  // What Reindex would find for every definition from `at` on (in order, so a duplicated
  // result id of malformed input still resolves to its last definition).
  for (uint32_t p = static_cast<uint32_t>(at); p < globals.size(); ++p)
    if (globals[p].has_result() && globals[p].result_id() < def_index_.size())
      def_index_[globals[p].result_id()] = static_cast<int32_t>(p);
  return &globals.back();
}

void TypeManager::AddMemberDecoration(uint32_t id, uint32_t member, spv::Decoration d, std::initializer_list<uint32_t> literals) {
  Instruction a(spv::OpMemberDecorate, 0, 0, {id, member, static_cast<uint32_t>(d)});
  for (uint32_t l : literals) a.add_operand(l);
  m_.annotations.push_back(std::move(a));
  IndexDecoration(static_cast<uint32_t>(m_.annotations.size() - 1));
}

const std::vector<uint32_t>& TypeManager::LayoutSignature(uint32_t id) const {
  // Each layout decoration's words (Block-like ones behind ~0, so they sort after members),
  // sorted word by word as whole sequences, each written with its length first. Built in
  // scratch kept by the manager: FindWithLayout asks for every candidate of a lookup, and
  // a vector per decoration plus the result was a good share of a rewrite's allocations.
  std::vector<uint32_t>& words = signature_words_;
  std::vector<uint64_t>& spans = signature_spans_;  // start << 32 | length, into `words`
  words.clear();
  spans.clear();
  for (uint32_t i : DecorationsOf(id)) {
    const Instruction& a = m_.annotations[i];
    const uint32_t start = static_cast<uint32_t>(words.size());
    if (a.opcode() == spv::OpDecorate && a.operand_count() >= 2 && IsLayoutDecoration(a.operand(1))) {
      words.push_back(0xffffffffu);
    } else if (!(a.opcode() == spv::OpMemberDecorate && a.operand_count() >= 3 && IsLayoutDecoration(a.operand(2)))) {
      continue;
    }
    for (uint32_t k = 1; k < a.operand_count(); ++k) words.push_back(a.operand(k));
    spans.push_back((uint64_t{start} << 32) | (words.size() - start));
  }
  const uint32_t* base = words.data();
  std::sort(spans.begin(), spans.end(), [base](uint64_t x, uint64_t y) {
    const uint32_t* xs = base + (x >> 32);
    const uint32_t* ys = base + (y >> 32);
    return std::lexicographical_compare(xs, xs + (x & 0xffffffffu), ys, ys + (y & 0xffffffffu));
  });
  std::vector<uint32_t>& flat = signature_;
  flat.clear();
  for (uint64_t span : spans) {
    const uint32_t* d = base + (span >> 32);
    const uint32_t n = static_cast<uint32_t>(span & 0xffffffffu);
    flat.push_back(n);
    flat.insert(flat.end(), d, d + n);
  }
  return flat;
}

uint32_t TypeManager::FindWithLayout(spv::Op op, WordView operands, WordView layout) const {
  return FindKeyed(op, 0, operands.data(), operands.size(), [&](uint32_t id) {
    const std::vector<uint32_t>& signature = LayoutSignature(id);
    return signature.size() == layout.size() && std::equal(signature.begin(), signature.end(), layout.begin());
  });
}

bool TypeManager::HasLayoutDecoration(uint32_t id) const {
  for (uint32_t i : DecorationsOf(id)) {
    const Instruction& a = m_.annotations[i];
    if ((a.opcode() == spv::OpDecorate && a.operand_count() >= 2 && IsLayoutDecoration(a.operand(1))) ||
        (a.opcode() == spv::OpMemberDecorate && a.operand_count() >= 3 && IsLayoutDecoration(a.operand(2))))
      return true;
  }
  return false;
}

uint32_t TypeManager::FindType(spv::Op op, WordView operands) const {
  return FindKeyed(op, 0, operands.data(), operands.size(),
                   [&](uint32_t id) { return !HasLayoutDecoration(id); });
}

uint32_t TypeManager::CreateType(spv::Op op, WordView operands) {
  uint32_t id = m_.TakeId();
  Instruction inst(op, 0, id, {});
  for (uint32_t w : operands) inst.add_operand(w);
  m_.types_values.push_back(std::move(inst));
  Index(static_cast<uint32_t>(m_.types_values.size() - 1));
  return id;
}

uint32_t TypeManager::GetType(spv::Op op, WordView operands) {
  if (uint32_t id = FindType(op, operands)) return id;
  return CreateType(op, operands);
}

uint32_t TypeManager::GetPointerType(spv::StorageClass sc, uint32_t pointee, uint32_t array_stride) {
  const uint32_t ops[2] = {static_cast<uint32_t>(sc), pointee};
  if (array_stride == 0) return GetType(spv::OpTypePointer, WordView(ops, 2));
  const uint32_t stride_layout[4] = {3, 0xffffffffu, spv::DecorationArrayStride, array_stride};
  const WordView layout(stride_layout, 4);
  if (uint32_t id = FindWithLayout(spv::OpTypePointer, WordView(ops, 2), layout)) return id;
  uint32_t id = CreateType(spv::OpTypePointer, WordView(ops, 2));
  AddDecoration(id, spv::DecorationArrayStride, {array_stride});
  return id;
}

uint32_t TypeManager::GetRuntimeArrayType(uint32_t element, uint32_t array_stride) {
  const uint32_t stride_layout[4] = {3, 0xffffffffu, spv::DecorationArrayStride, array_stride};
  const WordView layout(stride_layout, 4);
  if (uint32_t id = FindWithLayout(spv::OpTypeRuntimeArray, WordView(&element, 1), layout)) return id;
  uint32_t id = CreateType(spv::OpTypeRuntimeArray, WordView(&element, 1));
  AddDecoration(id, spv::DecorationArrayStride, {array_stride});
  return id;
}

uint32_t TypeManager::GetArrayType(uint32_t element, uint32_t length, uint32_t array_stride) {
  uint32_t len = GetUintConstant(length);
  const uint32_t stride_layout[4] = {3, 0xffffffffu, spv::DecorationArrayStride, array_stride};
  const WordView layout(stride_layout, 4);
  const uint32_t operands[2] = {element, len};
  if (uint32_t id = FindWithLayout(spv::OpTypeArray, WordView(operands, 2), layout)) return id;
  uint32_t id = CreateType(spv::OpTypeArray, WordView(operands, 2));
  AddDecoration(id, spv::DecorationArrayStride, {array_stride});
  return id;
}

uint32_t TypeManager::GetStructType(WordView members, WordView offsets, bool block) {
  // The layout signature LayoutSignature gives such a struct: its decorations sorted, each
  // with its length first; members' (index, Offset, value) sort before Block's (~0, Block).
  std::vector<uint32_t>& layout = layout_scratch_;
  layout.clear();
  for (uint32_t i = 0; i < offsets.size(); ++i) {
    const uint32_t entry[4] = {3, i, spv::DecorationOffset, offsets.data()[i]};
    layout.insert(layout.end(), entry, entry + 4);
  }
  if (block) {
    const uint32_t entry[3] = {2, 0xffffffffu, spv::DecorationBlock};
    layout.insert(layout.end(), entry, entry + 3);
  }
  if (uint32_t id = FindWithLayout(spv::OpTypeStruct, members, layout)) return id;
  uint32_t id = CreateType(spv::OpTypeStruct, members);
  if (block) AddDecoration(id, spv::DecorationBlock);
  for (uint32_t i = 0; i < offsets.size(); ++i) AddMemberDecoration(id, i, spv::DecorationOffset, {offsets.data()[i]});
  return id;
}

uint32_t TypeManager::GetConstant(uint32_t type, WordView value_words) {
  if (uint32_t found = FindKeyed(spv::OpConstant, type, value_words.data(), value_words.size(),
                                 [](uint32_t) { return true; }))
    return found;
  uint32_t id = m_.TakeId();
  Instruction inst(spv::OpConstant, type, id, {});
  for (uint32_t w : value_words) inst.add_operand(w);
  m_.types_values.push_back(std::move(inst));
  Index(static_cast<uint32_t>(m_.types_values.size() - 1));
  return id;
}

uint32_t TypeManager::GetUintType() {
  if (uint_type_ != 0) {
    const Instruction* t = Def(uint_type_);
    if (t && t->opcode() == spv::OpTypeInt && t->operand_count() == 2 && t->operand(0) == 32 && t->operand(1) == 0)
      return uint_type_;
  }
  uint_type_ = GetIntType(32, false);
  return uint_type_;
}

uint32_t TypeManager::GetUintConstant(uint32_t v) {
  const uint32_t type = GetUintType();
  if (v >= kSmallUintConstants) return GetConstant(type, {v});
  uint32_t& known = small_uint_constants_[v];
  if (known != 0) {
    const Instruction* c = Def(known);
    if (c && c->opcode() == spv::OpConstant && c->type_id() == type && c->operand_count() == 1 && c->operand(0) == v)
      return known;
  }
  known = GetConstant(type, {v});
  return known;
}

uint32_t TypeManager::GetNullConstant(uint32_t type) {
  if (uint32_t found = FindKeyed(spv::OpConstantNull, type, nullptr, 0, [](uint32_t) { return true; })) return found;
  uint32_t id = m_.TakeId();
  m_.types_values.emplace_back(spv::OpConstantNull, type, id, std::initializer_list<uint32_t>{});
  Index(static_cast<uint32_t>(m_.types_values.size() - 1));
  return id;
}

uint32_t TypeManager::GetBoolConstant(bool v) {
  uint32_t type = GetBoolType();
  spv::Op op = v ? spv::OpConstantTrue : spv::OpConstantFalse;
  if (uint32_t found = FindKeyed(op, type, nullptr, 0, [](uint32_t) { return true; })) return found;
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
