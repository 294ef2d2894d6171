// The rewrite cache shared by every thread creating pipelines on a device: threads asking
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
        std::shared_ptr<const CachedRewrite> r = cache.Get(modules[m], options, &hit);
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

}  // namespace
}  // namespace bindery::bindings
