// Types, constants and decorations of a Module: Find* looks up, Get* finds or creates,
// Create* always creates (GPU-AV's naming). New types and constants go at the end of the
// types/values section, so they may only refer to ids defined before them (always true
// here: a new type is built from existing or earlier new ones). Non-aggregate types are
// never duplicated (SPIR-V forbids it); a pointer or aggregate is reused only when its
// layout decorations (ArrayStride, Offset, Block) match too.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "spirv/module.h"

namespace bindery::spirv {

// Operand words passed to a lookup: a view over a vector, an array or (through the
// initializer-list overloads) a braced list, so asking for `{component, count}` builds
// nothing on the heap (a std::vector per query was a good share of a small module's
// allocations). Valid for the call it is passed to.
class WordView {
 public:
  WordView() = default;
  WordView(const std::vector<uint32_t>& v) : data_(v.data()), size_(static_cast<uint32_t>(v.size())) {}
  explicit WordView(const uint32_t* data, uint32_t size) : data_(data), size_(size) {}
  const uint32_t* data() const { return data_; }
  uint32_t size() const { return size_; }
  const uint32_t* begin() const { return data_; }
  const uint32_t* end() const { return data_ + size_; }

 private:
  const uint32_t* data_ = nullptr;
  uint32_t size_ = 0;
};

class TypeManager {
 public:
  explicit TypeManager(Module& module);
  // The index vectors go back to a per-thread pool (id_map.h), so the next rewrite on this
  // thread builds its index in storage already there instead of allocating ~10 vectors.
  ~TypeManager();
  TypeManager(const TypeManager&) = delete;
  TypeManager& operator=(const TypeManager&) = delete;
  // Rebuilds every index (after instructions were moved or removed).
  void Reindex();

  // Definition of a global id (type, constant, global variable), or nullptr.
  const Instruction* Def(uint32_t id) const;
  // Index of the definition in module.types_values, or -1.
  int DefIndex(uint32_t id) const {
    return id < def_index_.size() && static_cast<std::size_t>(def_index_[id]) < m_.types_values.size() ? def_index_[id] : -1;
  }

  // ---- decorations ----
  bool HasDecoration(uint32_t id, spv::Decoration d) const;
  // First literal of decoration `d` on `id`; false if absent.
  bool GetDecoration(uint32_t id, spv::Decoration d, uint32_t* value) const;
  bool GetMemberDecoration(uint32_t struct_id, uint32_t member, spv::Decoration d, uint32_t* value) const;
  void AddDecoration(uint32_t id, spv::Decoration d, std::initializer_list<uint32_t> literals = {});
  void AddMemberDecoration(uint32_t id, uint32_t member, spv::Decoration d, std::initializer_list<uint32_t> literals = {});
  // Indices into module.annotations of the OpDecorate* / OpMemberDecorate* naming `id`,
  // in module order (a list threaded through next_decoration_: no allocation per id).
  class DecorationList {
   public:
    class Iterator {
     public:
      Iterator(const std::vector<uint32_t>* next, uint32_t at) : next_(next), at_(at) {}
      uint32_t operator*() const { return at_ - 1; }
      Iterator& operator++() { at_ = (*next_)[at_ - 1]; return *this; }
      bool operator!=(const Iterator& o) const { return at_ != o.at_; }
     private:
      const std::vector<uint32_t>* next_;
      uint32_t at_;  // annotation index + 1; 0 ends the list
    };
    DecorationList(const std::vector<uint32_t>* next, uint32_t first) : next_(next), first_(first) {}
    Iterator begin() const { return Iterator(next_, first_); }
    Iterator end() const { return Iterator(next_, 0); }
   private:
    const std::vector<uint32_t>* next_;
    uint32_t first_;
  };
  DecorationList DecorationsOf(uint32_t id) const {
    return DecorationList(&next_decoration_, id < first_decoration_.size() ? first_decoration_[id] : 0);
  }

  // ---- types ----
  uint32_t FindType(spv::Op op, WordView operands) const;
  uint32_t FindType(spv::Op op, std::initializer_list<uint32_t> operands) const { return FindType(op, View(operands)); }
  uint32_t GetType(spv::Op op, WordView operands);
  uint32_t GetType(spv::Op op, std::initializer_list<uint32_t> operands) { return GetType(op, View(operands)); }
  uint32_t GetVoidType() { return GetType(spv::OpTypeVoid, {}); }
  uint32_t GetBoolType() { return GetType(spv::OpTypeBool, {}); }
  uint32_t GetIntType(uint32_t width, bool is_signed) { return GetType(spv::OpTypeInt, {width, is_signed ? 1u : 0u}); }
  // The 32-bit unsigned type and small constants of it are asked for many times per rewrite
  // (every record index, member index and offset): remembered once found, checked against
  // their definitions on use, forgotten by Reindex.
  uint32_t GetUintType();
  uint32_t GetVectorType(uint32_t component, uint32_t count) { return GetType(spv::OpTypeVector, {component, count}); }
  // A pointer with no ArrayStride (stride 0) or with that ArrayStride.
  uint32_t GetPointerType(spv::StorageClass sc, uint32_t pointee, uint32_t array_stride = 0);
  uint32_t GetRuntimeArrayType(uint32_t element, uint32_t array_stride);
  uint32_t GetArrayType(uint32_t element, uint32_t length, uint32_t array_stride);
  // A struct with these members at these Offsets; Block when `block`.
  uint32_t GetStructType(WordView members, WordView offsets, bool block);
  uint32_t GetStructType(std::initializer_list<uint32_t> members, std::initializer_list<uint32_t> offsets, bool block) {
    return GetStructType(View(members), View(offsets), block);
  }
  uint32_t CreateType(spv::Op op, WordView operands);
  uint32_t CreateType(spv::Op op, std::initializer_list<uint32_t> operands) { return CreateType(op, View(operands)); }

  // ---- constants ----
  uint32_t GetConstant(uint32_t type, WordView value_words);
  uint32_t GetConstant(uint32_t type, std::initializer_list<uint32_t> value_words) {
    return GetConstant(type, View(value_words));
  }
  uint32_t GetUintConstant(uint32_t v);
  uint32_t GetNullConstant(uint32_t type);
  uint32_t GetBoolConstant(bool v);
  // The value of an OpConstant of a 32-bit integer type (not a spec constant).
  bool GetConstantValue(uint32_t id, uint32_t* value) const;

  // ---- layout ----
  // Byte size of a type with explicit layout (0 for runtime arrays / unknown).
  uint32_t SizeOf(uint32_t type) const;
  // Largest scalar size inside a type: a truthful alignment for any access to it under
  // the layout rules of buffers (every scalar sits at a multiple of its own size).
  uint32_t ScalarAlignment(uint32_t type) const;
  bool IsPointerType(uint32_t type) const;
  spv::StorageClass PointerStorageClass(uint32_t pointer_type) const;
  uint32_t PointeeType(uint32_t pointer_type) const;

  // Appends a new global (OpVariable, OpUndef...) and indexes it.
  void AddGlobal(Instruction inst);
  // Moves the global defining `id` to the end of the types/values section and updates the
  // index in place (the definitions after it shift down by one; keys and decorations do not
  // move), instead of a Reindex. Returns the moved instruction, or nullptr if `id` has none.
  Instruction* MoveGlobalToEnd(uint32_t id);
  // Appends an annotation (a decoration copied from another id, say) and indexes it.
  void AddAnnotation(Instruction annotation);

 private:
  static WordView View(std::initializer_list<uint32_t> l) { return WordView(l.begin(), static_cast<uint32_t>(l.size())); }
  void Index(uint32_t position);
  void IndexDecoration(uint32_t annotation);
  // The sorted layout decorations of `id`, flattened (valid until the next call).
  const std::vector<uint32_t>& LayoutSignature(uint32_t id) const;
  bool HasLayoutDecoration(uint32_t id) const;
  // Ids of the keyed globals whose key (opcode, type if any, operands) equals the query's,
  // in module order, passed to `visit` until it returns true; the id it stopped at, or 0.
  template <typename Visit>
  uint32_t FindKeyed(spv::Op op, uint32_t type, const uint32_t* operands, uint32_t operand_count, Visit visit) const;
  void InsertKeyed(uint32_t id);
  // The same for `inst`, the definition of `id` (Index has it at hand).
  void InsertKeyed(uint32_t id, const Instruction& inst);
  uint32_t FindWithLayout(spv::Op op, WordView operands, WordView layout) const;

  Module& m_;
  uint32_t uint_type_ = 0;
  static constexpr uint32_t kSmallUintConstants = 16;
  uint32_t small_uint_constants_[kSmallUintConstants] = {};
  std::vector<int32_t> def_index_;
  // Types and constants by key: open addressing with linear probing over positions + 1
  // (0 = empty), never deleted from, so equal keys are met in insertion (module) order.
  std::vector<uint32_t> keyed_slots_;
  uint32_t keyed_count_ = 0;
  std::vector<uint32_t> keyed_ids_;  // in insertion order, to insert again when growing
  // Decorations per id: first / last annotation index + 1 per id, next index + 1 per annotation.
  std::vector<uint32_t> first_decoration_;
  std::vector<uint32_t> last_decoration_;
  std::vector<uint32_t> next_decoration_;
  std::vector<uint32_t> layout_scratch_;  // GetStructType's signature, kept between calls
  // LayoutSignature's scratch and result.
  mutable std::vector<uint32_t> signature_words_;
  mutable std::vector<uint64_t> signature_spans_;
  mutable std::vector<uint32_t> signature_;
};

}  // namespace bindery::spirv
