// libFuzzer target for layer/spirv/ (fuzz/README.md): the parser, the rewrite pass and the
// writer under ASan+UBSan, with the invariants of rewrite_invariants.h. Built with clang by
// scripts/fuzz-spirv; the seeds are the differential corpus's compiled SPIR-V. Inputs that
// break something are replayed by tests/spirv/regress/ once copied there.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "rewrite_invariants.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string broken = bindery::spirv_fuzz::CheckRewriteInvariants(data, size);
  if (!broken.empty()) {
    std::fprintf(stderr, "bindery-spirv fuzzer: %s\n", broken.c_str());
    std::abort();
  }
  return 0;
}
