// The rewrite cache: a module's rewrite for one layout is computed
// once per device; a second pipeline from the same module and layout costs a lookup. Keyed
// by the module's content (not its handle: applications recreate identical modules) and
// the rewrite options (the pass rewrites every entry point at once). Pipeline creation
// is not a hot path: one mutex.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "spirv/rewrite.h"

namespace bindery::bindings {

struct CachedRewrite {
  std::string error;                  // the module could not be read
  bool converted = false;
  std::string reason;                 // report.reason when not converted
  std::vector<uint32_t> module;       // the rewritten module (empty when not converted)
  spirv::RewriteReport report;
};

class RewriteCache {
 public:
  // The rewrite of `words` under `options`, computed on a miss; `hit` tells which.
  std::shared_ptr<const CachedRewrite> Get(const std::vector<uint32_t>& words,
                                           const spirv::RewriteOptions& options, bool* hit);
  std::size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const CachedRewrite>> entries_;
};

// A key for the options (every field that changes the output).
std::string OptionsKey(const spirv::RewriteOptions& options);

}  // namespace bindery::bindings
