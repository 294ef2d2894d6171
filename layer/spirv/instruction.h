// One SPIR-V instruction kept as its words (opcode word first), with accessors for the
// type, result and the operands after them. Compact on purpose: the pass copies and
// rebuilds instruction streams, so an instruction is one small vector (inline storage for
// short instructions: instruction_words.h) and three offsets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "spirv/instruction_words.h"

#define SPV_ENABLE_UTILITY_CODE
#include <spirv/unified1/spirv.hpp>

namespace bindery::spirv {

// Whether an opcode has a result and a type, and the fewest words the grammar allows
// (instruction_shape.cpp): bits kShapeHasResult / kShapeHasType, the count from bit 8.
inline constexpr uint32_t kShapeHasResult = 1, kShapeHasType = 2, kShapeMinWordsShift = 8;
// Opcodes below kShapeTableSize are answered from a table filled when the library is
// loaded (instruction_shape.cpp): the parser and the instruction builder ask for every
// instruction, and a call plus a guarded static was a twentieth of a small rewrite.
inline constexpr uint32_t kShapeTableSize = 8192;
extern uint16_t g_op_shapes[kShapeTableSize];
uint32_t OpShapeSlow(spv::Op op);
inline uint32_t OpShape(spv::Op op) {
  const uint32_t code = static_cast<uint32_t>(op);
  return code < kShapeTableSize ? g_op_shapes[code] : OpShapeSlow(op);
}

class Instruction {
 public:
  Instruction() = default;
  // `words` is a whole instruction as it appears in a module (word count in the high half).
  explicit Instruction(const std::vector<uint32_t>& words) : words_(words.data(), static_cast<uint32_t>(words.size())) { Classify(); }
  Instruction(const uint32_t* words, uint32_t count) : words_(words, count) { Classify(); }
  // The same, where `readable` words may be read at `words` (the rest of a module: the
  // parse), which lets a short instruction be copied at a fixed size.
  Instruction(const uint32_t* words, uint32_t count, std::size_t readable) : words_(words, count, readable) { Classify(); }
  // The same, with the opcode's shape (OpShape) already looked up and the count already
  // checked to hold the type and result it names: the parse has both for every instruction.
  Instruction(const uint32_t* words, uint32_t count, std::size_t readable, uint32_t shape)
      : words_(words, count, readable) {
    const uint32_t has_type = (shape & kShapeHasType) != 0 ? 1u : 0u;
    const uint32_t has_result = (shape & kShapeHasResult) != 0 ? 1u : 0u;
    type_index_ = has_type;
    result_index_ = has_result ? 1u + has_type : 0u;
    first_operand_ = 1u + has_type + has_result;
  }
  // Builds an instruction; pass 0 for `type` / `result` when the opcode has none.
  // The words are written once in place (the pass builds dozens per module: this is
  // part of every rewrite's fixed cost).
  Instruction(spv::Op op, uint32_t type, uint32_t result, std::initializer_list<uint32_t> operands) : words_() {
    const uint32_t shape = OpShape(op);
    const bool has_result = (shape & kShapeHasResult) != 0, has_type = (shape & kShapeHasType) != 0;
    const uint32_t count =
        1 + (has_type ? 1u : 0u) + (has_result ? 1u : 0u) + static_cast<uint32_t>(operands.size());
    uint32_t* w = words_.SizeForWriting(count);
    uint32_t next = 0;
    w[next++] = (count << 16) | (static_cast<uint32_t>(op) & 0xffffu);
    if (has_type) w[next++] = type;
    if (has_result) w[next++] = result;
    for (const uint32_t operand : operands) w[next++] = operand;
    // What Classify would find, without asking for the shape again.
    type_index_ = has_type ? 1u : 0u;
    result_index_ = has_result ? (has_type ? 2u : 1u) : 0u;
    first_operand_ = 1u + (has_type ? 1u : 0u) + (has_result ? 1u : 0u);
  }

  spv::Op opcode() const { return static_cast<spv::Op>(words_[0] & 0xffffu); }
  uint32_t word_count() const { return static_cast<uint32_t>(words_.size()); }
  bool has_type() const { return type_index_ != 0; }
  bool has_result() const { return result_index_ != 0; }
  uint32_t type_id() const { return type_index_ ? words_[type_index_] : 0; }
  uint32_t result_id() const { return result_index_ ? words_[result_index_] : 0; }
  void set_type_id(uint32_t id) { if (type_index_) words_[type_index_] = id; }
  void set_result_id(uint32_t id) { if (result_index_) words_[result_index_] = id; }

  // Operands: the words after opcode, type and result. ParseModule guarantees the operands
  // the grammar requires (instruction_shape.h); reading past the end anyway (an optional
  // operand, or a call with fewer arguments than its callee's parameters in malformed
  // input) gives 0, which is never a valid id, and writing there does nothing.
  uint32_t first_operand_index() const { return first_operand_; }
  uint32_t operand_count() const { return word_count() - first_operand_; }
  uint32_t operand(uint32_t i) const {
    const std::size_t w = std::size_t{first_operand_} + i;
    return w < words_.size() ? words_[w] : 0u;
  }
  void set_operand(uint32_t i, uint32_t value) {
    const std::size_t w = std::size_t{first_operand_} + i;
    if (w < words_.size()) words_[w] = value;
  }
  void add_operand(uint32_t value) { words_.push_back(value); UpdateWordCount(); }
  void truncate_operands(uint32_t count) { words_.resize(first_operand_ + count); UpdateWordCount(); }
  // Appends a literal string operand (nul-terminated, zero-padded to words), written in
  // place: what StringWords gives, without a vector per name.
  void add_string_operand(std::string_view s) {
    const uint32_t at = word_count();
    words_.resize(at + static_cast<uint32_t>(s.size() / 4 + 1));  // the new words are zeros
    for (std::size_t i = 0; i < s.size(); ++i)
      words_[at + i / 4] |= static_cast<uint32_t>(static_cast<unsigned char>(s[i])) << (8 * (i % 4));
    UpdateWordCount();
  }

  // A literal string starting at operand i (nul-terminated, padded to words); `*next`
  // receives the operand index after it. Stops at the end of the instruction.
  std::string string_operand(uint32_t i, uint32_t* next = nullptr) const {
    std::string s;
    uint32_t w = first_operand_ + i;
    for (; w < word_count(); ++w) {
      bool done = false;
      for (int b = 0; b < 4; ++b) {
        char c = static_cast<char>((words_[w] >> (8 * b)) & 0xffu);
        if (c == 0) { done = true; break; }
        s.push_back(c);
      }
      if (done) { ++w; break; }
    }
    if (next) *next = w - first_operand_;
    return s;
  }

  // All words (begin() / end() / size() / data()).
  const InstructionWords& words() const { return words_; }

 private:
  void UpdateWordCount() {
    words_[0] = (static_cast<uint32_t>(words_.size()) << 16) | (words_[0] & 0xffffu);
  }
  void Classify() {
    const uint32_t shape = OpShape(opcode());
    const bool has_result = (shape & kShapeHasResult) != 0, has_type = (shape & kShapeHasType) != 0;
    uint32_t next = 1;
    type_index_ = (has_type && next < words_.size()) ? next++ : 0;
    result_index_ = (has_result && next < words_.size()) ? next++ : 0;
    first_operand_ = next;
  }

  InstructionWords words_{kEmpty, 1};
  static constexpr uint32_t kEmpty[1] = {0};
  uint32_t type_index_ = 0;
  uint32_t result_index_ = 0;
  uint32_t first_operand_ = 1;
};

// Words of a literal string operand (nul-terminated, zero-padded).
inline std::vector<uint32_t> StringWords(const std::string& s) {
  std::vector<uint32_t> w((s.size() + 4) / 4, 0u);
  for (size_t i = 0; i < s.size(); ++i) w[i / 4] |= static_cast<uint32_t>(static_cast<unsigned char>(s[i])) << (8 * (i % 4));
  return w;
}

}  // namespace bindery::spirv
