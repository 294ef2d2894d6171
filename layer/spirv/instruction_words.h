// The words of one instruction: a small vector whose first kInline words live inside the
// object. Almost every instruction of a real module (loads, stores, arithmetic, access
// chains, decorations, scalar types) fits, so parsing, copying and rebuilding an
// instruction stream allocates nothing per instruction; longer ones (structs, calls,
// strings) spill to the heap. Only the operations the Instruction class needs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace bindery::spirv {

class InstructionWords {
 public:
  static constexpr uint32_t kInline = 8;

  InstructionWords() = default;
  InstructionWords(const uint32_t* words, uint32_t count) { Assign(words, count); }
  // `readable` words may be read at `words` (at least `count`): when a short instruction has
  // a whole inline array's worth behind it (all but the module's last few words), the copy
  // is a fixed-size one instead of a call to memcpy sized at run time. The parse and the
  // pass's copies build every instruction through here.
  InstructionWords(const uint32_t* words, uint32_t count, std::size_t readable) {
    if (count <= kInline && readable >= kInline) {
      std::memcpy(inline_, words, sizeof inline_);
      size_ = count;
    } else {
      Assign(words, count);
    }
  }
  InstructionWords(const InstructionWords& other) {
    if (other.on_heap()) {
      Assign(other.data_, other.size_);
    } else {
      std::memcpy(inline_, other.inline_, sizeof inline_);  // words past size_ are never read
      size_ = other.size_;
    }
  }
  InstructionWords(InstructionWords&& other) noexcept { MoveFrom(other); }
  InstructionWords& operator=(const InstructionWords& other) {
    if (this != &other) Assign(other.data_, other.size_);
    return *this;
  }
  InstructionWords& operator=(InstructionWords&& other) noexcept {
    if (this != &other) {
      Release();
      MoveFrom(other);
    }
    return *this;
  }
  ~InstructionWords() { Release(); }

  uint32_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // data_ points at inline_ or at the heap block, so reading a word takes no branch (every
  // operand read of the parse, the pass and the writer goes through here).
  const uint32_t* data() const { return data_; }
  uint32_t* data() { return data_; }
  const uint32_t* begin() const { return data_; }
  const uint32_t* end() const { return data_ + size_; }
  uint32_t operator[](std::size_t i) const { return data_[i]; }
  uint32_t& operator[](std::size_t i) { return data_[i]; }

  // Writes the words to `out`, which must have room for kInline words past `out` as well as
  // size(): words kept inline go as one fixed-size copy (words past size() are scratch for
  // the caller to overwrite), so writing a module makes no memcpy call per instruction.
  void CopyTo(uint32_t* out) const {
    if (on_heap()) {
      std::memcpy(out, data_, std::size_t{size_} * sizeof(uint32_t));
    } else {
      std::memcpy(out, inline_, sizeof inline_);
    }
  }

  void clear() { size_ = 0; }
  void reserve(uint32_t n) {
    if (n <= capacity_) return;
    uint32_t* grown = new uint32_t[n];
    std::memcpy(grown, data_, std::size_t{size_} * sizeof(uint32_t));
    Release();
    data_ = grown;
    capacity_ = n;
  }
  void push_back(uint32_t w) {
    if (size_ == capacity_) reserve(capacity_ * 2);
    data_[size_++] = w;
  }
  void append(const uint32_t* words, std::size_t count) {
    reserve(static_cast<uint32_t>(size_ + count));
    if (count) std::memcpy(data_ + size_, words, count * sizeof(uint32_t));
    size_ += static_cast<uint32_t>(count);
  }
  // Sets the size to `n` and returns the words for the caller to write (all of them: their
  // values are left as they were).
  uint32_t* SizeForWriting(uint32_t n) {
    reserve(n);
    size_ = n;
    return data_;
  }
  // Shrinks, or grows with zeros.
  void resize(uint32_t n) {
    reserve(n);
    for (uint32_t i = size_; i < n; ++i) data_[i] = 0;
    size_ = n;
  }

 private:
  bool on_heap() const { return data_ != inline_; }
  // Frees the heap block, if any (the words then live inline again, capacity kInline).
  void Release() {
    if (on_heap()) delete[] data_;
    data_ = inline_;
    capacity_ = kInline;
  }
  void Assign(const uint32_t* words, uint32_t count) {
    size_ = 0;
    append(words, count);
  }
  // `this` holds no heap block.
  void MoveFrom(InstructionWords& other) {
    size_ = other.size_;
    if (other.on_heap()) {
      data_ = other.data_;
      capacity_ = other.capacity_;
      other.data_ = other.inline_;
    } else {
      data_ = inline_;
      capacity_ = kInline;
      // The whole inline array, a fixed size: two vector moves instead of a call to memcpy
      // sized at run time (instruction vectors grow and compact by moves; words past size_
      // are copied as bytes and never read).
      std::memcpy(inline_, other.inline_, sizeof inline_);
    }
    other.size_ = 0;
    other.capacity_ = kInline;
  }

  uint32_t size_ = 0;
  uint32_t capacity_ = kInline;
  uint32_t* data_ = inline_;
  uint32_t inline_[kInline];
};

}  // namespace bindery::spirv
