#include "core/handle_index.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

namespace bindery {
namespace {

// Handles are aligned pointers; these stand in for them.
const void* Handle(uintptr_t i) { return reinterpret_cast<const void*>(0x10000 + i * 64); }

TEST(HandleIndex, InsertFindReplaceErase) {
  static HandleIndex<int> index;  // tables live as long as the process, as in the layer (never freed)
  int a = 1, b = 2;
  EXPECT_EQ(index.Find(Handle(1)), nullptr) << "an empty index finds nothing";
  index.Insert(Handle(1), &a);
  index.Insert(Handle(2), &b);
  EXPECT_EQ(index.Find(Handle(1)), &a);
  EXPECT_EQ(index.Find(Handle(2)), &b);
  EXPECT_EQ(index.Find(Handle(3)), nullptr);
  index.Insert(Handle(1), &b);
  EXPECT_EQ(index.Find(Handle(1)), &b) << "a handle inserted again replaces its value";
  EXPECT_EQ(index.size(), 2u);
  index.Erase(Handle(1));
  EXPECT_EQ(index.Find(Handle(1)), nullptr);
  EXPECT_EQ(index.Find(Handle(2)), &b);
  index.Erase(Handle(1));
  EXPECT_EQ(index.size(), 1u) << "erasing twice changes nothing";
}

// An index a device owns (its query pools) frees its tables when the device goes; it can be
// filled again (LeakSanitizer in scripts/test checks that every table went).
TEST(HandleIndex, FreeTablesEmptiesAnOwnedIndex) {
  HandleIndex<int> index;
  std::vector<int> values(300);  // grows twice: the retired tables go too
  for (uintptr_t i = 0; i < values.size(); ++i) index.Insert(Handle(i), &values[i]);
  index.FreeTables();
  EXPECT_EQ(index.size(), 0u);
  EXPECT_EQ(index.capacity(), 0u);
  EXPECT_EQ(index.Find(Handle(1)), nullptr);
  index.Insert(Handle(1), &values[1]);
  EXPECT_EQ(index.Find(Handle(1)), &values[1]);
  index.FreeTables();
  index.FreeTables();  // an empty index: nothing to free
}

TEST(HandleIndex, GrowsAndKeepsEveryEntry) {
  static HandleIndex<int> index;  // tables live as long as the process, as in the layer (never freed)
  std::vector<int> values(5000);
  for (uintptr_t i = 0; i < values.size(); ++i) index.Insert(Handle(i), &values[i]);
  EXPECT_EQ(index.size(), values.size());
  EXPECT_GE(index.capacity(), values.size() * 4) << "kept sparse: at most a quarter live";
  for (uintptr_t i = 0; i < values.size(); ++i) ASSERT_EQ(index.Find(Handle(i)), &values[i]) << i;
}

TEST(HandleIndex, ChurnDoesNotGrowTheTable) {
  // Allocate / free cycles leave tombstones; they are cleared in place, so the table does
  // not grow (and retires nothing) while the number of live handles stays the same.
  static HandleIndex<int> index;  // tables live as long as the process, as in the layer (never freed)
  int v = 0;
  for (uintptr_t i = 0; i < 16; ++i) index.Insert(Handle(i), &v);
  const std::size_t capacity = index.capacity();
  for (uintptr_t i = 0; i < 100000; ++i) {  // a window of 16 live handles slides on
    index.Erase(Handle(i));
    index.Insert(Handle(i + 16), &v);
  }
  EXPECT_EQ(index.size(), 16u);
  EXPECT_EQ(index.capacity(), capacity);
  for (uintptr_t i = 100000; i < 100016; ++i) EXPECT_EQ(index.Find(Handle(i)), &v) << i;
}

TEST(HandleIndex, ReadersAlwaysFindTheirHandlesWhileOthersChurn) {
  // Recording threads look up their own command buffers while another thread allocates
  // and frees others (growth, tombstones, rebuilds in place): no lookup may miss.
  static HandleIndex<int> index;  // tables live as long as the process, as in the layer (never freed)
  constexpr int kReaders = 3;
  int mine[kReaders] = {};
  for (int r = 0; r < kReaders; ++r) index.Insert(Handle(1000000 + r), &mine[r]);
  std::atomic<bool> stop{false};
  std::atomic<long> misses{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < kReaders; ++r) {
    readers.emplace_back([&, r] {
      while (!stop.load(std::memory_order_relaxed)) {
        if (index.Find(Handle(1000000 + r)) != &mine[r]) misses.fetch_add(1);
      }
    });
  }
  int other = 0;
  for (uintptr_t i = 0; i < 20000; ++i) {
    index.Insert(Handle(i), &other);
    if (i >= 100) index.Erase(Handle(i - 100));  // about 100 live besides the readers'
  }
  for (uintptr_t i = 0; i < 3000; ++i) index.Insert(Handle(50000 + i), &other);  // growth under readers
  stop = true;
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(misses.load(), 0);
}

TEST(HandleIndex, ConcurrentReadersSeeTheValuesPublishedToThem) {
  // A value is written, then inserted; a reader that finds it must see it whole, through the
  // index alone (ThreadSanitizer checks the publication by happens-before, whatever the
  // timing: scripts/test step 3b). Meanwhile other handles come and go (tombstones,
  // rebuilds in place, growth); readers look up only handles that are not being freed, as
  // the index's contract asks (a handle looked up while it is freed is the application's
  // race). Once the writer is done each reader makes one more whole pass, so every reader
  // reads every published value however the threads were scheduled.
  struct Payload {
    uintptr_t handle = 0;
    uint64_t check = 0;
  };
  static HandleIndex<Payload> index;
  constexpr uintptr_t kPublished = 3000, kBase = 3000000, kChurnBase = 5000000;
  std::vector<std::unique_ptr<Payload>> payloads(kPublished);  // freed at the end only
  Payload churn_value;
  std::atomic<bool> writer_done{false};
  std::atomic<long> wrong{0};
  std::vector<long> seen_after(3, 0);
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&, r] {
      const auto probe = [&](uintptr_t i) {
        const Payload* p = index.Find(Handle(kBase + i));
        if (p != nullptr && (p->handle != kBase + i || p->check != (kBase + i) * 2654435761u)) wrong.fetch_add(1);
        return p != nullptr;
      };
      for (uintptr_t i = static_cast<uintptr_t>(r) * 977; !writer_done.load(); i = (i + 131) % kPublished) probe(i);
      for (uintptr_t i = 0; i < kPublished; ++i) seen_after[r] += probe(i) ? 1 : 0;
    });
  }
  for (uintptr_t i = 0; i < kPublished; ++i) {
    auto p = std::make_unique<Payload>();
    p->handle = kBase + i;
    p->check = (kBase + i) * 2654435761u;
    index.Insert(Handle(kBase + i), p.get());
    payloads[i] = std::move(p);
    index.Insert(Handle(kChurnBase + i), &churn_value);
    if (i >= 100) index.Erase(Handle(kChurnBase + i - 100));  // about 100 of them live
  }
  writer_done = true;
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(wrong.load(), 0);
  for (int r = 0; r < 3; ++r) EXPECT_EQ(seen_after[r], static_cast<long>(kPublished)) << "reader " << r;
}

}  // namespace
}  // namespace bindery
