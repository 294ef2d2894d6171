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
// must see it whole through the map alone (ThreadSanitizer checks it by happens-before,
// whatever the timing: scripts/test step 3b), while other devices' keys come and go in the
// slots around it. Readers look up only keys that are not being removed, as the map's
// contract asks (a device used while it is destroyed is the application's race). Once the
// writer is done each reader makes one more whole pass, so every reader reads every
// published state however the threads were scheduled. Both forms: the registry's map and
// the record path's slots (which refuse a key whose slot is taken).
struct PublishedState {
  int id = 0;
  int twice = 0;
};

template <typename Map>
void PublishWhileOthersRead(Map& map) {
  constexpr int kPublished = 40, kChurn = 8, kRounds = 50;
  static char keys[kPublished], churn_keys[kChurn];  // stand-ins for dispatch keys (their addresses)
  std::vector<std::unique_ptr<PublishedState>> states(kPublished);
  PublishedState churn_state;
  std::atomic<bool> writer_done{false};
  std::atomic<int> wrong{0};
  std::vector<int> seen_after(2, 0);
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t) {
    readers.emplace_back([&, t] {
      const auto probe = [&](int k) {
        const PublishedState* s = map.Find(&keys[k]);
        if (s != nullptr && (s->twice != 2 * s->id || s->id != k)) wrong.fetch_add(1);
        return s != nullptr;
      };
      for (int k = t; !writer_done.load(); k = (k + 5) % kPublished) probe(k);
      for (int k = 0; k < kPublished; ++k) seen_after[t] += probe(k) ? 1 : 0;
    });
  }
  int published = 0;
  for (int k = 0; k < kPublished; ++k) {
    for (int round = 0; round < kRounds; ++round) {
      for (char& c : churn_keys) map.Insert(&c, &churn_state);
      for (char& c : churn_keys) map.Erase(&c);
    }
    auto s = std::make_unique<PublishedState>();
    s->id = k;
    s->twice = 2 * k;
    if (map.Insert(&keys[k], s.get())) ++published;
    states[k] = std::move(s);
  }
  writer_done.store(true);
  for (auto& r : readers) r.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(published, 0);
  for (int t = 0; t < 2; ++t) EXPECT_EQ(seen_after[t], published) << "reader " << t;
  for (int k = 0; k < kPublished; ++k) map.Erase(&keys[k]);
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
