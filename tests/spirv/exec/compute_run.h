// Runs one compute entry point of a corpus shader once on an ExecDevice and reads back
// every buffer: either natively (each @buffer bound as a descriptor) or rewritten (the
// bindings a RewriteOptions layout names reached through hand-built argument blocks whose
// records point at the same buffers, roots pushed after the shader's own push constants).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "corpus_entry.h"
#include "exec_device.h"
#include "spirv/rewrite.h"

namespace bindery::spirv_exec {

struct RunOutput {
  std::string error;                       // non-empty: the run could not be made
  std::vector<std::vector<uint8_t>> buffers;  // final contents, in @buffer order
};

// `layout` null: the native run. Else the rewritten run: bindings in `layout` come from
// argument blocks; `push_constant_end` is the rewrite report's push_constant_end.
RunOutput RunCompute(ExecDevice& device, const CorpusEntry& entry, const std::vector<uint32_t>& module,
                     const std::string& entry_point, const spirv::RewriteOptions* layout,
                     uint32_t push_constant_end);

// Loads a .spv file ("" and empty vector when unreadable).
std::vector<uint32_t> LoadSpirv(const std::string& path, std::string& error);

}  // namespace bindery::spirv_exec
