#include "core/dispatch_map.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

namespace bindery {
namespace {

TEST(DispatchKeyMap, InsertFindErase) {
  DispatchKeyMap<int, 4> map;
  int a = 1, b = 2;
  void* ka = &a;
  void* kb = &b;
  EXPECT_EQ(map.Find(ka), nullptr);
  ASSERT_TRUE(map.Insert(ka, &a));
  ASSERT_TRUE(map.Insert(kb, &b));
  EXPECT_EQ(map.Find(ka), &a);
  EXPECT_EQ(map.Find(kb), &b);
  EXPECT_EQ(map.Size(), 2u);
  EXPECT_EQ(map.Erase(ka), &a);
  EXPECT_EQ(map.Find(ka), nullptr);
  EXPECT_EQ(map.Find(kb), &b);
  EXPECT_EQ(map.Erase(ka), nullptr) << "erasing twice finds nothing";
  EXPECT_EQ(map.Size(), 1u);
}

TEST(DispatchKeyMap, SlotsAreReusedAndCapacityIsReported) {
  DispatchKeyMap<int, 2> map;
  int v[3] = {0, 1, 2};
  ASSERT_TRUE(map.Insert(&v[0], &v[0]));
  ASSERT_TRUE(map.Insert(&v[1], &v[1]));
  EXPECT_FALSE(map.Insert(&v[2], &v[2])) << "full map refuses rather than overwrites";
  map.Erase(&v[0]);
  EXPECT_TRUE(map.Insert(&v[2], &v[2]));
  EXPECT_EQ(map.Find(&v[2]), &v[2]);
  EXPECT_EQ(map.Find(&v[1]), &v[1]);
}

TEST(DispatchKeyMap, ConcurrentReadersSeeStableEntriesWhileOthersChange) {
  DispatchKeyMap<int, 64> map;
  int stable = 7;
  ASSERT_TRUE(map.Insert(&stable, &stable));
  std::atomic<bool> stop{false};
  std::atomic<int> misses{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t) {
    readers.emplace_back([&] {
      while (!stop.load()) {
        if (map.Find(&stable) != &stable) misses.fetch_add(1);
      }
    });
  }
  int churn[16];
  for (int round = 0; round < 2000; ++round) {
    for (int& c : churn) map.Insert(&c, &c);
    for (int& c : churn) map.Erase(&c);
  }
  stop.store(true);
  for (auto& r : readers) r.join();
  EXPECT_EQ(misses.load(), 0);
}

TEST(DispatchKeySlots, OneSlotPerKeyAndACollisionIsRefused) {
  DispatchKeySlots<int, 1> slots;  // two slots: some two of three keys share one
  int v[3] = {0, 1, 2};
  int added = 0;
  for (int& x : v) added += slots.Insert(&x, &x) ? 1 : 0;
  EXPECT_LE(added, 2) << "a taken slot is refused, never overwritten";
  for (int& x : v) {
    int* found = slots.Find(&x);
    EXPECT_TRUE(found == nullptr || found == &x) << "a key finds its own value or nothing";
  }
  for (int& x : v) {
    if (slots.Find(&x) == &x) {
      slots.Erase(&x);
      EXPECT_EQ(slots.Find(&x), nullptr);
      EXPECT_TRUE(slots.Insert(&x, &x)) << "its slot is free again";
      EXPECT_EQ(slots.Find(&x), &x);
      break;
    }
  }
}

// A device's state is written, then published under its dispatch key; readers that find it
// must see it whole through the map alone (ThreadSanitizer checks it: scripts/test step 3b),
// while other keys come and go. Both forms: the registry's map and the record path's slots.
struct PublishedState {
  int id = 0;
  int twice = 0;
};

template <typename Map>
void PublishWhileOthersRead(Map& map) {
  constexpr int kKeys = 48;
  static char keys[kKeys];  // stand-ins for dispatch keys (their addresses)
  std::vector<std::unique_ptr<PublishedState>> states;  // freed at the end only
  std::atomic<bool> stop{false};
  std::atomic<int> wrong{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t) {
    readers.emplace_back([&, t] {
      for (int k = t; !stop.load(std::memory_order_relaxed); k = (k + 5) % kKeys) {
        if (const PublishedState* s = map.Find(&keys[k])) {
          if (s->twice != 2 * s->id || s->id % kKeys != k) wrong.fetch_add(1);
        }
      }
    });
  }
  for (int round = 0; round < 200; ++round) {
    for (int k = 0; k < kKeys; ++k) {
      auto s = std::make_unique<PublishedState>();
      s->id = round * kKeys + k;
      s->twice = 2 * s->id;
      if (map.Insert(&keys[k], s.get())) states.push_back(std::move(s));
    }
    for (int k = 0; k < kKeys; ++k) map.Erase(&keys[k]);
  }
  stop.store(true);
  for (auto& r : readers) r.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_FALSE(states.empty());
}

TEST(DispatchKeyMap, ConcurrentReadersSeeTheStatePublishedToThem) {
  DispatchKeyMap<PublishedState, 64> map;
  PublishWhileOthersRead(map);
}

TEST(DispatchKeySlots, ConcurrentReadersSeeTheStatePublishedToThem) {
  DispatchKeySlots<PublishedState> slots;
  PublishWhileOthersRead(slots);
}

}  // namespace
}  // namespace bindery
