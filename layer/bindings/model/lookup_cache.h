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

// Call after erasing a handle from any map read through a LookupCache.
inline void InvalidateLookupCaches() { g_lookup_generation.fetch_add(1, std::memory_order_acq_rel); }

// The kWays handles of one kind found last (scanned in full, so a set's few buffers never
// evict each other as they could in a direct-mapped cache). `owner` tells devices apart
// (their handles may coincide). Unknown handles (nullptr) are not cached.
template <typename Handle, typename Value, std::size_t kWays>
class LookupCache {
 public:
  // Inline: the entry after the last hit, where the next handle usually is (a set's
  // buffers are written in the same order each time and were cached in that order), then
  // the entry where the last scan found one (the first buffer of the set written again:
  // the hint then points past its last); anything else scans out of line.
  template <typename Map>
  Value* Find(const void* owner, const Map& map, Handle handle) {
    static_assert((kWays & (kWays - 1)) == 0, "kWays: a power of two");
    const uint64_t generation = g_lookup_generation.load(std::memory_order_acquire);
    if (generation_ == generation && handle != Handle{}) {
      std::size_t i = hint_;
      if (handles_[i] != handle || owners_[i] != owner) i = restart_;
      if (handles_[i] == handle && owners_[i] == owner) {
        hint_ = (i + 1) & (kWays - 1);
        return values_[i];
      }
    }
    return Scan(owner, map, handle, generation);
  }

 private:
  template <typename Map>
  [[gnu::noinline]] Value* Scan(const void* owner, const Map& map, Handle handle, uint64_t generation) {
    if (generation_ != generation) {
      for (std::size_t i = 0; i < kWays; ++i) handles_[i] = Handle{};
      generation_ = generation;
    }
    // The handles alone are scanned (one cache line for 8 of them); a null handle is never
    // cached, so an emptied entry never matches.
    for (std::size_t i = 0; i < kWays; ++i) {
      if (handles_[i] == handle && owners_[i] == owner && handle != Handle{}) {
        hint_ = (i + 1) & (kWays - 1);
        restart_ = i;
        return values_[i];
      }
    }
    Value* value = map.Find(handle);
    if (value != nullptr) {
      restart_ = next_;
      handles_[next_] = handle;
      owners_[next_] = owner;
      values_[next_] = value;
      next_ = (next_ + 1) & (kWays - 1);
      hint_ = next_;
    }
    return value;
  }

  uint64_t generation_ = 0;
  std::size_t next_ = 0;  // the entry the next miss replaces (round robin)
  std::size_t hint_ = 0;     // the entry Find tries first: after the last hit or fill
  std::size_t restart_ = 0;  // the entry Find tries next: the last one Scan found or filled
  Handle handles_[kWays] = {};
  const void* owners_[kWays] = {};
  Value* values_[kWays] = {};
};

}  // namespace bindery::bindings
