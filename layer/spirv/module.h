// A SPIR-V module split into the sections of the spec's logical layout (2.4), so passes
// can append a capability, a type or a decoration in the right place and write the
// module back. An unchanged module writes back byte for byte: every instruction keeps
// its section and its order inside the section.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "spirv/instruction.h"

namespace bindery::spirv {

// Caps that keep a hostile module from making us allocate without bound.
inline constexpr uint32_t kMaxIdBound = 1u << 22;
inline constexpr std::size_t kMaxModuleWords = std::size_t{1} << 24;  // 64 MiB

struct Function {
  // OpFunction .. OpFunctionEnd, in order (parameters, blocks, OpFunctionEnd).
  std::vector<Instruction> instructions;
  uint32_t id() const { return instructions.front().result_id(); }
};

struct Module {
  uint32_t version = 0x00010000;
  uint32_t generator = 0;
  uint32_t bound = 1;
  uint32_t schema = 0;

  std::vector<Instruction> capabilities;
  std::vector<Instruction> extensions;
  std::vector<Instruction> ext_inst_imports;
  std::vector<Instruction> memory_model;
  std::vector<Instruction> entry_points;
  std::vector<Instruction> execution_modes;
  std::vector<Instruction> debug;        // OpString, OpSource*, OpName, OpMemberName, OpModuleProcessed
  std::vector<Instruction> annotations;  // decorations
  std::vector<Instruction> types_values; // types, constants, global variables, OpUndef, OpLine, global OpExtInst
  std::vector<Function> functions;

  uint32_t TakeId() { return bound++; }
  std::vector<uint32_t> Write() const;
  std::size_t WordCount() const;
  // Empties the module but keeps its storage: the sections' capacity, and the functions'
  // instruction vectors in spare_instruction_lists for the next parse to reuse. A module
  // parsed into again (the rewrite keeps one per thread) then allocates almost nothing.
  void Clear();
  // Capacity kept in instructions across the sections (what Clear keeps).
  std::size_t CapacityInInstructions() const;

  // Not part of the module: emptied instruction vectors waiting for a function.
  std::vector<std::vector<Instruction>> spare_instruction_lists;
};

// Parses `words` into `module`. Returns "" or what is wrong (never aborts; every index
// is checked, and the id bound and module size are capped).
std::string ParseModule(const uint32_t* words, std::size_t word_count, Module* module);

}  // namespace bindery::spirv
