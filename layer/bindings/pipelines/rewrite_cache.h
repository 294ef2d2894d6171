// The rewrite cache: the device's one store of shader rewrites, with one key. A rewrite is
// computed once for everything its output depends on — the module's words, and what the
// rewrite options are made of: the layout's root, the device's features, the stage's bind
// point, entry point and bounds checks (StageRewriteKey, stage_options.h) — and found again
// by them: a second pipeline from the same module and layout, from an identical module
// created again, or through another layout whose root is the same, costs a lookup. Words
// count by content: the key holds their hash and length, and an entry answers only for the
// very words it was made from (compared where they are not the same vector), so no
// collision hands back another module's rewrite. Pipeline creation is not a hot path: one
// mutex.
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
  // The words it was made from (a module's own, shared with its ModuleEntry while the
  // module lives).
  std::shared_ptr<const std::vector<uint32_t>> source;
  std::string error;                  // the module could not be read
  bool converted = false;
  std::string reason;                 // report.reason when not converted
  std::vector<uint32_t> module;       // the rewritten module (empty when not converted)
  spirv::RewriteReport report;
  // The rewritten module as a shader module of the layer below, made on first use and
  // kept until the device goes or the entry is trimmed (stage_rewriter.cpp): a second
  // pipeline from it hands the driver the same module, which its own pipeline cache
  // recognises.
  mutable std::mutex driver_module_mutex;
  mutable VkShaderModule driver_module = VK_NULL_HANDLE;
  mutable uint64_t last_use = 0;  // the cache's clock at its last Get (under the cache's mutex)
  // bindings_validate: the validator's verdict per specialization (its map and data as
  // bytes), so a module is validated once per distinct specialization.
  mutable std::mutex verdict_mutex;
  mutable std::vector<std::pair<std::string, spirv::RewriteVerdict>> verdicts;
};

// The hash the cache keys words by (a module's is made once: ModuleEntry::WordsHash).
uint64_t WordsHash(const std::vector<uint32_t>& words);

class RewriteCache {
 public:
  // The rewrite of `words` under the options `options()` gives, found by `key`: the words'
  // part (AppendWordsKey) followed by one that says everything those options hold
  // (StageRewriteKey; the overload below: OptionsKey). On a miss it is made from `parse`, a
  // parse of the same words that the caller's inspection may have made already
  // (spirv::ModuleParse: one parse for both), and `options()` is called; `hit` tells which.
  template <typename MakeOptions>
  std::shared_ptr<const CachedRewrite> Get(const std::shared_ptr<const std::vector<uint32_t>>& words,
                                           const std::string& key, MakeOptions&& options, spirv::ModuleParse& parse,
                                           bool* hit) {
    if (std::shared_ptr<const CachedRewrite> found = Find(key, words)) {
      *hit = true;
      return found;
    }
    *hit = false;
    return Keep(key, words, Rewrite(words, options(), parse));
  }
  // The key's first part, appended to *key: the words' hash (`words_hash`: WordsHash) and length.
  static void AppendWordsKey(const std::vector<uint32_t>& words, uint64_t words_hash, std::string* key);
  std::shared_ptr<const CachedRewrite> Get(const std::shared_ptr<const std::vector<uint32_t>>& words,
                                           uint64_t words_hash, const spirv::RewriteOptions& options,
                                           spirv::ModuleParse& parse, bool* hit);
  std::size_t size() const;
  // Bounded memory: entries nothing else holds (their module destroyed, no pipeline being
  // created from them) beyond the kKeptUnused most recently used are dropped, `destroy`
  // called for each (its driver module). Identical modules created again soon still hit.
  static constexpr std::size_t kKeptUnused = 64;
  template <typename Fn>
  void TrimUnused(Fn&& destroy) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (entries_.size() <= kKeptUnused) return;
    std::vector<std::pair<uint64_t, const std::string*>> unused;
    UnusedLocked(&unused);
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
  // The entry of `key` made from `words` (or words equal to them), else nullptr.
  std::shared_ptr<const CachedRewrite> Find(const std::string& key,
                                            const std::shared_ptr<const std::vector<uint32_t>>& words);
  static std::shared_ptr<CachedRewrite> Rewrite(const std::shared_ptr<const std::vector<uint32_t>>& words,
                                                const spirv::RewriteOptions& options, spirv::ModuleParse& parse);
  // `made` kept under `key`, unless another thread kept the same meanwhile (then that one).
  std::shared_ptr<const CachedRewrite> Keep(const std::string& key,
                                            const std::shared_ptr<const std::vector<uint32_t>>& words,
                                            std::shared_ptr<CachedRewrite> made);

  // The entries nothing holds but the cache: no pipeline is being made from them, and no
  // module's entry holds their words (each entry holds one reference to them), with their
  // last use and key.
  void UnusedLocked(std::vector<std::pair<uint64_t, const std::string*>>* out) const;

  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const CachedRewrite>> entries_;
  uint64_t clock_ = 0;
};

// The options' part of the key (every field that changes the output; the dump names its
// files by it too, rewrite_dump.h).
std::string OptionsKey(const spirv::RewriteOptions& options);
// The same key appended to *out (a caller may reuse one string for every lookup).
void AppendOptionsKey(const spirv::RewriteOptions& options, std::string* out);

}  // namespace bindery::bindings
