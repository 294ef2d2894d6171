// A map from Vulkan handles (command buffers, buffers, pools) to layer state, split into
// shards that each have their own mutex: a lookup locks one shard for the time of a hash
// probe, so threads recording different command buffers do not serialise on one global
// lock. Values are owned by the map and stay at a stable address until erased; the
// Vulkan spec's external-synchronisation rules guarantee a value is not erased while
// another thread uses its handle.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace bindery {

template <typename Handle, typename Value, std::size_t kShards = 64>
class ShardedHandleMap {
 public:
  Value* Find(Handle handle) const {
    const Shard& shard = ShardOf(handle);
    std::lock_guard<std::mutex> lock(shard.mutex);
    auto it = shard.map.find(handle);
    return it == shard.map.end() ? nullptr : it->second.get();
  }

  // Inserts (or replaces) the value for `handle` and returns it.
  Value* Insert(Handle handle, std::unique_ptr<Value> value) {
    Shard& shard = ShardOf(handle);
    std::lock_guard<std::mutex> lock(shard.mutex);
    Value* raw = value.get();
    shard.map[handle] = std::move(value);
    return raw;
  }

  std::unique_ptr<Value> Erase(Handle handle) {
    Shard& shard = ShardOf(handle);
    std::lock_guard<std::mutex> lock(shard.mutex);
    auto it = shard.map.find(handle);
    if (it == shard.map.end()) return nullptr;
    std::unique_ptr<Value> value = std::move(it->second);
    shard.map.erase(it);
    return value;
  }

  // Calls fn(handle, value&) for every entry; used on cold paths (pool reset, teardown).
  template <typename Fn>
  void ForEach(Fn&& fn) {
    for (Shard& shard : shards_) {
      std::lock_guard<std::mutex> lock(shard.mutex);
      for (auto& [handle, value] : shard.map) fn(handle, *value);
    }
  }

  std::size_t Size() const {
    std::size_t n = 0;
    for (const Shard& shard : shards_) {
      std::lock_guard<std::mutex> lock(shard.mutex);
      n += shard.map.size();
    }
    return n;
  }

 private:
  struct Shard {
    mutable std::mutex mutex;
    std::unordered_map<Handle, std::unique_ptr<Value>> map;
  };
  const Shard& ShardOf(Handle handle) const { return shards_[Hash(handle) % kShards]; }
  Shard& ShardOf(Handle handle) { return shards_[Hash(handle) % kShards]; }

 public:
  static std::size_t Hash(Handle handle) {
    // Handles are pointers or driver-chosen 64-bit values; mix the bits so allocations
    // with common alignment still spread over the shards.
    uint64_t x = reinterpret_cast<uint64_t>(handle);
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return static_cast<std::size_t>(x);
  }

 private:
  std::array<Shard, kShards> shards_;
};

// The same for small values kept in the map's node itself (one allocation per entry, not
// two): read by copy under the shard's lock.
template <typename Handle, typename Value, std::size_t kShards = 64>
class ShardedHandleValues {
 public:
  // Copies the value for `handle` to *out; false when there is none.
  bool Find(Handle handle, Value* out) const {
    const Shard& shard = ShardOf(handle);
    std::lock_guard<std::mutex> lock(shard.mutex);
    auto it = shard.map.find(handle);
    if (it == shard.map.end()) return false;
    *out = it->second;
    return true;
  }
  void Insert(Handle handle, const Value& value) {
    Shard& shard = ShardOf(handle);
    std::lock_guard<std::mutex> lock(shard.mutex);
    shard.map[handle] = value;
  }
  void Erase(Handle handle) {
    Shard& shard = ShardOf(handle);
    std::lock_guard<std::mutex> lock(shard.mutex);
    shard.map.erase(handle);
  }

 private:
  struct Shard {
    mutable std::mutex mutex;
    std::unordered_map<Handle, Value> map;
  };
  const Shard& ShardOf(Handle handle) const { return shards_[ShardedHandleMap<Handle, Value>::Hash(handle) % kShards]; }
  Shard& ShardOf(Handle handle) { return shards_[ShardedHandleMap<Handle, Value>::Hash(handle) % kShards]; }
  std::array<Shard, kShards> shards_;
};

}  // namespace bindery
