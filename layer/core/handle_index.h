// HandleIndex: a handle -> pointer index that the record path reads without a lock and
// without thread-local storage.
//
// Why not a per-thread cache: the layer is dlopened, so its thread-local storage is
// usually in glibc's dynamic TLS, and each access costs a call into the dynamic linker
// (~17 instructions of __tls_get_addr's fast path, core/thread_local.h); on a push or a
// draw that was more than the layer's own work. A reader here costs one hash and, almost
// always, one probe.
//
// Readers: lock-free. Writers (allocate / free of the handles, never on the record path)
// serialise on a mutex. Open addressing with linear probing, kept sparse (at most a quarter
// of the slots live, so a hit is almost always the first probe); an erased entry leaves a
// tombstone so that probes for other keys still pass it. When tombstones pile up the
// table is rebuilt in place inside a sequence-counter window (readers that overlap it
// retry); when live entries pass a quarter of the capacity a larger table is published
// and the old one is retired but kept (a reader may still be probing it; it stays a
// correct answer for every handle live before the switch), so memory is at most about
// twice the largest table. Tables are never freed: the index lives as long as the
// process (one per kind of handle, a namespace-scope object with a trivial destructor);
// an index a device owns frees them at the device's destruction (FreeTables).
//
// A value found for a handle being erased on another thread is the application's race
// (freeing a handle requires external synchronisation against its use), as everywhere.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace bindery {

template <typename Value>
class HandleIndex {
 public:
  constexpr HandleIndex() = default;

  Value* Find(const void* handle) const {
    const auto key = reinterpret_cast<uintptr_t>(handle);
    for (;;) {
      const Table* t = table_.load(std::memory_order_acquire);
      const uint64_t seq = t->seq.load(std::memory_order_acquire);
      Value* found = nullptr;
      for (std::size_t i = Home(*t, key);; i = (i + 1) & t->mask) {
        const uintptr_t k = t->slots[i].key.load(std::memory_order_acquire);
        if (k == key) {
          found = t->slots[i].value.load(std::memory_order_relaxed);
          break;
        }
        if (k == kEmpty) break;
      }
      // An even count unchanged across the probe: no rebuild overlapped it. No fence is
      // needed (ThreadSanitizer does not support fences): every key a rebuild stores is a
      // release store made after it made the count odd, and this thread loaded each key
      // it probed with acquire before loading the count again (a load after an acquire
      // load cannot be moved before it), so a probe that saw any key of the rebuild sees
      // the count changed.
      if ((seq & 1) == 0 && t->seq.load(std::memory_order_relaxed) == seq) return found;
    }
  }

  // Adds or replaces the entry of `handle` (non-null).
  void Insert(const void* handle, Value* value) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto key = reinterpret_cast<uintptr_t>(handle);
    Table* t = table_.load(std::memory_order_relaxed);
    // At most a quarter live and half taken (live or tombstones): a hit is almost always
    // the first probe.
    if (t == &kNoTable || (t->live + 1) * 4 > t->mask + 1) {
      t = Grow(t);
    } else if ((t->live + t->tombstones + 1) * 2 > t->mask + 1) {
      RebuildInPlace(*t);
    }
    std::size_t reuse = SIZE_MAX;  // the first tombstone on the probe path
    std::size_t i = Home(*t, key);
    for (;; i = (i + 1) & t->mask) {
      const uintptr_t k = t->slots[i].key.load(std::memory_order_relaxed);
      if (k == key) {
        t->slots[i].value.store(value, std::memory_order_release);
        return;
      }
      if (k == kTombstone && reuse == SIZE_MAX) reuse = i;
      if (k == kEmpty) break;
    }
    if (reuse != SIZE_MAX) {
      i = reuse;
      --t->tombstones;
    }
    // The value before the key: a reader that sees the key sees its value.
    t->slots[i].value.store(value, std::memory_order_relaxed);
    t->slots[i].key.store(key, std::memory_order_release);
    ++t->live;
  }

  void Erase(const void* handle) {
    std::lock_guard<std::mutex> lock(mutex_);
    Table* t = table_.load(std::memory_order_relaxed);
    const auto key = reinterpret_cast<uintptr_t>(handle);
    for (std::size_t i = Home(*t, key);; i = (i + 1) & t->mask) {
      const uintptr_t k = t->slots[i].key.load(std::memory_order_relaxed);
      if (k == kEmpty) return;
      if (k == key) {
        t->slots[i].key.store(kTombstone, std::memory_order_release);
        t->slots[i].value.store(nullptr, std::memory_order_relaxed);
        --t->live;
        ++t->tombstones;
        return;
      }
    }
  }

  // Frees every table; the index is empty afterwards (and may be filled again). Only for an
  // index no reader can still be probing: one a device owns, at that device's destruction
  // (nothing may use the device's handles then). The process-wide indexes never call it.
  void FreeTables() {
    std::lock_guard<std::mutex> lock(mutex_);
    Table* t = table_.load(std::memory_order_relaxed);
    table_.store(&kNoTable, std::memory_order_release);
    while (t != &kNoTable && t != nullptr) {
      Table* retired = t->retired;
      delete[] t->slots;
      delete t;
      t = retired;
    }
  }

  // For tests: the live entries and the slots of the current table.
  std::size_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return table_.load(std::memory_order_relaxed)->live;
  }
  std::size_t capacity() const {
    std::lock_guard<std::mutex> lock(mutex_);
    const Table* t = table_.load(std::memory_order_relaxed);
    return t == &kNoTable ? 0 : t->mask + 1;
  }

 private:
  static constexpr uintptr_t kEmpty = 0;
  static constexpr uintptr_t kTombstone = 1;  // no handle is 1 (dispatchable handles are pointers)
  static constexpr std::size_t kFirstCapacity = 64;

  struct Slot {
    std::atomic<uintptr_t> key{kEmpty};
    std::atomic<Value*> value{nullptr};
  };
  struct Table {
    constexpr Table(std::size_t capacity, Slot* slot_array) : mask(capacity - 1), slots(slot_array) {}
    std::atomic<uint64_t> seq{0};  // odd while a rebuild in place runs
    const std::size_t mask;
    Slot* const slots;
    std::size_t live = 0;        // written under the mutex only
    std::size_t tombstones = 0;  // likewise
    Table* retired = nullptr;    // the table this one replaced (kept: readers may be in it)
  };

  // Multiplicative hashing (handles are aligned pointers: their low bits carry nothing);
  // the product's bits from 32 up, masked: a shift by a constant, so the hook needs no
  // register for a variable shift count.
  static std::size_t Home(const Table& t, uintptr_t key) {
    return static_cast<std::size_t>((static_cast<uint64_t>(key) * 0x9E3779B97F4A7C15ull) >> 32) & t.mask;
  }

  static void Place(Table& t, uintptr_t key, Value* value) {
    std::size_t i = Home(t, key);
    while (t.slots[i].key.load(std::memory_order_relaxed) != kEmpty) i = (i + 1) & t.mask;
    t.slots[i].value.store(value, std::memory_order_relaxed);
    t.slots[i].key.store(key, std::memory_order_release);
    ++t.live;
  }

  Table* Grow(Table* old) {
    std::size_t capacity = kFirstCapacity;
    while (capacity < (old->live + 1) * 8) capacity *= 2;
    auto* t = new Table(capacity, new Slot[capacity]);
    if (old != &kNoTable) {
      for (std::size_t i = 0; i <= old->mask; ++i) {
        const uintptr_t k = old->slots[i].key.load(std::memory_order_relaxed);
        if (k != kEmpty && k != kTombstone) Place(*t, k, old->slots[i].value.load(std::memory_order_relaxed));
      }
    }
    t->retired = old != &kNoTable ? old : nullptr;
    table_.store(t, std::memory_order_release);
    return t;
  }

  // Drops the tombstones; readers overlapping it see an odd or changed count and retry.
  static void RebuildInPlace(Table& t) {
    std::vector<std::pair<uintptr_t, Value*>> live;
    live.reserve(t.live);
    for (std::size_t i = 0; i <= t.mask; ++i) {
      const uintptr_t k = t.slots[i].key.load(std::memory_order_relaxed);
      if (k != kEmpty && k != kTombstone) live.emplace_back(k, t.slots[i].value.load(std::memory_order_relaxed));
    }
    const uint64_t seq = t.seq.load(std::memory_order_relaxed);
    t.seq.store(seq + 1, std::memory_order_relaxed);
    // Release stores of the keys (here and in Place): a reader that loads one (acquire)
    // also sees the odd count stored before it (Find).
    for (std::size_t i = 0; i <= t.mask; ++i) t.slots[i].key.store(kEmpty, std::memory_order_release);
    t.live = 0;
    t.tombstones = 0;
    for (const auto& [k, v] : live) Place(t, k, v);
    t.seq.store(seq + 2, std::memory_order_release);
  }

  // Before the first insert: one empty slot, so a probe ends at once (and the hook needs
  // no test for a missing table).
  static inline Slot kNoSlot[1] = {};
  static inline Table kNoTable{1, kNoSlot};
  std::atomic<Table*> table_{&kNoTable};
  mutable std::mutex mutex_;
};

}  // namespace bindery
