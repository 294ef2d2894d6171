// The rewrite cache (one key: the module's words and the rewrite options) and its sharing by
// every thread. The threads test: the rewrite cache shared by every thread creating pipelines on a device: threads asking
// for the same modules and for new ones at once, while unused entries are trimmed (as
// vkDestroyShaderModule does on another thread). Each answer is the module's rewrite (the
// same words for the same module, whichever thread computed it); ThreadSanitizer checks the
// entries' publication and the trim (scripts/test step 3b).
#include "bindings/pipelines/rewrite_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <iterator>
#include <mutex>
#include <thread>
#include <vector>

#include "ssbo_copy_comp.h"

namespace bindery::bindings {
namespace {

TEST(RewriteCacheThreads, ConcurrentGetsAndTrims) {
  spirv::RewriteOptions options;
  options.target = spirv::TargetEnv::kVulkan1_0;
  options.sets = {spirv::SetLayout{0, 0, {{0, 1, 0}, {1, 1, 1}}, false}};
  // More modules than the cache keeps unused, so trims drop some while threads ask again.
  constexpr uint32_t kModules = RewriteCache::kKeptUnused + 16, kThreads = 4;
  std::vector<std::vector<uint32_t>> modules;
  for (uint32_t m = 0; m < kModules; ++m) {
    modules.emplace_back(std::begin(ssbo_copy_comp), std::end(ssbo_copy_comp));
    modules.back()[2] = 0x42440000u + m;  // another generator word: another module, the same meaning
  }
  RewriteCache cache;
  std::vector<std::vector<uint32_t>> first(kModules);  // the first rewrite seen of each module
  std::mutex first_mutex;
  std::atomic<int> wrong{0};
  std::atomic<bool> stop{false};
  std::atomic<long> trimmed{0};
  std::thread trimmer([&] {
    while (!stop.load()) cache.TrimUnused([&](const CachedRewrite&) { trimmed.fetch_add(1); });
  });
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (uint32_t i = 0; i < 2 * kModules; ++i) {
        const uint32_t m = (i * (t + 1) + t * 7) % kModules;
        bool hit = false;
        // A copy each time: an identical module made again (or inline code), which the cache
        // finds by content; nothing holds it once the call returns, so trims may drop it.
        const auto words = std::make_shared<const std::vector<uint32_t>>(modules[m]);
        spirv::ModuleParse parse(words->data(), words->size());
        std::shared_ptr<const CachedRewrite> r = cache.Get(words, WordsHash(*words), options, parse, &hit);
        if (!r->error.empty() || !r->converted || r->module.empty()) {
          wrong.fetch_add(1);
          continue;
        }
        std::lock_guard<std::mutex> lock(first_mutex);
        if (first[m].empty()) first[m] = r->module;
        else if (first[m] != r->module) wrong.fetch_add(1);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  stop = true;
  trimmer.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_LE(cache.size(), kModules);
  cache.TrimUnused([&](const CachedRewrite&) { trimmed.fetch_add(1); });
  EXPECT_LE(cache.size(), RewriteCache::kKeptUnused) << "nothing holds the entries now: at most the kept ones stay";
  EXPECT_GT(trimmed.load(), 0);
}

// One key for everything the output depends on: the same words under the same options hit
// (whether or not they are the same vector), other options miss, and words under another
// module's hash (a collision, forced here) never get that module's rewrite.
TEST(RewriteCache, OneKeyWordsByContentAndOptions) {
  spirv::RewriteOptions options;
  options.target = spirv::TargetEnv::kVulkan1_0;
  options.sets = {spirv::SetLayout{0, 0, {{0, 1, 0}, {1, 1, 1}}, false}};
  const auto a = std::make_shared<const std::vector<uint32_t>>(std::begin(ssbo_copy_comp), std::end(ssbo_copy_comp));
  const auto a_again = std::make_shared<const std::vector<uint32_t>>(*a);
  std::vector<uint32_t> other(*a);
  other[2] = 0x42440000u;  // another generator word: other words
  const auto b = std::make_shared<const std::vector<uint32_t>>(other);
  RewriteCache cache;
  auto get = [&](const std::shared_ptr<const std::vector<uint32_t>>& words, uint64_t hash,
                 const spirv::RewriteOptions& o, bool* hit) {
    spirv::ModuleParse parse(words->data(), words->size());
    return cache.Get(words, hash, o, parse, hit);
  };
  bool hit = true;
  const auto first = get(a, WordsHash(*a), options, &hit);
  EXPECT_FALSE(hit);
  ASSERT_TRUE(first->converted) << first->reason << first->error;
  EXPECT_EQ(get(a, WordsHash(*a), options, &hit), first);
  EXPECT_TRUE(hit);
  EXPECT_EQ(get(a_again, WordsHash(*a_again), options, &hit), first) << "identical words share the rewrite";
  EXPECT_TRUE(hit);
  spirv::RewriteOptions checked = options;
  checked.bounds_checks = true;
  const auto with_checks = get(a, WordsHash(*a), checked, &hit);
  EXPECT_FALSE(hit);
  EXPECT_NE(with_checks->module, first->module);
  const auto collided = get(b, WordsHash(*a), options, &hit);
  EXPECT_FALSE(hit) << "other words under the same hash";
  EXPECT_EQ(collided->source, b);
  EXPECT_EQ(get(a, WordsHash(*a), options, &hit), first) << "the key stays the first words'";
  EXPECT_EQ(cache.size(), 2u);
}

// An entry whose module lives (its ModuleEntry holds the words) is never trimmed; once the
// module goes, only the kKeptUnused most recently used stay.
TEST(RewriteCache, TrimKeepsTheRewritesOfLiveModules) {
  spirv::RewriteOptions options;
  options.target = spirv::TargetEnv::kVulkan1_0;
  options.sets = {spirv::SetLayout{0, 0, {{0, 1, 0}, {1, 1, 1}}, false}};
  constexpr uint32_t kModules = RewriteCache::kKeptUnused + 8;
  std::vector<std::shared_ptr<const std::vector<uint32_t>>> live;
  RewriteCache cache;
  for (uint32_t m = 0; m < kModules; ++m) {
    std::vector<uint32_t> words(std::begin(ssbo_copy_comp), std::end(ssbo_copy_comp));
    words[2] = 0x42440000u + m;
    live.push_back(std::make_shared<const std::vector<uint32_t>>(std::move(words)));
    for (bool checks : {false, true}) {  // two entries of one module: both held by it
      spirv::RewriteOptions o = options;
      o.bounds_checks = checks;
      bool hit = false;
      spirv::ModuleParse parse(live.back()->data(), live.back()->size());
      cache.Get(live.back(), WordsHash(*live.back()), o, parse, &hit);
    }
  }
  int trimmed = 0;
  cache.TrimUnused([&](const CachedRewrite&) { ++trimmed; });
  EXPECT_EQ(trimmed, 0);
  EXPECT_EQ(cache.size(), 2 * kModules);
  live.clear();
  cache.TrimUnused([&](const CachedRewrite&) { ++trimmed; });
  EXPECT_EQ(cache.size(), RewriteCache::kKeptUnused);
  EXPECT_EQ(trimmed, static_cast<int>(2 * kModules - RewriteCache::kKeptUnused));
}

}  // namespace
}  // namespace bindery::bindings
