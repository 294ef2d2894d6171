// Sets: a set whose layout converts has a run of records in its pool's argument block
// (pool_blocks.h), written by vkUpdateDescriptorSets (descriptor_update_hooks.cpp). A set
// whose layout keeps native bindings is a real native set with a shadow in
// DescriptorStore::sets; a set whose layout has none is layer-owned (owned_sets.h): no
// native set, and its handle never goes down.
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "bindings/descriptors/descriptor_hooks.h"
#include "bindings/descriptors/descriptor_store.h"
#include "bindings/descriptors/owned_sets.h"
#include "bindings/descriptors/pool_blocks.h"
#include "bindings/model/lookup_cache.h"
#include "core/chain_edit.h"
#include "core/pnext.h"

namespace bindery::bindings {
namespace {

// Native sets just allocated whose layouts have buffer bindings other layouts convert:
// their buffer descriptors are kept from now on (native_buffer_sets.h).
void TrackNativeBufferSets(DescriptorStore& b, ThreadLookups& lookups, const VkDescriptorSetAllocateInfo& info,
                           const VkDescriptorSet* sets) {
  PoolShadow* pool = nullptr;
  for (uint32_t i = 0; i < info.descriptorSetCount; ++i) {
    if (sets[i] == VK_NULL_HANDLE || OwnedSet(sets[i]) != nullptr) continue;
    const SetLayoutEntry* e = lookups.set_layouts.Find(&b, b.set_layouts, info.pSetLayouts[i]);
    if (e == nullptr || !e->native_buffers) continue;
    // A pool without buffer descriptor sizes has no shadow and cannot hold such a set.
    if (pool == nullptr && (pool = lookups.pools.Find(&b, b.pools, info.descriptorPool)) == nullptr) return;
    auto entry = std::make_unique<NativeBufferSet>();
    entry->layout = e->shadow;
    b.native_buffer_sets.Insert(sets[i], std::move(entry));
    pool->native_buffer_sets.push_back(sets[i]);
    b.any_native_buffer_sets.store(true, std::memory_order_release);
  }
}

// A native set freed: its kept buffer descriptors go.
void ForgetNativeBufferSet(DescriptorStore& b, PoolShadow& pool, VkDescriptorSet set) {
  if (b.native_buffer_sets.Erase(set) == nullptr) return;
  auto it = std::find(pool.native_buffer_sets.begin(), pool.native_buffer_sets.end(), set);
  if (it != pool.native_buffer_sets.end()) {
    *it = pool.native_buffer_sets.back();
    pool.native_buffer_sets.pop_back();
  }
}

}  // namespace

// The native sets of an allocation. A variable descriptor count is for the set layout's
// last binding; where that binding became records, the native layout's last binding is
// another one, which the count must not name (the validation layer checks every count
// against the native layout's last binding): those sets get 0, their records have the count.
VkResult AllocateNativeSets(DescriptorStore& b, const VkDescriptorSetAllocateInfo& info,
                            const VkDescriptorSetVariableDescriptorCountAllocateInfo* variable,
                            const SetLayoutEntry* const* entries, VkDescriptorSet* sets) {
  bool renamed = false;
  for (uint32_t i = 0; variable != nullptr && i < variable->descriptorSetCount && i < info.descriptorSetCount; ++i) {
    const SetLayoutShadow* layout = entries[i] != nullptr ? entries[i]->shadow.get() : nullptr;
    renamed |= layout != nullptr && !layout->converted.empty() && layout->converted.back().variable &&
               variable->pDescriptorCounts[i] != 0;
  }
  if (!renamed) return b.next.AllocateDescriptorSets(b.device.handle, &info, sets);
  std::vector<uint32_t> counts(variable->pDescriptorCounts, variable->pDescriptorCounts + variable->descriptorSetCount);
  for (uint32_t i = 0; i < counts.size() && i < info.descriptorSetCount; ++i) {
    const SetLayoutShadow* layout = entries[i] != nullptr ? entries[i]->shadow.get() : nullptr;
    if (layout != nullptr && !layout->converted.empty() && layout->converted.back().variable) counts[i] = 0;
  }
  ChainEditor chain(info.pNext);
  auto* edited = chain.Modify<VkDescriptorSetVariableDescriptorCountAllocateInfo>(
      VK_STRUCTURE_TYPE_DESCRIPTOR_SET_VARIABLE_DESCRIPTOR_COUNT_ALLOCATE_INFO);
  if (edited == nullptr) return b.next.AllocateDescriptorSets(b.device.handle, &info, sets);  // unknown struct before it
  edited->pDescriptorCounts = counts.data();
  VkDescriptorSetAllocateInfo native = info;
  native.pNext = chain.chain();
  return b.next.AllocateDescriptorSets(b.device.handle, &native, sets);
}

namespace {

// The allocation on a device where layouts convert (below the hook, which hands its lookup
// over: four arguments, still a tail call).
[[gnu::noinline]] VkResult AllocateConverting(DescriptorStore& b, VkDevice device,
                                              const VkDescriptorSetAllocateInfo* pAllocateInfo,
                                              VkDescriptorSet* pDescriptorSets);

// A device the table did not answer: the registry's answer, else straight down.
[[gnu::noinline]] VkResult AllocateDescriptorSetsUnindexed(VkDevice device, const VkDescriptorSetAllocateInfo* pAllocateInfo,
                                                           VkDescriptorSet* pDescriptorSets) {
  DescriptorStore* found = FindBindings<DescriptorStore>(device);
  if (found == nullptr) return NextOf(device).AllocateDescriptorSets(device, pAllocateInfo, pDescriptorSets);
  if (!found->Converting()) return found->next.AllocateDescriptorSets(device, pAllocateInfo, pDescriptorSets);
  return AllocateConverting(*found, device, pAllocateInfo, pDescriptorSets);
}

}  // namespace

// Until a layout converts on the device (under auto: one beyond a driver limit), an
// allocation goes down as it is: the lookup, one test and a tail call, with no frame (the
// converting path's locals made every call save six registers and a 472-byte frame).
VKAPI_ATTR VkResult VKAPI_CALL AllocateDescriptorSets(VkDevice device, const VkDescriptorSetAllocateInfo* pAllocateInfo,
                                                      VkDescriptorSet* pDescriptorSets) {
  DescriptorStore* cached = FindBindingsIndexed<DescriptorStore>(device);
  if (cached == nullptr) return AllocateDescriptorSetsUnindexed(device, pAllocateInfo, pDescriptorSets);
  if (!cached->Converting()) return cached->next.AllocateDescriptorSets(device, pAllocateInfo, pDescriptorSets);
  return AllocateConverting(*cached, device, pAllocateInfo, pDescriptorSets);
}

namespace {

// The common call, one set and no variable count: a native set as it is, or a layer-owned
// one, which needs nothing else. False when the general path must take the call.
bool AllocateOne(DescriptorStore& b, ThreadLookups& lookups, VkDevice device, const VkDescriptorSetAllocateInfo& info,
                 VkDescriptorSet* out, VkResult* result) {
  const SetLayoutEntry* e = lookups.set_layouts.Find(&b, b.set_layouts, info.pSetLayouts[0]);
  if (e == nullptr || !e->shadow->converts()) {
    *result = b.next.AllocateDescriptorSets(device, &info, out);
    if (*result == VK_SUCCESS && e != nullptr && e->native_buffers) TrackNativeBufferSets(b, lookups, info, out);
    return true;
  }
  PoolShadow* pool = lookups.pools.Find(&b, b.pools, info.descriptorPool);
  if (pool == nullptr || pool->slots == nullptr || e->shadow->has_native) return false;
  *result = AllocateOwnedSet(*pool, e->shadow, 0, out);
  if (*result != VK_SUCCESS) out[0] = VK_NULL_HANDLE;
  return true;
}

// What one allocation call makes of each set: plain native, native with a shadow, or
// layer-owned; the shadowed ones' record runs. The usual call allocates a few sets: no
// heap allocation for up to kInline of them. Points into itself: never copied.
class SetAllocation {
 public:
  enum Kind : uint8_t { kNative, kShadowed, kOwned };  // plain native / native + shadow / layer-owned

  SetAllocation(DescriptorStore& b, ThreadLookups& lookups, const VkDescriptorSetAllocateInfo& allocate_info)
      : info(allocate_info), n(allocate_info.descriptorSetCount) {
    if (n > kInline) {
      entries_heap_.resize(n);
      kinds_heap_.resize(n);
      runs_heap_.resize(n);
      entries = entries_heap_.data();
      kinds = kinds_heap_.data();
      runs = runs_heap_.data();
    }
    for (uint32_t i = 0; i < n; ++i) {
      const SetLayoutEntry* e = lookups.set_layouts.Find(&b, b.set_layouts, info.pSetLayouts[i]);
      entries[i] = e != nullptr && e->shadow->converts() ? e : nullptr;
      kinds[i] = entries[i] != nullptr ? kShadowed : kNative;
      converted += entries[i] != nullptr ? 1 : 0;
      runs[i] = {0, 0};
    }
    variable_ = FindInChain<VkDescriptorSetVariableDescriptorCountAllocateInfo>(
        info.pNext, VK_STRUCTURE_TYPE_DESCRIPTOR_SET_VARIABLE_DESCRIPTOR_COUNT_ALLOCATE_INFO);
  }
  SetAllocation(const SetAllocation&) = delete;
  SetAllocation& operator=(const SetAllocation&) = delete;

  uint32_t VariableCount(uint32_t i) const {
    return variable_ != nullptr && i < variable_->descriptorSetCount ? variable_->pDescriptorCounts[i] : 0;
  }
  const VkDescriptorSetVariableDescriptorCountAllocateInfo* variable() const { return variable_; }

  // Layer-owned sets for layouts without native bindings. In a call that also allocates
  // native sets, only when the allocate info has no pNext chain (the native call gets a
  // compacted copy of it, and a chain would have to be compacted too).
  void ChooseOwnedSets(const PoolShadow* pool) {
    if (pool == nullptr || pool->slots == nullptr) return;
    for (uint32_t i = 0; i < n; ++i) {
      if (entries[i] != nullptr && !entries[i]->shadow->has_native) {
        kinds[i] = kOwned;
        ++owned;
      }
    }
    if (owned != n && owned != 0 && info.pNext != nullptr) {
      for (uint32_t i = 0; i < n; ++i) kinds[i] = entries[i] != nullptr ? kShadowed : kNative;
      owned = 0;
    }
  }

  const VkDescriptorSetAllocateInfo& info;
  const uint32_t n;
  uint32_t converted = 0;  // sets with a shadow (of them `owned` layer-owned)
  uint32_t owned = 0;
  const SetLayoutEntry** entries = entries_inline_;  // the layout of each shadowed set (else nullptr)
  Kind* kinds = kinds_inline_;
  std::pair<uint32_t, uint32_t>* runs = runs_inline_;  // {first record, count} of shadowed sets

 private:
  static constexpr uint32_t kInline = 8;
  const SetLayoutEntry* entries_inline_[kInline];
  Kind kinds_inline_[kInline];
  std::pair<uint32_t, uint32_t> runs_inline_[kInline];
  const VkDescriptorSetVariableDescriptorCountAllocateInfo* variable_ = nullptr;
  std::vector<const SetLayoutEntry*> entries_heap_;
  std::vector<Kind> kinds_heap_;
  std::vector<std::pair<uint32_t, uint32_t>> runs_heap_;
};

// The pool's first converted set: its block now (the pool is externally synchronised),
// with the CPU copies of its records.
VkResult EnsureBlock(DescriptorStore& b, PoolShadow* pool) {
  if (pool == nullptr || pool->buffer != VK_NULL_HANDLE || pool->capacity == 0) return VK_SUCCESS;
  const VkResult result = CreateBlockBuffer(b, pool->capacity, *pool);
  if (result != VK_SUCCESS) {
    DestroyBlockBuffer(b, *pool);
    return result == VK_ERROR_OUT_OF_HOST_MEMORY ? result : VK_ERROR_OUT_OF_DEVICE_MEMORY;
  }
  pool->descriptors.assign(pool->capacity, VkDescriptorBufferInfo{});
  pool->host_records.assign(2 * static_cast<size_t>(pool->capacity), 0);
  b.host_bytes.Add(pool->descriptors.capacity() * sizeof(VkDescriptorBufferInfo) +
                   pool->host_records.capacity() * sizeof(uint64_t));
  return VK_SUCCESS;
}

// Layer-owned sets and the shadowed sets' record runs, before any native set: they can be
// given back whatever the pool's flags, native sets cannot.
VkResult AllocateRecordsAndOwnedSets(PoolShadow* pool, SetAllocation& a, VkDescriptorSet* out) {
  VkResult result = VK_SUCCESS;
  for (uint32_t i = 0; i < a.n && result == VK_SUCCESS; ++i) {
    if (a.kinds[i] == SetAllocation::kOwned) {
      result = AllocateOwnedSet(*pool, a.entries[i]->shadow, a.VariableCount(i), &out[i]);
      continue;
    }
    if (a.kinds[i] != SetAllocation::kShadowed) continue;
    const uint32_t count = a.entries[i]->shadow->RecordsFor(a.VariableCount(i));
    a.runs[i].second = count;
    if (count == 0) continue;
    RecordAllocator::Result r = pool != nullptr ? pool->records.Allocate(count, &a.runs[i].first)
                                                : RecordAllocator::Result::kOutOfPoolMemory;
    if (r != RecordAllocator::Result::kOk) {
      a.runs[i].second = 0;
      result = r == RecordAllocator::Result::kFragmented ? VK_ERROR_FRAGMENTED_POOL : VK_ERROR_OUT_OF_POOL_MEMORY;
    }
  }
  return result;
}

// The native sets of the call, from the layer below, in their places in `out`.
VkResult AllocateNativePart(DescriptorStore& b, VkDevice device, const SetAllocation& a, VkDescriptorSet* out) {
  if (a.owned == a.n) return VK_SUCCESS;
  if (a.owned == 0) return AllocateNativeSets(b, a.info, a.variable(), a.entries, out);
  // Only the native sets go down (no pNext here: ChooseOwnedSets), then back in place.
  std::vector<VkDescriptorSetLayout> native_layouts;
  std::vector<VkDescriptorSet> native_sets(a.n - a.owned);
  for (uint32_t i = 0; i < a.n; ++i) {
    if (a.kinds[i] != SetAllocation::kOwned) native_layouts.push_back(a.info.pSetLayouts[i]);
  }
  VkDescriptorSetAllocateInfo info = a.info;
  info.descriptorSetCount = a.n - a.owned;
  info.pSetLayouts = native_layouts.data();
  const VkResult result = b.next.AllocateDescriptorSets(device, &info, native_sets.data());
  if (result != VK_SUCCESS) return result;
  for (uint32_t i = 0, k = 0; i < a.n; ++i) {
    if (a.kinds[i] != SetAllocation::kOwned) out[i] = native_sets[k++];
  }
  return VK_SUCCESS;
}

// A failed call gives back what it took: owned sets, record runs; every handle null.
void UndoAllocation(DescriptorStore& b, PoolShadow* pool, const SetAllocation& a, VkDescriptorSet* out) {
  for (uint32_t i = 0; i < a.n; ++i) {
    if (a.kinds[i] == SetAllocation::kOwned && out[i] != VK_NULL_HANDLE) {
      FreeOwnedSet(b, *pool, out[i], *OwnedSet(out[i]));
      --pool->owned_counted;  // never handed out
    }
    if (pool != nullptr && a.runs[i].second != 0) pool->records.Free(a.runs[i].first, a.runs[i].second);
    out[i] = VK_NULL_HANDLE;
  }
}

// Each shadowed set's shadow: its run of the pool's block and CPU copies, zeroed
// (unwritten descriptors read as null records: a partially bound set stays safe).
void RegisterShadowedSets(DescriptorStore& b, PoolShadow* pool, const SetAllocation& a, const VkDescriptorSet* sets) {
  for (uint32_t i = 0; i < a.n; ++i) {
    if (a.kinds[i] != SetAllocation::kShadowed) continue;
    auto set = std::make_unique<SetShadow>();
    set->keep = a.entries[i]->shadow;
    set->layout = set->keep.get();
    set->pool = pool;
    set->first_record = a.runs[i].first;
    set->record_count = a.runs[i].second;
    set->variable_count = a.VariableCount(i);
    if (pool != nullptr && set->record_count != 0) {
      set->records = pool->mapped + static_cast<size_t>(set->first_record) * kRecordBytes;
      set->address = pool->address + static_cast<VkDeviceAddress>(set->first_record) * kRecordBytes;
      std::memset(set->records, 0, static_cast<size_t>(set->record_count) * kRecordBytes);
      set->host_records = reinterpret_cast<uint8_t*>(pool->host_records.data() + 2 * static_cast<size_t>(set->first_record));
      std::memset(set->host_records, 0, static_cast<size_t>(set->record_count) * kRecordBytes);
      set->descriptors = pool->descriptors.data() + set->first_record;
      std::fill(set->descriptors, set->descriptors + set->record_count, VkDescriptorBufferInfo{});
    }
    if (pool != nullptr) pool->sets.push_back(sets[i]);
    b.sets.Insert(sets[i], std::move(set));
    b.counters.sets->Add();
  }
}

VkResult AllocateConverting(DescriptorStore& b, VkDevice device, const VkDescriptorSetAllocateInfo* pAllocateInfo,
                            VkDescriptorSet* pDescriptorSets) {
  ThreadLookups& lookups = Lookups();
  VkResult result = VK_SUCCESS;
  if (pAllocateInfo->descriptorSetCount == 1 && pAllocateInfo->pNext == nullptr &&
      AllocateOne(b, lookups, device, *pAllocateInfo, pDescriptorSets, &result)) {
    return result;
  }
  SetAllocation a(b, lookups, *pAllocateInfo);
  if (a.converted == 0) {
    result = b.next.AllocateDescriptorSets(device, pAllocateInfo, pDescriptorSets);
    if (result == VK_SUCCESS) TrackNativeBufferSets(b, lookups, *pAllocateInfo, pDescriptorSets);
    return result;
  }
  PoolShadow* pool = lookups.pools.Find(&b, b.pools, pAllocateInfo->descriptorPool);
  a.ChooseOwnedSets(pool);
  result = EnsureBlock(b, pool);
  for (uint32_t i = 0; i < a.n; ++i) pDescriptorSets[i] = VK_NULL_HANDLE;
  if (result == VK_SUCCESS) result = AllocateRecordsAndOwnedSets(pool, a, pDescriptorSets);
  if (result == VK_SUCCESS) result = AllocateNativePart(b, device, a, pDescriptorSets);
  if (result != VK_SUCCESS) {
    UndoAllocation(b, pool, a, pDescriptorSets);
    return result;
  }
  RegisterShadowedSets(b, pool, a, pDescriptorSets);
  if (a.converted != a.n) TrackNativeBufferSets(b, lookups, *pAllocateInfo, pDescriptorSets);
  return result;
}

}  // namespace

VKAPI_ATTR VkResult VKAPI_CALL FreeDescriptorSets(VkDevice device, VkDescriptorPool descriptorPool,
                                                  uint32_t descriptorSetCount, const VkDescriptorSet* pDescriptorSets) {
  DescriptorStore* found = FindBindings<DescriptorStore>(device);
  if (found == nullptr) {
    return NextOf(device).FreeDescriptorSets(device, descriptorPool, descriptorSetCount, pDescriptorSets);
  }
  DescriptorStore& b = *found;
  PoolShadow* pool = b.Converting() ? Lookups().pools.Find(&b, b.pools, descriptorPool) : nullptr;
  if (pool == nullptr) return b.next.FreeDescriptorSets(device, descriptorPool, descriptorSetCount, pDescriptorSets);
  // Layer-owned sets are freed here; the others go down (in their order, nulls kept).
  constexpr uint32_t kInline = 16;
  VkDescriptorSet native_inline[kInline];
  std::vector<VkDescriptorSet> native_heap;
  VkDescriptorSet* native = native_inline;
  if (descriptorSetCount > kInline) {
    native_heap.resize(descriptorSetCount);
    native = native_heap.data();
  }
  uint32_t native_count = 0;
  for (uint32_t i = 0; i < descriptorSetCount; ++i) {
    const VkDescriptorSet handle = pDescriptorSets[i];
    if (handle == VK_NULL_HANDLE) {
      native[native_count++] = handle;
      continue;
    }
    if (SetShadow* owned = OwnedSet(handle)) {
      if (owned->pool == pool) FreeOwnedSet(b, *pool, handle, *owned);  // another pool's set: invalid, ignored
      continue;
    }
    native[native_count++] = handle;
    if (!pool->native_buffer_sets.empty()) ForgetNativeBufferSet(b, *pool, handle);
    std::unique_ptr<SetShadow> set = b.sets.Erase(handle);
    if (set == nullptr) continue;
    b.ReleaseFull(*set);
    pool->records.Free(set->first_record, set->record_count);
    auto it = std::find(pool->sets.begin(), pool->sets.end(), handle);
    if (it != pool->sets.end()) {
      *it = pool->sets.back();
      pool->sets.pop_back();
    }
  }
  if (native_count == 0) return VK_SUCCESS;
  return b.next.FreeDescriptorSets(device, descriptorPool, native_count, native);
}

}  // namespace bindery::bindings
