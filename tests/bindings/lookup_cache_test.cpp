// LookupCache (layer/bindings/model/lookup_cache.h): whatever order handles are looked up
// in, across devices whose handles coincide and across erasures, the cache answers what
// the map answers. The inline paths (the entry after the last hit, the entry the last scan
// found) are taken by the sequences below: sets' buffers written again and again in their
// order, interleaved with other sets and with random lookups.
#include "bindings/model/lookup_cache.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <vector>

namespace bindery::bindings {
namespace {

using Handle = const void*;

// A map as the cache reads it: Find(handle) -> Value* (stable), nullptr when unknown.
struct FakeMap {
  std::map<Handle, int*> values;
  int* Find(Handle h) const {
    auto it = values.find(h);
    return it == values.end() ? nullptr : it->second;
  }
};

Handle HandleOf(uintptr_t n) { return reinterpret_cast<Handle>(n * 16); }

TEST(LookupCacheTest, AnswersWhatTheMapAnswersForEverySequence) {
  std::mt19937 rng(1234);
  std::vector<int> storage(2 * 64);
  FakeMap maps[2];  // two devices with the same handles and other values
  for (uintptr_t n = 1; n <= 48; ++n) {
    maps[0].values[HandleOf(n)] = &storage[n];
    maps[1].values[HandleOf(n)] = &storage[64 + n];
  }
  LookupCache<Handle, int, 8> cache;
  // Sets of 1 to 6 buffers, each written in its order.
  std::vector<std::vector<uintptr_t>> sets;
  for (int s = 0; s < 12; ++s) {
    std::vector<uintptr_t> set;
    const int count = 1 + static_cast<int>(rng() % 6);
    for (int i = 0; i < count; ++i) set.push_back(1 + rng() % 60);  // some handles unknown (> 48)
    sets.push_back(set);
  }
  int checked = 0;
  for (int step = 0; step < 20000; ++step) {
    const int device = static_cast<int>(rng() % 8 == 0);  // mostly device 0
    const uint32_t what = rng() % 16;
    std::vector<uintptr_t> lookups;
    if (what < 10) {
      const auto& set = sets[rng() % (what < 6 ? 2 : sets.size())];  // two sets most often
      const int repeats = 1 + static_cast<int>(rng() % 3);
      for (int r = 0; r < repeats; ++r) lookups.insert(lookups.end(), set.begin(), set.end());
    } else if (what < 15) {
      lookups.push_back(rng() % 62);  // 0: the null handle
    } else {
      // Erase or add a handle, then bump the generation, as the hooks that erase do.
      const Handle h = HandleOf(1 + rng() % 48);
      for (FakeMap& m : maps) {
        if (m.values.count(h) != 0 && rng() % 2 == 0) {
          m.values.erase(h);
        } else {
          m.values[h] = &storage[rng() % storage.size()];
        }
      }
      InvalidateLookupCaches();
    }
    for (uintptr_t n : lookups) {
      const Handle h = n == 0 ? Handle{} : HandleOf(n);
      ASSERT_EQ(cache.Find(&maps[device], maps[device], h), maps[device].Find(h))
          << "step " << step << ", handle " << n << ", device " << device;
      ++checked;
    }
  }
  EXPECT_GT(checked, 50000);
}

}  // namespace
}  // namespace bindery::bindings
