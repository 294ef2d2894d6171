// The rewrite half of a corpus case: the layout (DefaultLayout less the @keep bindings,
// with the variant's options), the pass, and the checks every rewritten module must pass
// whether or not it runs: spirv-val for its target, converted buffers gone from Inspect.
#pragma once

#include <string>
#include <vector>

#include "corpus_entry.h"
#include "spirv/rewrite.h"

namespace bindery::spirv_exec {

struct Variant {
  bool int64 = true;
  bool bounds = false;
  // Sets of at most 4 records carry them in push constants (spirv::SetLayout::records_in_root),
  // as the layer lays out small sets fixed while bound.
  bool records_in_root = false;
  std::string Name() const {
    return std::string(int64 ? "int64" : "uvec2") + (bounds ? "_bounds" : "") + (records_in_root ? "_rootrecords" : "");
  }
};

struct RewriteCase {
  std::string skip;   // non-empty: the library is not there yet (GTEST_SKIP with this)
  std::string error;  // non-empty: the case failed (message for the test log)
  spirv::RewriteOptions layout;
  spirv::RewriteResult result;
};

bool LibraryIsStub();

// Rewrites `original` for `entry` under `variant` and checks the result (see above).
// `entry_point`: the rewrite is made for that entry point alone (spirv::RewriteOptions::
// entry_point), as the layer makes it for a stage of a module with several; "": for all.
RewriteCase RewriteAndCheck(const CorpusEntry& entry, const std::vector<uint32_t>& original, const Variant& variant,
                            const std::string& entry_point = "");

// The entry point to rewrite a case for before running `ep`: `ep` where the module has
// several (each may have push constants of its own), else "" (one rewrite for all).
inline std::string RewriteEntryPoint(const CorpusEntry& entry, const std::string& ep) {
  return entry.entries.size() > 1 ? ep : "";
}

}  // namespace bindery::spirv_exec
