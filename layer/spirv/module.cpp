// Parsing and writing of Module (module.h).
#include "spirv/module.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "spirv/instruction_shape.h"
#include "spirv/thread_scratch.h"

namespace bindery::spirv {
namespace {

// Section of an instruction outside functions, in logical-layout order.
enum Section : int {
  kCapability, kExtension, kExtInstImport, kMemoryModel, kEntryPoint, kExecutionMode,
  kDebug, kAnnotation, kTypesValues, kFunctions,
  kFunctionBody,  // only inside a function (OpFunctionParameter, OpLabel, OpFunctionEnd)
};

Section SectionOfSlow(spv::Op op) {
  switch (op) {
    case spv::OpCapability: return kCapability;
    case spv::OpExtension: return kExtension;
    case spv::OpExtInstImport: return kExtInstImport;
    case spv::OpMemoryModel: return kMemoryModel;
    case spv::OpEntryPoint: return kEntryPoint;
    case spv::OpExecutionMode:
    case spv::OpExecutionModeId: return kExecutionMode;
    case spv::OpString:
    case spv::OpSourceExtension:
    case spv::OpSource:
    case spv::OpSourceContinued:
    case spv::OpName:
    case spv::OpMemberName:
    case spv::OpModuleProcessed: return kDebug;
    case spv::OpDecorate:
    case spv::OpMemberDecorate:
    case spv::OpDecorationGroup:
    case spv::OpGroupDecorate:
    case spv::OpGroupMemberDecorate:
    case spv::OpDecorateId:
    case spv::OpDecorateString:
    case spv::OpMemberDecorateString: return kAnnotation;
    case spv::OpFunction: return kFunctions;
    case spv::OpFunctionEnd:
    case spv::OpFunctionParameter:
    case spv::OpLabel: return kFunctionBody;
    default: return kTypesValues;
  }
}

// The section of every opcode below kSectionTableSize (all but the *DecorateString ones,
// which are answered by the switch): the parse asks twice for each instruction outside
// functions, and the switch was a visible share of a small module's parse.
constexpr uint32_t kSectionTableSize = 512;
struct SectionTable {
  uint8_t section[kSectionTableSize];
  SectionTable() {
    for (uint32_t code = 0; code < kSectionTableSize; ++code)
      section[code] = static_cast<uint8_t>(SectionOfSlow(static_cast<spv::Op>(code)));
  }
};
const SectionTable section_table;

Section SectionOf(spv::Op op) {
  const uint32_t code = static_cast<uint32_t>(op);
  return code < kSectionTableSize ? static_cast<Section>(section_table.section[code]) : SectionOfSlow(op);
}

std::string Hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

}  // namespace

std::string CheckTypesDefinedBeforeUse(const Module& module);

namespace {

// Scratch of the parse, kept per thread between parses (sized by the largest module seen).
struct ParseScratch {
  std::vector<uint8_t> defined;
  std::vector<uint8_t> kinds;  // CheckTypesDefinedBeforeUse
};
using ScratchLease = ThreadScratch<ParseScratch>::Lease;  // thread_scratch.h: safe after the thread's teardown
// The scratch of one parse: after it, a thread keeps the id-sized scratch of ordinary
// modules only (a hostile bound of millions would otherwise stay allocated).
class ParseScratchLease {
 public:
  ~ParseScratchLease() {
    if (lease_->defined.capacity() > kKeepIdScratch) lease_->defined = {};
    if (lease_->kinds.capacity() > kKeepIdScratch) lease_->kinds = {};
  }
  ParseScratch& scratch() { return *lease_; }

 private:
  static constexpr std::size_t kKeepIdScratch = std::size_t{1} << 18;
  ScratchLease lease_;
};

// Appends the instruction at `words` (`readable` words from it to the end of the module)
// to `list`, which doubles when full but starts at 16 (a fresh module's sections would
// otherwise grow 1, 2, 4, 8 ... one move of every instruction each time). Growth stays
// geometric, so no list holds more than twice what its module needs.
void Append(std::vector<Instruction>* list, const uint32_t* words, uint32_t count, std::size_t readable,
            uint32_t shape) {
  if (list->size() == list->capacity()) list->reserve(std::max<std::size_t>(list->size() * 2, 16));
  list->emplace_back(words, count, readable, shape);
}

}  // namespace

void Module::Clear() {
  version = 0x00010000;
  generator = 0;
  bound = 1;
  schema = 0;
  for (auto* sec : {&capabilities, &extensions, &ext_inst_imports, &memory_model, &entry_points, &execution_modes,
                    &debug, &annotations, &types_values})
    sec->clear();
  // Last function first, so the next parse hands function k the list function k had: a
  // thread rewriting one module after another of similar shape then regrows none of them.
  for (auto f = functions.rbegin(); f != functions.rend(); ++f) {
    f->instructions.clear();
    if (f->instructions.capacity()) spare_instruction_lists.push_back(std::move(f->instructions));
  }
  functions.clear();
}

std::size_t Module::CapacityInInstructions() const {
  std::size_t n = 0;
  for (const auto* sec : {&capabilities, &extensions, &ext_inst_imports, &memory_model, &entry_points,
                          &execution_modes, &debug, &annotations, &types_values})
    n += sec->capacity();
  for (const Function& f : functions) n += f.instructions.capacity();
  for (const auto& spare : spare_instruction_lists) n += spare.capacity();
  return n;
}

namespace {

// The header's five words: magic, a version this library reads, the id bound within the
// parser's cap; "" or why not.
std::string ParseHeader(const uint32_t* words, std::size_t word_count, Module* module) {
  if (words == nullptr || word_count < 5) return "truncated header: a module has at least 5 words";
  if (word_count > kMaxModuleWords) return "module too large (" + std::to_string(word_count) + " words)";
  if (words[0] != spv::MagicNumber) {
    if (words[0] == 0x03022307u) return "byte-swapped module (big-endian) is not supported";
    return "bad magic number " + Hex(words[0]);
  }
  const uint32_t version = words[1];
  if ((version & 0xff0000ffu) != 0 || version < 0x00010000u || version > 0x00010600u)
    return "unsupported SPIR-V version " + Hex(version);
  if (words[3] == 0) return "id bound is 0";
  if (words[3] > kMaxIdBound) return "id bound " + std::to_string(words[3]) + " exceeds the limit " + std::to_string(kMaxIdBound);
  module->version = version;
  module->generator = words[2];
  module->bound = words[3];
  module->schema = words[4];
  return "";
}

// The error messages, built out of line on the error paths only: the checks then inline
// into the parse loop (a string per instruction was once most of the parse time).
[[gnu::cold, gnu::noinline]] bool FailAt(std::string* error, const char* what, std::size_t at) {
  *error = std::string(what) + " at word " + std::to_string(at);
  return false;
}
[[gnu::cold, gnu::noinline]] bool FailOpcodeAt(std::string* error, spv::Op op, const char* what, std::size_t at) {
  *error = "instruction (opcode " + std::to_string(static_cast<uint32_t>(op)) + ")" + what + " at word " + std::to_string(at);
  return false;
}
[[gnu::cold, gnu::noinline]] bool FailIdAt(std::string* error, const char* before, uint32_t id, const char* after,
                                           std::size_t at) {
  *error = before + std::to_string(id) + after + " at word " + std::to_string(at);
  return false;
}
[[gnu::cold, gnu::noinline]] bool FailResultIdAt(std::string* error, uint32_t id, uint32_t bound, std::size_t at) {
  return FailIdAt(error, "result id ", id, (" outside the bound " + std::to_string(bound)).c_str(), at);
}
[[gnu::cold, gnu::noinline]] bool FailTooFewWords(std::string* error, spv::Op op, uint32_t count, std::size_t at) {
  const std::string words = " has " + std::to_string(count) + " words, fewer than the grammar's " + std::to_string(MinWordCount(op));
  return FailOpcodeAt(error, op, words.c_str(), at);
}

// The instruction at word `at`: its word count and shape (instruction_shape.h), checked on
// the words so that each instruction is built once, in place in its section: it fits in
// the module, has every operand the grammar requires (the pass may read them unchecked),
// and its result (marked in `defined`) and type ids lie within the bound. False: why in *error.
inline bool CheckInstruction(const uint32_t* words, std::size_t word_count, std::size_t at, uint32_t bound,
                             std::vector<uint8_t>& defined, uint32_t* count_out, uint32_t* shape_out,
                             std::string* error) {
  const uint32_t count = words[at] >> 16;
  const auto op = static_cast<spv::Op>(words[at] & 0xffffu);
  if (count == 0) return FailAt(error, "instruction with word count 0", at);
  if (count > word_count - at) return FailOpcodeAt(error, op, " runs past the end of the module", at);
  const uint32_t shape = OpShape(op);
  const bool has_result = (shape & kShapeHasResult) != 0, has_type = (shape & kShapeHasType) != 0;
  if (count < 1u + has_result + has_type) return FailAt(error, "instruction too short for its type and result", at);
  if (count < (shape >> kShapeMinWordsShift)) return FailTooFewWords(error, op, count, at);
  // OpPhi's operands come in (value, parent block) pairs.
  if (op == spv::OpPhi && (count - 3u) % 2u != 0) return FailAt(error, "OpPhi with an unpaired operand", at);
  const uint32_t result_id = has_result ? words[at + 1 + (has_type ? 1 : 0)] : 0;
  const uint32_t type_id = has_type ? words[at + 1] : 0;
  if (has_result && (result_id == 0 || result_id >= bound)) return FailResultIdAt(error, result_id, bound, at);
  // SSA: each id is defined once. The pass indexes definitions by id; a second definition
  // (malformed input, found by the fuzzer) would make it rewrite the wrong one.
  if (has_result) {
    if (defined[result_id]) return FailIdAt(error, "id ", result_id, " is defined more than once", at);
    defined[result_id] = 1;
  }
  if (has_type && (type_id == 0 || type_id >= bound))
    return FailIdAt(error, "type id ", type_id, " outside the bound", at);
  *count_out = count;
  *shape_out = shape;
  return true;
}

// A new function of `module`: it takes a list an earlier parse left (Module::Clear), its
// capacity kept.
void BeginFunction(Module* module) {
  module->functions.emplace_back();
  if (!module->spare_instruction_lists.empty()) {
    module->functions.back().instructions = std::move(module->spare_instruction_lists.back());
    module->spare_instruction_lists.pop_back();
  }
}

// Where each checked instruction goes: its section, kept in the logical layout's order, or
// the function it is in.
class InstructionPlacer {
 public:
  explicit InstructionPlacer(Module* module)
      : module_(module),
        sections_{&module->capabilities, &module->extensions, &module->ext_inst_imports, &module->memory_model,
                  &module->entry_points, &module->execution_modes, &module->debug, &module->annotations,
                  &module->types_values} {}

  bool in_function() const { return in_function_; }

  // The instruction at `first` (word `at` of `word_count`); false: why in *error.
  inline bool Place(const uint32_t* first, uint32_t count, uint32_t shape, std::size_t at, std::size_t word_count,
                    std::string* error) {
    const auto op = static_cast<spv::Op>(first[0] & 0xffffu);
    if (in_function_) {
      if (op == spv::OpFunction) return FailAt(error, "OpFunction inside a function", at);
      Append(&module_->functions.back().instructions, first, count, word_count - at, shape);
      if (op == spv::OpFunctionEnd) in_function_ = false;
      return true;
    }
    // OpLine/OpNoLine may appear among the types (their section) and in functions.
    const int s = SectionOf(op);
    if (s == kFunctionBody) return FailAt(error, "function instruction outside a function", at);
    // Anything else must not go back to an earlier section.
    if (s < section_) return FailOpcodeAt(error, op, " out of the logical layout order", at);
    section_ = s;
    if (s == kMemoryModel && !module_->memory_model.empty()) return FailAt(error, "more than one OpMemoryModel", at);
    if (s == kFunctions) {
      BeginFunction(module_);
      Append(&module_->functions.back().instructions, first, count, word_count - at, shape);
      in_function_ = true;
      return true;
    }
    Append(sections_[s], first, count, word_count - at, shape);
    return true;
  }

 private:
  Module* module_;
  std::vector<Instruction>* const sections_[kFunctions];
  int section_ = kCapability;
  bool in_function_ = false;
};

}  // namespace

std::string ParseModule(const uint32_t* words, std::size_t word_count, Module* module) {
  module->Clear();
  std::string error = ParseHeader(words, word_count, module);
  if (!error.empty()) return error;
  ParseScratchLease scratch_lease;
  ParseScratch& scratch = scratch_lease.scratch();
  // No counting pass to reserve the sections: the module is kept per thread (module.h,
  // Clear), so its sections and function lists already hold the capacity of the largest
  // module the thread has parsed, and a larger one grows them once.
  std::vector<uint8_t>& defined = scratch.defined;
  defined.assign(module->bound, 0);
  InstructionPlacer placer(module);
  std::size_t pos = 5;
  while (pos < word_count) {
    uint32_t count = 0, shape = 0;
    if (!CheckInstruction(words, word_count, pos, module->bound, defined, &count, &shape, &error)) return error;
    if (!placer.Place(words + pos, count, shape, pos, word_count, &error)) return error;
    pos += count;
  }
  if (placer.in_function()) return "module ends inside a function (no OpFunctionEnd)";
  if (module->memory_model.empty()) return "no OpMemoryModel";
  return CheckTypesDefinedBeforeUse(*module);
}

// SPIR-V defines every type before a type uses it (a pointer may name a struct declared
// later only through OpTypeForwardPointer), and a type's operands are types (an array's
// length a constant). Checked here because the type manager and the pass walk composite
// types recursively — a cycle in malformed input (found by the fuzzer) would recurse
// without end — and because a type naming a variable would dangle once the rewrite
// removes that variable (also found by the fuzzer).
std::string CheckTypesDefinedBeforeUse(const Module& module) {
  enum Kind : uint8_t { kNone, kType, kConstant, kForward };
  ScratchLease scratch;
  std::vector<uint8_t>& kind = scratch->kinds;
  kind.assign(module.bound, kNone);
  auto kind_of = [&](uint32_t id) -> uint8_t { return id < module.bound ? kind[id] : uint8_t{kNone}; };
  // A forward-declared pointer may be used (as a member or element) before its OpTypePointer.
  auto is_type = [&](uint32_t id) { return kind_of(id) == kType || kind_of(id) == kForward; };
  for (const Instruction& inst : module.types_values) {
    const spv::Op op = inst.opcode();
    const uint32_t n = inst.operand_count();
    const uint32_t result = inst.result_id();
    bool ok = true;
    switch (op) {
      case spv::OpTypeVector:
      case spv::OpTypeMatrix:
      case spv::OpTypeRuntimeArray:
        ok = n >= 1 && is_type(inst.operand(0));
        break;
      case spv::OpTypeArray:
        ok = n >= 2 && is_type(inst.operand(0)) && kind_of(inst.operand(1)) == kConstant;
        break;
      case spv::OpTypeStruct:
        for (uint32_t i = 0; i < n && ok; ++i) ok = is_type(inst.operand(i));
        break;
      case spv::OpTypePointer:
        // The pointee of a forward-declared pointer may come later.
        ok = n >= 2 && (is_type(inst.operand(1)) || kind_of(result) == kForward);
        break;
      case spv::OpTypeForwardPointer:
        if (n >= 1 && inst.operand(0) < module.bound && kind[inst.operand(0)] == kNone) kind[inst.operand(0)] = kForward;
        break;
      default: break;
    }
    // Only a pointer may define a forward-declared id (else a struct could contain itself).
    if (op != spv::OpTypePointer && result != 0 && kind_of(result) == kForward) ok = false;
    if (!ok) {
      return "type " + std::to_string(result) + " (opcode " + std::to_string(static_cast<uint32_t>(op)) +
             ") uses a type or constant not defined before it";
    }
    if (result == 0 || result >= module.bound) continue;
    // Declarations without a result type are types; typed values other than variables and
    // undefined values are constants (the kinds an array length may be).
    if (inst.type_id() == 0) {
      kind[result] = kType;
    } else if (op != spv::OpVariable && op != spv::OpUndef) {
      kind[result] = kConstant;
    }
  }
  return "";
}

std::size_t Module::WordCount() const {
  std::size_t n = 5;
  for (const auto* sec : {&capabilities, &extensions, &ext_inst_imports, &memory_model, &entry_points,
                          &execution_modes, &debug, &annotations, &types_values})
    for (const auto& i : *sec) n += i.word_count();
  for (const auto& f : functions)
    for (const auto& i : f.instructions) n += i.word_count();
  return n;
}

std::vector<uint32_t> Module::Write() const {
  const std::size_t words = WordCount();
  // Room for one inline array past the end, so each short instruction is one fixed-size
  // copy (InstructionWords::CopyTo); the slack is cut off at the end (the capacity stays).
  std::vector<uint32_t> out(words + InstructionWords::kInline);
  const uint32_t header[5] = {spv::MagicNumber, version, generator, bound, schema};
  std::memcpy(out.data(), header, sizeof header);
  uint32_t* at = out.data() + 5;
  auto put = [&at](const std::vector<Instruction>& v) {
    for (const auto& i : v) {
      i.words().CopyTo(at);
      at += i.word_count();
    }
  };
  for (const auto* sec : {&capabilities, &extensions, &ext_inst_imports, &memory_model, &entry_points,
                          &execution_modes, &debug, &annotations, &types_values})
    put(*sec);
  for (const auto& f : functions) put(f.instructions);
  out.resize(words);
  return out;
}

}  // namespace bindery::spirv
