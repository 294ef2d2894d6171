// Stand-in for layer/spirv/ while the bindery_spirv library does not exist in the tree
// yet: every call fails with kStubError, and the harness skips the rewrite half of each
// case (the native half still runs). Linked only when the target is missing.
#include "spirv/rewrite.h"

namespace bindery::spirv {

std::string RewriteReport::ToString() const { return reason; }

RewriteResult RewriteDescriptorsToPointers(const uint32_t* words, std::size_t word_count, const RewriteOptions&) {
  RewriteResult r;
  r.error = "bindery_spirv is not built yet (stub)";
  r.module.assign(words, words + word_count);
  return r;
}

ModuleInfo Inspect(const uint32_t*, std::size_t) {
  ModuleInfo info;
  info.error = "bindery_spirv is not built yet (stub)";
  return info;
}

RewriteOptions DefaultLayout(const ModuleInfo&, uint32_t, bool) { return {}; }

}  // namespace bindery::spirv
