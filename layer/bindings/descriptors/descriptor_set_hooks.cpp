// Pools and sets: each pool owns one host-visible, addressable buffer (device-local where
// resizable BAR allows: model/argument_memory.h) holding the argument
// blocks of its sets (sized from its create info: one record per converted descriptor);
// each set is a run of records in it, written by vkUpdateDescriptorSets. The native pool
// keeps the native descriptors. A set whose layout keeps native bindings is a real native
// set with a shadow in DescriptorStore::sets; a set whose layout has none is layer-owned
// (owned_sets.h): no native set, and its handle never goes down.
#include <algorithm>
#include <cstring>
#include <list>
#include <vector>

#include "bindings/model/argument_memory.h"
#include "bindings/descriptors/descriptor_store.h"
#include "bindings/descriptors/descriptor_hooks.h"
#include "bindings/model/lookup_cache.h"
#include "bindings/descriptors/owned_sets.h"
#include "bindings/descriptors/set_records.h"
#include "chassis/queue_sharing.h"
#include "core/chain_edit.h"
#include "core/pnext.h"

namespace bindery::bindings {
namespace {

// The pool's argument-block buffer: `records` records, mapped, with its device address.
VkResult CreateBlockBuffer(DescriptorStore& b, uint32_t records, PoolShadow& pool) {
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = static_cast<VkDeviceSize>(records) * kRecordBytes;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  const QueueSharing sharing(b.device);  // a set may be bound on any queue
  sharing.Apply(info);
  ArgumentBuffer block;
  const VkResult r = CreateArgumentBuffer(b, info, &block);
  pool.buffer = block.buffer;
  pool.memory = block.memory;
  if (block.memory != VK_NULL_HANDLE) {
    b.counters.block_bytes->Add(block.bytes);  // the memory cost per descriptor (bench, summary)
    b.gpu_bytes.Add(block.bytes);
    pool.block_bytes = block.bytes;
  }
  if (r != VK_SUCCESS) return r;
  pool.mapped = block.mapped;
  pool.address = block.address;
  return pool.address != 0 ? VK_SUCCESS : VK_ERROR_INITIALIZATION_FAILED;
}

void DestroyBlockBuffer(DescriptorStore& b, PoolShadow& pool) {
  if (pool.buffer != VK_NULL_HANDLE) b.next.DestroyBuffer(b.device.handle, pool.buffer, nullptr);
  if (pool.memory != VK_NULL_HANDLE) b.next.FreeMemory(b.device.handle, pool.memory, nullptr);
  b.gpu_bytes.Sub(pool.block_bytes);
  pool.block_bytes = 0;
  if (pool.descriptors.capacity() != 0) {
    b.host_bytes.Sub(pool.descriptors.capacity() * sizeof(VkDescriptorBufferInfo));
    std::vector<VkDescriptorBufferInfo>().swap(pool.descriptors);
  }
  if (pool.host_records.capacity() != 0) {
    b.host_bytes.Sub(pool.host_records.capacity() * sizeof(uint64_t));
    std::vector<uint64_t>().swap(pool.host_records);
  }
  pool.buffer = VK_NULL_HANDLE;
  pool.memory = VK_NULL_HANDLE;
}

// Forgets every set of the pool (reset / destroy): records back to the pool.
void ForgetSets(DescriptorStore& b, PoolShadow& pool) {
  for (VkDescriptorSet set : pool.sets) {
    if (std::unique_ptr<SetShadow> shadow = b.sets.Erase(set)) b.ReleaseFull(*shadow);
  }
  pool.sets.clear();
  pool.records.Reset();
  for (VkDescriptorSet set : pool.native_buffer_sets) b.native_buffer_sets.Erase(set);
  pool.native_buffer_sets.clear();
}

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

VKAPI_ATTR VkResult VKAPI_CALL CreateDescriptorPool(VkDevice device, const VkDescriptorPoolCreateInfo* pCreateInfo,
                                                    const VkAllocationCallbacks* pAllocator,
                                                    VkDescriptorPool* pDescriptorPool) {
  DescriptorStore* found = FindBindings<DescriptorStore>(device);
  if (found == nullptr) return NextOf(device).CreateDescriptorPool(device, pCreateInfo, pAllocator, pDescriptorPool);
  DescriptorStore& b = *found;
  uint64_t records = 0;
  for (uint32_t i = 0; i < pCreateInfo->poolSizeCount; ++i) {
    const VkDescriptorPoolSize& s = pCreateInfo->pPoolSizes[i];
    if (IsConvertedType(s.type, b.plan.convert_uniform_buffers)) records += s.descriptorCount;
  }
  if (records == 0) return b.next.CreateDescriptorPool(device, pCreateInfo, pAllocator, pDescriptorPool);
  if (records > UINT32_MAX / kRecordBytes) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  // The native pool keeps the application's sizes: layouts the capability leaves native
  // may still take buffer descriptors from it, and unused counts cost the driver little.
  // Under auto where only layouts beyond a limit convert, the block itself is made when
  // the pool's first converted set is allocated: a pool that only ever holds native sets
  // costs no memory allocation.
  auto pool = std::make_unique<PoolShadow>();
  pool->update_after_bind = (pCreateInfo->flags & VK_DESCRIPTOR_POOL_CREATE_UPDATE_AFTER_BIND_BIT) != 0;
  pool->capacity = static_cast<uint32_t>(records);
  pool->records = RecordAllocator(static_cast<uint32_t>(records));
  if (b.plan.policy.convert_everything) {
    // Every layout converts here: the block now (the one-set allocation fast path takes
    // records without checking for it), and slots for layer-owned sets.
    const VkResult r = CreateBlockBuffer(b, pool->capacity, *pool);
    if (r != VK_SUCCESS) {
      DestroyBlockBuffer(b, *pool);
      return r == VK_ERROR_INITIALIZATION_FAILED ? VK_ERROR_OUT_OF_DEVICE_MEMORY : r;
    }
    pool->descriptors.assign(records, VkDescriptorBufferInfo{});
    pool->host_records.assign(2 * records, 0);
    b.host_bytes.Add(pool->descriptors.capacity() * sizeof(VkDescriptorBufferInfo) +
                     pool->host_records.capacity() * sizeof(uint64_t));
  }
  const VkResult r = b.next.CreateDescriptorPool(device, pCreateInfo, pAllocator, pDescriptorPool);
  if (r != VK_SUCCESS) {
    DestroyBlockBuffer(b, *pool);
    return r;
  }
  // Elsewhere (auto, only layouts beyond a limit convert) the few converted sets stay
  // native sets with shadows: no arena for pools that may never see one.
  if (b.plan.policy.convert_everything && CreateOwnedSlots(*pool, pCreateInfo->maxSets)) {  // without: every set stays native
    b.host_bytes.Add(pool->arena_bytes);
  }
  b.pools.Insert(*pDescriptorPool, std::move(pool));
  return r;
}

VKAPI_ATTR void VKAPI_CALL DestroyDescriptorPool(VkDevice device, VkDescriptorPool descriptorPool,
                                                 const VkAllocationCallbacks* pAllocator) {
  ForgetAndDestroy<DescriptorStore, &VkLayerDispatchTable::DestroyDescriptorPool>(
      device, descriptorPool, pAllocator, [&](DescriptorStore& b) {
        if (std::unique_ptr<PoolShadow> pool = b.pools.Erase(descriptorPool)) {
          InvalidateLookupCaches();
          ForgetSets(b, *pool);
          DestroyOwnedSlots(b, *pool);
          DestroyBlockBuffer(b, *pool);
        }
      });
}

VKAPI_ATTR VkResult VKAPI_CALL ResetDescriptorPool(VkDevice device, VkDescriptorPool descriptorPool,
                                                   VkDescriptorPoolResetFlags flags) {
  DescriptorStore* found = FindBindings<DescriptorStore>(device);
  if (found == nullptr) return NextOf(device).ResetDescriptorPool(device, descriptorPool, flags);
  DescriptorStore& b = *found;
  if (!b.Converting()) return b.next.ResetDescriptorPool(device, descriptorPool, flags);
  if (PoolShadow* pool = Lookups().pools.Find(&b, b.pools, descriptorPool)) {
    ResetOwnedSets(b, *pool);
    ForgetSets(b, *pool);
  }
  return b.next.ResetDescriptorPool(device, descriptorPool, flags);
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

namespace {

// A native write of buffer descriptors: kept where the set's buffer descriptors are
// (native_buffer_sets.h).
void KeepNativeWrite(DescriptorStore& b, const VkWriteDescriptorSet& w) {
  if (!IsConvertedType(w.descriptorType, b.plan.convert_uniform_buffers) || w.pBufferInfo == nullptr) return;
  NativeBufferSet* set = b.native_buffer_sets.Find(w.dstSet);
  if (set == nullptr) return;
  ForEachAppDescriptor(*set->layout, w.dstBinding, w.dstArrayElement, w.descriptorCount,
                       [&](uint32_t binding, uint32_t element, uint32_t k) {
                         set->descriptors[NativeBufferSet::Key(binding, element)] = w.pBufferInfo[k];
                       });
}

// The `count` descriptors a copy reads from a native set, into `values` (unknown ones
// stay null). False when the layer never saw the set's writes.
bool ReadNativeDescriptors(DescriptorStore& b, VkDescriptorSet handle, uint32_t binding, uint32_t element, uint32_t count,
                           VkDescriptorBufferInfo* values) {
  const NativeBufferSet* set = b.native_buffer_sets.Find(handle);
  if (set == nullptr) return false;
  ForEachAppDescriptor(*set->layout, binding, element, count, [&](uint32_t bnd, uint32_t el, uint32_t k) {
    auto it = set->descriptors.find(NativeBufferSet::Key(bnd, el));
    if (it != set->descriptors.end()) values[k] = it->second;
  });
  return true;
}

// A native-to-native copy: the kept descriptors of the destination follow it.
void KeepNativeCopy(DescriptorStore& b, const VkCopyDescriptorSet& c) {
  NativeBufferSet* dst = b.native_buffer_sets.Find(c.dstSet);
  if (dst == nullptr || c.descriptorCount == 0) return;
  std::vector<VkDescriptorBufferInfo> values(c.descriptorCount, VkDescriptorBufferInfo{});
  const bool known = ReadNativeDescriptors(b, c.srcSet, c.srcBinding, c.srcArrayElement, c.descriptorCount, values.data());
  ForEachAppDescriptor(*dst->layout, c.dstBinding, c.dstArrayElement, c.descriptorCount,
                       [&](uint32_t binding, uint32_t element, uint32_t k) {
                         const uint64_t key = NativeBufferSet::Key(binding, element);
                         if (known && values[k].buffer != VK_NULL_HANDLE) {
                           dst->descriptors[key] = values[k];
                         } else {
                           dst->descriptors.erase(key);
                         }
                       });
}

// What a copy into or out of converted bindings carries: the source descriptors as the
// application wrote them. A copy must not reach the driver with a converted side: a
// converted binding does not exist in the native layout.
class CopyTranslator {
 public:
  explicit CopyTranslator(DescriptorStore& b) : b_(b) {}

  // A copy from converted records into a native set's binding: native writes of the
  // descriptors (those never written, or whose buffer is gone, are left as they are).
  void ToNative(const VkCopyDescriptorSet& c, VkDescriptorType type, const VkDescriptorBufferInfo* values) {
    NativeBufferSet* kept = b_.native_buffer_sets.Find(c.dstSet);
    // Where each descriptor lands: the destination's layout rolls over into the next
    // binding; a set whose layout the layer does not hold is taken not to.
    auto position = [&](uint32_t k, uint32_t* binding, uint32_t* element) {
      *binding = c.dstBinding;
      *element = c.dstArrayElement + k;
      if (kept == nullptr) return;
      ForEachAppDescriptor(*kept->layout, c.dstBinding, c.dstArrayElement, k + 1,
                           [&](uint32_t bnd, uint32_t el, uint32_t i) {
                             if (i != k) return;
                             *binding = bnd;
                             *element = el;
                           });
    };
    values_.emplace_back(values, values + c.descriptorCount);
    const VkDescriptorBufferInfo* stored = values_.back().data();
    for (uint32_t k = 0; k < c.descriptorCount;) {
      if (!Usable(stored[k])) {
        ++k;
        continue;
      }
      uint32_t run = 1;
      while (k + run < c.descriptorCount && Usable(stored[k + run])) ++run;
      VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      w.dstSet = c.dstSet;
      position(k, &w.dstBinding, &w.dstArrayElement);
      w.descriptorCount = run;
      w.descriptorType = type;
      w.pBufferInfo = stored + k;
      writes_.push_back(w);
      if (kept != nullptr) KeepNativeWrite(b_, w);
      k += run;
    }
  }

  // After the application's native writes and copies: the translated ones.
  void Flush(VkDevice device) {
    if (writes_.empty()) return;
    b_.next.UpdateDescriptorSets(device, static_cast<uint32_t>(writes_.size()), writes_.data(), 0, nullptr);
  }

 private:
  bool Usable(const VkDescriptorBufferInfo& d) { return d.buffer != VK_NULL_HANDLE && b_.StillNames(d); }
  DescriptorStore& b_;
  std::vector<VkWriteDescriptorSet> writes_;
  std::list<std::vector<VkDescriptorBufferInfo>> values_;  // stable while writes_ point into them
};

// The update on a device where layouts convert (the hook hands its lookup over: six
// arguments in registers, still a tail call).
[[gnu::noinline]] void UpdateConverting(DescriptorStore& b, VkDevice device, uint32_t descriptorWriteCount,
                                        const VkWriteDescriptorSet* pDescriptorWrites, uint32_t descriptorCopyCount,
                                        const VkCopyDescriptorSet* pDescriptorCopies);

// A device the table did not answer: the registry's answer, else straight down.
[[gnu::noinline]] void UpdateDescriptorSetsUnindexed(VkDevice device, uint32_t descriptorWriteCount,
                                                     const VkWriteDescriptorSet* pDescriptorWrites,
                                                     uint32_t descriptorCopyCount,
                                                     const VkCopyDescriptorSet* pDescriptorCopies) {
  DescriptorStore* found = FindBindings<DescriptorStore>(device);
  if (found == nullptr) {
    return NextOf(device).UpdateDescriptorSets(device, descriptorWriteCount, pDescriptorWrites, descriptorCopyCount,
                                               pDescriptorCopies);
  }
  if (!found->Converting()) {
    return found->next.UpdateDescriptorSets(device, descriptorWriteCount, pDescriptorWrites, descriptorCopyCount,
                                            pDescriptorCopies);
  }
  UpdateConverting(*found, device, descriptorWriteCount, pDescriptorWrites, descriptorCopyCount, pDescriptorCopies);
}

}  // namespace

// Until a layout converts on the device, an update goes down as it is: the lookup, one
// test and a tail call, with no frame (as AllocateDescriptorSets).
VKAPI_ATTR void VKAPI_CALL UpdateDescriptorSets(VkDevice device, uint32_t descriptorWriteCount,
                                                const VkWriteDescriptorSet* pDescriptorWrites,
                                                uint32_t descriptorCopyCount,
                                                const VkCopyDescriptorSet* pDescriptorCopies) {
  DescriptorStore* cached = FindBindingsIndexed<DescriptorStore>(device);
  if (cached == nullptr) {
    return UpdateDescriptorSetsUnindexed(device, descriptorWriteCount, pDescriptorWrites, descriptorCopyCount,
                                         pDescriptorCopies);
  }
  if (!cached->Converting()) {
    return cached->next.UpdateDescriptorSets(device, descriptorWriteCount, pDescriptorWrites, descriptorCopyCount,
                                             pDescriptorCopies);
  }
  return UpdateConverting(*cached, device, descriptorWriteCount, pDescriptorWrites, descriptorCopyCount,
                          pDescriptorCopies);
}

namespace {

// The leading writes into layer-owned sets (usually all of them): records written in
// place, without the native bookkeeping (nothing of such a set goes down). Returns how
// many writes it took; the rest, and the copies, take the general path (they come after
// these writes, as the spec orders them).
uint32_t WriteLeadingOwnedSets(DescriptorStore& b, ThreadLookups& lookups, uint32_t count,
                               const VkWriteDescriptorSet* writes) {
  uint32_t done = 0;
  VkDescriptorSet last_handle = VK_NULL_HANDLE;
  SetShadow* set = nullptr;
  for (; done < count; ++done) {
    const VkWriteDescriptorSet& w = writes[done];
    if (set == nullptr || w.dstSet != last_handle) {  // writes come in runs for one set
      if ((set = OwnedSet(w.dstSet)) == nullptr) break;
      last_handle = w.dstSet;
    }
    // (MirrorWrite: the same, without the call while the set has no full native set.)
    if (set->full == VK_NULL_HANDLE || !b.MirrorWrite(*set, w)) set->full_stale = true;
    ForEachRecord(*set->layout, w.dstBinding, w.dstArrayElement, w.descriptorCount,
                  [&](uint32_t record, uint32_t k) { WriteRecord(b, lookups, *set, record, w.pBufferInfo[k]); });
  }
  return done;
}

// The general path of one update call. Native writes and copies are passed down together,
// in the application's order relative to each other (records do not interact with native
// descriptors). Nothing naming a layer-owned set goes down: such a set has no native
// binding, so a write or copy there that is not a record is invalid usage, dropped. Copies
// between converted and native bindings carry the descriptors the application wrote:
// records from a native set's kept descriptors, native writes from records (after the
// native call).
class ConvertingUpdate {
 public:
  ConvertingUpdate(DescriptorStore& b, ThreadLookups& lookups)
      : b_(b), lookups_(lookups), keep_native_(b.any_native_buffer_sets.load(std::memory_order_acquire)),
        translated_(b) {}

  // Each write's records written, and the native ones kept to go down.
  void Writes(uint32_t count, const VkWriteDescriptorSet* writes) {
    if (count > kInline) {
      writes_heap_.resize(count);
      writes_ = writes_heap_.data();
    }
    VkDescriptorSet last_handle = VK_NULL_HANDLE;
    SetShadow* last = nullptr;
    bool last_owned = false;
    for (uint32_t i = 0; i < count; ++i) {
      const VkWriteDescriptorSet& w = writes[i];
      // Writes usually come in runs for one set: look it up once per run.
      if (w.dstSet != last_handle || i == 0) {
        last_handle = w.dstSet;
        last = OwnedSet(w.dstSet);
        last_owned = last != nullptr;
        if (last == nullptr) last = b_.sets.Find(w.dstSet);
      }
      SetShadow* set = last;
      if (set != nullptr && !b_.MirrorWrite(*set, w)) set->full_stale = true;
      const bool converted =
          set != nullptr && ForEachRecord(*set->layout, w.dstBinding, w.dstArrayElement, w.descriptorCount,
                                          [&](uint32_t record, uint32_t k) {
                                            WriteRecord(b_, lookups_, *set, record, w.pBufferInfo[k]);
                                          });
      if (!converted && !last_owned) {
        writes_[native_writes_++] = w;
        if (keep_native_ && set == nullptr) KeepNativeWrite(b_, w);
      }
    }
  }

  // One copy: native to native goes down; into converted bindings, records from the
  // source's descriptors; from converted into native bindings, native writes after the call.
  void Copy(const VkCopyDescriptorSet& c) {
    SetShadow* src_owned = OwnedSet(c.srcSet);
    SetShadow* dst_owned = OwnedSet(c.dstSet);
    SetShadow* src = src_owned != nullptr ? src_owned : b_.sets.Find(c.srcSet);
    SetShadow* dst = dst_owned != nullptr ? dst_owned : b_.sets.Find(c.dstSet);
    // A destination with a full native set gets what the copy changes mirrored into it
    // (as writes do): converted bindings below, native ones after the copies went down.
    const bool mirror = dst != nullptr && dst->full != VK_NULL_HANDLE;
    const ConvertedBinding* src_binding = src != nullptr ? src->layout->Find(c.srcBinding) : nullptr;
    const bool dst_converted = dst != nullptr && dst->layout->Find(c.dstBinding) != nullptr;
    if (src_binding == nullptr && !dst_converted) {
      // Native to native (a layer-owned side has no native binding: invalid, dropped).
      if (src_owned == nullptr && dst_owned == nullptr) {
        copies_.push_back(c);
        if (keep_native_) KeepNativeCopy(b_, c);
      }
      if (mirror) native_mirrors_.push_back({dst, c});
      return;
    }
    // Collect the source descriptors, then write them (a copy within one set may overlap).
    constexpr uint32_t kInlineValues = 16;
    VkDescriptorBufferInfo values_inline[kInlineValues];
    std::vector<VkDescriptorBufferInfo> values_heap;
    VkDescriptorBufferInfo* values = values_inline;
    if (c.descriptorCount > kInlineValues) {
      values_heap.resize(c.descriptorCount);
      values = values_heap.data();
    }
    ReadSource(c, src, src_owned != nullptr, src_binding, values);
    if (dst_converted) {
      ForEachRecord(*dst->layout, c.dstBinding, c.dstArrayElement, c.descriptorCount,
                    [&](uint32_t record, uint32_t k) { WriteRecord(b_, lookups_, *dst, record, values[k]); });
      if (mirror && !b_.MirrorBufferDescriptors(*dst, c.dstBinding, c.dstArrayElement,
                                                dst->layout->Find(c.dstBinding)->type, values, c.descriptorCount)) {
        dst->full_stale = true;
      }
    } else if (dst_owned == nullptr) {
      translated_.ToNative(c, src_binding->type, values);
      if (mirror) native_mirrors_.push_back({dst, c});
    }
  }

  // What goes down, then the native writes translated from records, then the native
  // ranges copies changed mirrored into full native sets (now that the application's
  // sets hold them).
  void SendDown(VkDevice device) {
    if (native_writes_ != 0 || !copies_.empty()) {
      b_.next.UpdateDescriptorSets(device, native_writes_, writes_, static_cast<uint32_t>(copies_.size()),
                                   copies_.empty() ? nullptr : copies_.data());
    }
    translated_.Flush(device);
    for (const NativeMirror& m : native_mirrors_) {
      if (!b_.MirrorNativeRange(*m.dst, m.copy.dstSet, m.copy.dstBinding, m.copy.dstArrayElement,
                                m.copy.descriptorCount)) {
        m.dst->full_stale = true;
      }
    }
  }

 private:
  // A copy's source descriptors into values[0..descriptorCount): a converted binding's
  // CPU copies, else a native set's kept buffer descriptors (null where unknown: logged).
  void ReadSource(const VkCopyDescriptorSet& c, const SetShadow* src, bool src_owned,
                  const ConvertedBinding* src_binding, VkDescriptorBufferInfo* values) {
    std::fill(values, values + c.descriptorCount, VkDescriptorBufferInfo{});
    if (src_binding != nullptr) {
      ForEachRecord(*src->layout, c.srcBinding, c.srcArrayElement, c.descriptorCount, [&](uint32_t record, uint32_t k) {
        if (record < src->record_count) values[k] = src->descriptors[record];
      });
    } else if (!src_owned &&
               !ReadNativeDescriptors(b_, c.srcSet, c.srcBinding, c.srcArrayElement, c.descriptorCount, values)) {
      if (!b_.logged_unseen_copy.exchange(true, std::memory_order_relaxed)) {
        BINDERY_LOG(b_.device.log(), kWarn, "bindings-copy",
                    "a descriptor copy into converted bindings reads a native set whose buffer descriptors the layer "
                    "did not see (allocated before any layout converted): the copied descriptors read as null "
                    "(logged once)");
      }
    }
  }

  struct NativeMirror {
    SetShadow* dst;
    VkCopyDescriptorSet copy;
  };
  static constexpr uint32_t kInline = 16;
  DescriptorStore& b_;
  ThreadLookups& lookups_;
  const bool keep_native_;
  VkWriteDescriptorSet writes_inline_[kInline];
  std::vector<VkWriteDescriptorSet> writes_heap_;
  VkWriteDescriptorSet* writes_ = writes_inline_;
  uint32_t native_writes_ = 0;
  std::vector<VkCopyDescriptorSet> copies_;
  std::vector<NativeMirror> native_mirrors_;  // only for sets with a full native set (rare)
  CopyTranslator translated_;
};

void UpdateConverting(DescriptorStore& b, VkDevice device, uint32_t descriptorWriteCount,
                      const VkWriteDescriptorSet* pDescriptorWrites, uint32_t descriptorCopyCount,
                      const VkCopyDescriptorSet* pDescriptorCopies) {
  ThreadLookups& lookups = Lookups();
  const uint32_t done = WriteLeadingOwnedSets(b, lookups, descriptorWriteCount, pDescriptorWrites);
  if (done == descriptorWriteCount && descriptorCopyCount == 0) return;
  ConvertingUpdate update(b, lookups);
  update.Writes(descriptorWriteCount - done, pDescriptorWrites + done);
  for (uint32_t i = 0; i < descriptorCopyCount; ++i) update.Copy(pDescriptorCopies[i]);
  update.SendDown(device);
}

}  // namespace

}  // namespace bindery::bindings
