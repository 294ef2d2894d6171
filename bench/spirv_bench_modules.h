// The modules bindery_spirv_bench measures: the differential corpus's compiled SPIR-V and
// the generated large shaders, each with the layout the rewrite gets (every buffer,
// DefaultLayout, target from the module's SPIR-V version).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "spirv/rewrite.h"

namespace bindery::bench {

struct BenchModule {
  std::string name;    // file name without ".spv"
  bool large = false;  // generated (bench/spirv_generate_large.py)
  std::vector<uint32_t> words;
  spirv::ModuleInfo info;
  spirv::RewriteOptions layout;
  std::vector<uint32_t> rewritten;  // the rewrite's output (the input when not converted)
  bool converted = false;
  std::string note;  // why not converted
};

// Corpus modules (sorted), then the large ones (ascending size). Unreadable files are left out.
std::vector<BenchModule> LoadBenchModules(const std::string& corpus_dir, const std::string& large_dir);

}  // namespace bindery::bench
