#include "bindings/descriptors/owned_sets.h"

#include <algorithm>
#include <cstring>
#include <new>

namespace bindery::bindings {

bool CreateOwnedSlots(PoolShadow& pool, uint32_t max_sets) {
  if (max_sets == 0) return false;
  const size_t bytes = static_cast<size_t>(max_sets) * sizeof(OwnedSetSlot);
  void* arena = AcquireOwnedArena(bytes);
  if (arena == nullptr) return false;
  pool.slots = static_cast<OwnedSetSlot*>(arena);
  pool.slot_count = max_sets;
  pool.arena_bytes = bytes;
  pool.slot_bump = 0;
  pool.slot_built = 0;
  pool.free_slot = UINT32_MAX;
  return true;
}

VkResult AllocateOwnedSet(PoolShadow& pool, const std::shared_ptr<const SetLayoutShadow>& layout,
                          uint32_t variable_count, VkDescriptorSet* out) {
  const bool from_free_list = pool.free_slot != UINT32_MAX;
  if (!from_free_list && pool.slot_bump == pool.slot_count) return VK_ERROR_OUT_OF_POOL_MEMORY;
  const uint32_t count = layout->RecordsFor(variable_count);
  uint32_t first = 0;
  if (count != 0) {
    const RecordAllocator::Result r = pool.records.Allocate(count, &first);
    if (r == RecordAllocator::Result::kFragmented) return VK_ERROR_FRAGMENTED_POOL;
    if (r != RecordAllocator::Result::kOk) return VK_ERROR_OUT_OF_POOL_MEMORY;
  }
  OwnedSetSlot* slot;
  if (from_free_list) {
    slot = &pool.slots[pool.free_slot];
    pool.free_slot = slot->next_free;
  } else {
    // Slots are built in place on their first use after the arena was acquired (a pool
    // with a large maxSets touches only what it uses), then reused as they are.
    slot = &pool.slots[pool.slot_bump];
    if (pool.slot_bump == pool.slot_built) {
      new (slot) OwnedSetSlot();
      ++pool.slot_built;
    }
    ++pool.slot_bump;
  }
  slot->next_free = UINT32_MAX;
  SetShadow& set = slot->shadow;
  set.layout = layout.get();
  set.pool = &pool;
  set.first_record = first;
  set.record_count = count;
  set.full = VK_NULL_HANDLE;
  set.full_pool = VK_NULL_HANDLE;
  set.full_stale = true;
  if (count != 0) {
    set.records = pool.mapped + static_cast<size_t>(first) * kRecordBytes;
    set.address = pool.address + static_cast<VkDeviceAddress>(first) * kRecordBytes;
    set.descriptors = pool.descriptors.data() + first;
    // Unwritten descriptors read as null records (a partially bound set stays safe).
    std::memset(set.records, 0, static_cast<size_t>(count) * kRecordBytes);
    set.host_records = reinterpret_cast<uint8_t*>(pool.host_records.data() + 2 * static_cast<size_t>(first));
    std::memset(set.host_records, 0, static_cast<size_t>(count) * kRecordBytes);
    std::fill(set.descriptors, set.descriptors + count, VkDescriptorBufferInfo{});
  } else {
    set.records = nullptr;
    set.host_records = nullptr;
    set.address = 0;
    set.descriptors = nullptr;
  }
  // The pool keeps the layout alive; an application allocates from few layouts per pool.
  if (pool.owned_layouts.empty() || pool.owned_layouts.back() != layout) {
    auto it = std::find(pool.owned_layouts.begin(), pool.owned_layouts.end(), layout);
    if (it == pool.owned_layouts.end()) pool.owned_layouts.push_back(layout);
  }
  const uint64_t handle = reinterpret_cast<uint64_t>(slot);
  slot->self.store(handle, std::memory_order_release);
  *out = reinterpret_cast<VkDescriptorSet>(handle);
  ++pool.owned_counted;  // added to the device's counters at reset / destroy (no atomic here)
  return VK_SUCCESS;
}

void FreeOwnedSet(DescriptorStore& b, PoolShadow& pool, VkDescriptorSet handle, SetShadow& set) {
  b.ReleaseFull(set);
  pool.records.Free(set.first_record, set.record_count);
  OwnedSetSlot* slot = reinterpret_cast<OwnedSetSlot*>(reinterpret_cast<uint64_t>(handle));
  slot->self.store(0, std::memory_order_release);
  slot->next_free = pool.free_slot;
  pool.free_slot = static_cast<uint32_t>(slot - pool.slots);
  if (pool.owned_private_data.load(std::memory_order_acquire)) {
    const uint64_t begin = reinterpret_cast<uint64_t>(slot);
    b.ForgetOwnedData(begin, begin + sizeof(OwnedSetSlot));
  }
}

void ResetOwnedSets(DescriptorStore& b, PoolShadow& pool) {
  if (pool.slots == nullptr) return;
  if (pool.owned_counted != 0) {
    b.counters.sets->Add(pool.owned_counted);
    b.counters.owned_sets->Add(pool.owned_counted);
    pool.owned_counted = 0;
  }
  if (pool.owned_materialised.exchange(false, std::memory_order_acq_rel)) {
    // Sets allocated since the last reset all lie below the bump.
    for (uint32_t i = 0; i < pool.slot_bump; ++i) {
      if (pool.slots[i].self.load(std::memory_order_relaxed) != 0) b.ReleaseFull(pool.slots[i].shadow);
    }
  }
  if (pool.owned_private_data.exchange(false, std::memory_order_acq_rel)) {
    const uint64_t begin = reinterpret_cast<uint64_t>(pool.slots);
    b.ForgetOwnedData(begin, begin + pool.arena_bytes);
  }
  // The handles of reset sets stay readable as live until their slots are reused: using
  // a set after resetting its pool is invalid usage, so nothing needs to tell them apart.
  pool.slot_bump = 0;
  pool.free_slot = UINT32_MAX;
}

void DestroyOwnedSlots(DescriptorStore& b, PoolShadow& pool) {
  if (pool.slots == nullptr) return;
  ResetOwnedSets(b, pool);
  ReleaseOwnedArena(pool.slots, pool.arena_bytes);
  b.host_bytes.Sub(pool.arena_bytes);
  pool.slots = nullptr;
  pool.slot_count = 0;
  pool.arena_bytes = 0;
}

}  // namespace bindery::bindings
