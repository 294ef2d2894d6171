// What the module's global variables are (buffer, uniform buffer, push constants...) and
// which of them each entry point's call tree uses. Shared by Inspect and the rewrite.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "spirv/rewrite.h"
#include "spirv/type_manager.h"

namespace bindery::spirv {

struct VariableInfo {
  uint32_t id = 0;
  uint32_t pointer_type = 0;
  spv::StorageClass storage = spv::StorageClassMax;
  ResourceKind kind = ResourceKind::kOther;
  bool is_resource = false;     // has a descriptor binding or is push constants
  uint32_t set = 0, binding = 0;
  uint32_t array_size = 1;      // 0: runtime-sized descriptor array
  uint32_t block_type = 0;      // the struct (array element for descriptor arrays)
  uint32_t array_type = 0;      // the descriptor array type, when arrayed
  std::string name;
};

// Every global OpVariable of the module, classified (into `out`, emptied first: the rewrite
// passes a pooled vector).
void ClassifyVariables(const Module& module, const TypeManager& types, std::vector<VariableInfo>* out);
inline std::vector<VariableInfo> ClassifyVariables(const Module& module, const TypeManager& types) {
  std::vector<VariableInfo> out;
  ClassifyVariables(module, types, &out);
  return out;
}

// For each entry point (in module order), the global ids its static call tree references
// (sorted). Defined in inspect.cpp.
std::vector<std::vector<uint32_t>> GlobalsUsedByEntryPoints(const Module& module);

// Name given to `id` by OpName, or "".
std::string NameOf(const Module& module, uint32_t id);

const char* ExecutionModelName(uint32_t model);

}  // namespace bindery::spirv
