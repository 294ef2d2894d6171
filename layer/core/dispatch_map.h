// Maps a dispatchable handle's dispatch key to the layer's state for it.
//
// Why not std::unordered_map under a mutex: this lookup runs on every intercepted
// command (bind, dispatch, submit), and the rules say hot paths take no global lock.
// Instances and devices are few, so a fixed array of slots scanned linearly is both
// lock-free for readers and faster than hashing. Writers (create/destroy) serialise on
// a mutex and publish with release stores; a reader racing with the destruction of the
// object it looks up is an application bug the Vulkan spec already forbids
// (destroy requires external synchronisation against all use).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace bindery {

// The loader stores its dispatch table pointer in the first word of every dispatchable
// object; every object created from one VkDevice (queues, command buffers) shares it.
template <typename Handle>
inline void* DispatchKey(Handle handle) {
  return *reinterpret_cast<void**>(handle);
}

template <typename T, std::size_t kCapacity = 256>
class DispatchKeyMap {
 public:
  // Returns false when every slot is taken (the caller fails creation with
  // VK_ERROR_OUT_OF_HOST_MEMORY rather than corrupting state).
  bool Insert(void* key, T* value) {
    std::lock_guard<std::mutex> lock(write_mutex_);
    for (std::size_t i = 0; i < kCapacity; ++i) {
      if (slots_[i].key.load(std::memory_order_relaxed) == nullptr) {
        slots_[i].value.store(value, std::memory_order_relaxed);
        slots_[i].key.store(key, std::memory_order_release);
        std::size_t used = used_.load(std::memory_order_relaxed);
        if (i + 1 > used) used_.store(i + 1, std::memory_order_release);
        return true;
      }
    }
    return false;
  }

  T* Find(void* key) const {
    const std::size_t used = used_.load(std::memory_order_acquire);
    for (std::size_t i = 0; i < used; ++i) {
      if (slots_[i].key.load(std::memory_order_acquire) == key) {
        return slots_[i].value.load(std::memory_order_relaxed);
      }
    }
    return nullptr;
  }

  // Removes the entry and returns its value (nullptr if absent); the caller deletes it.
  T* Erase(void* key) {
    std::lock_guard<std::mutex> lock(write_mutex_);
    const std::size_t used = used_.load(std::memory_order_relaxed);
    for (std::size_t i = 0; i < used; ++i) {
      if (slots_[i].key.load(std::memory_order_relaxed) == key) {
        T* value = slots_[i].value.load(std::memory_order_relaxed);
        slots_[i].key.store(nullptr, std::memory_order_release);
        slots_[i].value.store(nullptr, std::memory_order_relaxed);
        return value;
      }
    }
    return nullptr;
  }

  std::size_t Size() const {
    std::lock_guard<std::mutex> lock(write_mutex_);
    std::size_t n = 0;
    for (std::size_t i = 0; i < used_.load(std::memory_order_relaxed); ++i) {
      if (slots_[i].key.load(std::memory_order_relaxed) != nullptr) ++n;
    }
    return n;
  }

 private:
  struct Slot {
    std::atomic<void*> key{nullptr};
    std::atomic<T*> value{nullptr};
  };
  Slot slots_[kCapacity];
  std::atomic<std::size_t> used_{0};  // one past the highest slot ever used
  mutable std::mutex write_mutex_;
};

// The record path's form: one slot per key, chosen by a hash of the key, so a lookup is a
// multiply, one compare and two loads, with no loop (a loop over a few slots made each
// hook save and restore registers: a frame on every push and draw). A key whose slot is
// taken is not added (Insert returns false): its users take a slower lookup instead.
template <typename T, std::size_t kSlotBits = 6>
class DispatchKeySlots {
 public:
  constexpr DispatchKeySlots() = default;

  bool Insert(void* key, T* value) {
    std::lock_guard<std::mutex> lock(write_mutex_);
    Slot& slot = slots_[Index(key)];
    if (slot.key.load(std::memory_order_relaxed) != nullptr) return false;
    slot.value.store(value, std::memory_order_relaxed);
    slot.key.store(key, std::memory_order_release);
    return true;
  }

  T* Find(void* key) const {
    const Slot& slot = slots_[Index(key)];
    return slot.key.load(std::memory_order_acquire) == key ? slot.value.load(std::memory_order_relaxed) : nullptr;
  }

  void Erase(void* key) {
    std::lock_guard<std::mutex> lock(write_mutex_);
    Slot& slot = slots_[Index(key)];
    if (slot.key.load(std::memory_order_relaxed) != key) return;
    slot.key.store(nullptr, std::memory_order_release);
    slot.value.store(nullptr, std::memory_order_relaxed);
  }

 private:
  struct Slot {
    std::atomic<void*> key{nullptr};
    std::atomic<T*> value{nullptr};
  };
  static std::size_t Index(void* key) {
    return static_cast<std::size_t>((reinterpret_cast<uintptr_t>(key) * 0x9E3779B97F4A7C15ull) >> (64 - kSlotBits));
  }
  Slot slots_[std::size_t{1} << kSlotBits];
  std::mutex write_mutex_;
};

}  // namespace bindery
