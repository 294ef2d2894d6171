// A map keyed by SPIR-V id, stored as vectors indexed by the id. Ids are dense below a
// module's bound (and the rewrite takes new ones just above it), so a lookup is an index
// rather than a hash, and an entry costs no allocation of its own (std::unordered_map
// allocated a node per entry, a visible share of a small module's rewrite). Clear() resets
// only the entries set since the last Clear(), so a map emptied per function stays cheap.
// It grows only to the largest id set (a module's bound may be in the millions while the
// few ids a map holds are small).
// The vectors come from a per-thread pool and go back to it when the map dies, so the
// maps of one rewrite after another allocate nothing once a thread has seen a module.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "spirv/thread_scratch.h"

namespace bindery::spirv {

// Emptied vectors kept per thread for the next user. Every element of a pooled vector is
// T{} (users give back what they reset), so a user may resize without refilling.
template <typename T>
class ThreadVectorPool {
 public:
  static std::vector<T> Take() {
    std::vector<std::vector<T>>* pool = Pool::Get();
    if (pool == nullptr || pool->empty()) return {};
    std::vector<T> v = std::move(pool->back());
    pool->pop_back();
    return v;
  }
  // `v` must hold only T{}; vectors of huge modules are not kept.
  static void Give(std::vector<T>&& v) {
    std::vector<std::vector<T>>* pool = Pool::Get();
    if (pool == nullptr || v.capacity() == 0 || v.capacity() > kKeepElements || pool->size() >= kKeepVectors) return;
    pool->push_back(std::move(v));
  }

 private:
  static constexpr std::size_t kKeepElements = std::size_t{1} << 16;
  static constexpr std::size_t kKeepVectors = 32;
  // Null after the thread's teardown (thread_scratch.h): vectors are then made and freed.
  using Pool = ThreadScratch<std::vector<std::vector<T>>, ThreadVectorPool<T>>;
};

// A member or local vector backed by the pool: TakePooled gives it a pooled vector's
// storage, emptied (so it starts as a fresh vector would); GivePooled empties it and hands
// the storage back. Per-rewrite tables use these so a thread's next rewrite reuses them.
template <typename T>
void TakePooled(std::vector<T>* v) {
  *v = ThreadVectorPool<T>::Take();
  v->clear();
}
template <typename T>
void GivePooled(std::vector<T>* v) {
  v->clear();
  ThreadVectorPool<T>::Give(std::move(*v));
}

// A local scratch vector from the pool for one call, handed back on every return path.
template <typename T>
struct PooledScratch {
  PooledScratch() { TakePooled(&v); }
  ~PooledScratch() { GivePooled(&v); }
  PooledScratch(const PooledScratch&) = delete;
  PooledScratch& operator=(const PooledScratch&) = delete;
  std::vector<T> v;
};

template <typename T>
class IdMap {
 public:
  IdMap() : values_(ThreadVectorPool<T>::Take()), present_(ThreadVectorPool<uint8_t>::Take()) {
    present_.resize(values_.size(), 0);  // the two pooled vectors may differ in size
    TakePooled(&set_);
  }
  ~IdMap() {
    Clear();
    ThreadVectorPool<T>::Give(std::move(values_));
    ThreadVectorPool<uint8_t>::Give(std::move(present_));
    GivePooled(&set_);
  }
  IdMap(const IdMap&) = delete;
  IdMap& operator=(const IdMap&) = delete;

  // The value of `id`, or nullptr. Any word may be asked (ids of malformed input too).
  const T* Find(uint32_t id) const { return Contains(id) ? &values_[id] : nullptr; }
  bool Contains(uint32_t id) const { return id < present_.size() && present_[id] != 0; }
  // The value of `id`, default-constructed when new (grows the map past its bound).
  T& operator[](uint32_t id) {
    if (id >= values_.size()) Grow(std::max<std::size_t>(std::size_t{id} + 1, values_.size() + values_.size() / 2));
    if (!present_[id]) {
      present_[id] = 1;
      set_.push_back(id);
    }
    return values_[id];
  }
  bool empty() const { return set_.empty(); }
  void Clear() {
    for (uint32_t id : set_) {
      present_[id] = 0;
      values_[id] = T{};
    }
    set_.clear();
  }

 private:
  void Grow(std::size_t size) {
    values_.resize(std::max(size, values_.size()));
    present_.resize(values_.size(), 0);
  }
  std::vector<T> values_;
  std::vector<uint8_t> present_;
  std::vector<uint32_t> set_;  // ids set since the last Clear
};

}  // namespace bindery::spirv
