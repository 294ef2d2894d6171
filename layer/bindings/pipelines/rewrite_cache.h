// The rewrite cache: a module's rewrite for one layout is computed
// once per device; a second pipeline from the same module and layout costs a lookup. Keyed
// by the module's content (not its handle: applications recreate identical modules) and
// the rewrite options (the entry point among them where a module has several). Pipeline creation
// is not a hot path: one mutex.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <vulkan/vulkan.h>

#include "spirv/rewrite.h"
#include "spirv/validate/module_validator.h"

namespace bindery::bindings {

struct CachedRewrite {
  std::string error;                  // the module could not be read
  bool converted = false;
  std::string reason;                 // report.reason when not converted
  std::vector<uint32_t> module;       // the rewritten module (empty when not converted)
  spirv::RewriteReport report;
  // The rewritten module as a shader module of the layer below, made on first use and
  // kept until the device goes (pipeline_hooks.cpp): a second pipeline from it hands the
  // driver the same module, which its own pipeline cache recognises.
  mutable std::mutex driver_module_mutex;
  mutable VkShaderModule driver_module = VK_NULL_HANDLE;
  mutable uint64_t last_use = 0;  // the cache's clock at its last Get (under the cache's mutex)
  // bindings_validate: the validator's verdict per specialization (its map and data as
  // bytes), so a module is validated once per distinct specialization.
  mutable std::mutex verdict_mutex;
  mutable std::vector<std::pair<std::string, spirv::RewriteVerdict>> verdicts;
};

class RewriteCache {
 public:
  // The rewrite of `words` under `options`, computed on a miss; `hit` tells which.
  std::shared_ptr<const CachedRewrite> Get(const std::vector<uint32_t>& words,
                                           const spirv::RewriteOptions& options, bool* hit);
  std::size_t size() const;
  // Bounded memory: entries nothing else holds (their modules destroyed, no pipeline being
  // created from them) beyond the kKeptUnused most recently used are dropped, `destroy`
  // called for each (its driver module). Identical modules created again soon still hit.
  static constexpr std::size_t kKeptUnused = 64;
  template <typename Fn>
  void TrimUnused(Fn&& destroy) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (entries_.size() <= kKeptUnused) return;
    std::vector<std::pair<uint64_t, const std::string*>> unused;
    for (const auto& [key, entry] : entries_) {
      if (entry.use_count() == 1) unused.emplace_back(entry->last_use, &key);
    }
    if (unused.size() <= kKeptUnused) return;
    std::sort(unused.begin(), unused.end());
    std::vector<std::string> doomed;
    for (std::size_t i = 0; i + kKeptUnused < unused.size(); ++i) doomed.push_back(*unused[i].second);
    for (const std::string& key : doomed) {
      auto it = entries_.find(key);
      destroy(*it->second);
      entries_.erase(it);
    }
  }
  // Calls fn(entry) for every entry (device teardown).
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [key, entry] : entries_) fn(*entry);
  }

 private:
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const CachedRewrite>> entries_;
  uint64_t clock_ = 0;
};

// A key for the options (every field that changes the output).
std::string OptionsKey(const spirv::RewriteOptions& options);
// The same key appended to *out (a caller may reuse one string for every lookup).
void AppendOptionsKey(const spirv::RewriteOptions& options, std::string* out);

}  // namespace bindery::bindings
