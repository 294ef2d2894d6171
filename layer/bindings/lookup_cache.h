// Per-thread caches in front of the device's sharded maps, for the handles the record
// path looks up again and again: the pipeline layout of every bind and push, the set
// layout and pool of every allocation, the buffers of every descriptor write. A hit costs
// a few compares and no lock (the sharded maps lock a shard per lookup: ~18% of the
// recording time before these caches).
//
// Correctness: a cached value is the map's own (stable) pointer. A cache entry can only
// go stale when its handle is destroyed, so every hook that erases from a cached map
// bumps one process-wide generation *after* erasing, and an entry is used only while the
// generation is the one it was filled under. (A value found while its handle is being
// destroyed on another thread is the application's race, forbidden by the spec.)
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace bindery::bindings {

inline std::atomic<uint64_t> g_lookup_generation{0};

// Call after erasing a handle from any map read through CachedFind.
inline void InvalidateLookupCaches() { g_lookup_generation.fetch_add(1, std::memory_order_acq_rel); }

// map.Find(handle) through a per-thread, direct-mapped cache of kWays entries (one set of
// entries per Value type). `owner` tells devices apart (their handles may coincide).
// Unknown handles (nullptr) are not cached.
template <std::size_t kWays, typename Map, typename Handle>
auto CachedFind(const void* owner, const Map& map, Handle handle) -> decltype(map.Find(handle)) {
  using Value = decltype(map.Find(handle));
  struct Entry {
    const void* owner;
    Handle handle;
    Value value;
    uint64_t generation;
  };
  static thread_local Entry entries[kWays] = {};
  const uint64_t generation = g_lookup_generation.load(std::memory_order_acquire);
  const uint64_t bits = reinterpret_cast<uint64_t>(handle);
  Entry& e = entries[kWays == 1 ? 0 : ((bits >> 4) ^ (bits >> 12)) % kWays];
  if (e.handle == handle && e.owner == owner && e.generation == generation && e.value != nullptr) return e.value;
  Value value = map.Find(handle);
  if (value != nullptr) e = Entry{owner, handle, value, generation};
  return value;
}

}  // namespace bindery::bindings
