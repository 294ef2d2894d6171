// Pools and sets: each pool owns one host-visible, addressable buffer holding the argument
// blocks of its sets (sized from its create info: one record per converted descriptor);
// each set is a run of records in it, written by vkUpdateDescriptorSets. The native pool
// keeps the native descriptors, and every set the application holds is a real native set.
#include <algorithm>
#include <cstring>
#include <vector>

#include "bindings/bindings_device.h"
#include "bindings/hooks.h"
#include "bindings/set_records.h"
#include "core/pnext.h"

namespace bindery::bindings {
namespace {

uint32_t FindHostMemoryType(const DeviceBindings& b, uint32_t type_bits) {
  const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  for (uint32_t i = 0; i < b.memory_properties.memoryTypeCount; ++i) {
    if ((type_bits & (1u << i)) != 0 && (b.memory_properties.memoryTypes[i].propertyFlags & want) == want) return i;
  }
  return UINT32_MAX;
}

// The pool's argument-block buffer: `records` records, mapped, with its device address.
VkResult CreateBlockBuffer(DeviceBindings& b, uint32_t records, PoolShadow& pool) {
  VkDevice device = b.device.handle;
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = static_cast<VkDeviceSize>(records) * kRecordBytes;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkResult r = b.next.CreateBuffer(device, &info, nullptr, &pool.buffer);
  if (r != VK_SUCCESS) return r;
  VkMemoryRequirements req{};
  b.next.GetBufferMemoryRequirements(device, pool.buffer, &req);
  VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.pNext = b.device.addressing.memory_flag ? &flags : nullptr;
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = FindHostMemoryType(b, req.memoryTypeBits);
  if (alloc.memoryTypeIndex == UINT32_MAX) return VK_ERROR_OUT_OF_HOST_MEMORY;
  r = b.next.AllocateMemory(device, &alloc, nullptr, &pool.memory);
  if (r != VK_SUCCESS) return r;
  b.counters.block_bytes->Add(alloc.allocationSize);  // the memory cost per descriptor (bench, summary)
  r = b.next.BindBufferMemory(device, pool.buffer, pool.memory, 0);
  if (r != VK_SUCCESS) return r;
  void* mapped = nullptr;
  r = b.next.MapMemory(device, pool.memory, 0, VK_WHOLE_SIZE, 0, &mapped);
  if (r != VK_SUCCESS) return r;
  pool.mapped = static_cast<uint8_t*>(mapped);
  pool.address = b.trackers().AddressOf(pool.buffer);
  return pool.address != 0 ? VK_SUCCESS : VK_ERROR_INITIALIZATION_FAILED;
}

void DestroyBlockBuffer(DeviceBindings& b, PoolShadow& pool) {
  if (pool.buffer != VK_NULL_HANDLE) b.next.DestroyBuffer(b.device.handle, pool.buffer, nullptr);
  if (pool.memory != VK_NULL_HANDLE) b.next.FreeMemory(b.device.handle, pool.memory, nullptr);
  pool.buffer = VK_NULL_HANDLE;
  pool.memory = VK_NULL_HANDLE;
}

// Forgets every set of the pool (reset / destroy): records back to the pool.
void ForgetSets(DeviceBindings& b, PoolShadow& pool) {
  for (VkDescriptorSet set : pool.sets) {
    if (std::unique_ptr<SetShadow> shadow = b.sets.Erase(set)) b.ReleaseFull(*shadow);
  }
  pool.sets.clear();
  pool.records.Reset();
}

}  // namespace

VKAPI_ATTR VkResult VKAPI_CALL CreateDescriptorPool(VkDevice device, const VkDescriptorPoolCreateInfo* pCreateInfo,
                                                    const VkAllocationCallbacks* pAllocator,
                                                    VkDescriptorPool* pDescriptorPool) {
  DeviceBindings& b = BindingsOf(device);
  uint64_t records = 0;
  for (uint32_t i = 0; i < pCreateInfo->poolSizeCount; ++i) {
    const VkDescriptorPoolSize& s = pCreateInfo->pPoolSizes[i];
    if (IsConvertedType(s.type, b.plan.convert_uniform_buffers)) records += s.descriptorCount;
  }
  if (records == 0) return b.next.CreateDescriptorPool(device, pCreateInfo, pAllocator, pDescriptorPool);
  if (records > UINT32_MAX / kRecordBytes) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  // The native pool keeps the application's sizes: layouts the capability leaves native
  // may still take buffer descriptors from it, and unused counts cost the driver little.
  auto pool = std::make_unique<PoolShadow>();
  VkResult r = CreateBlockBuffer(b, static_cast<uint32_t>(records), *pool);
  if (r != VK_SUCCESS) {
    DestroyBlockBuffer(b, *pool);
    return r == VK_ERROR_INITIALIZATION_FAILED ? VK_ERROR_OUT_OF_DEVICE_MEMORY : r;
  }
  pool->records = RecordAllocator(static_cast<uint32_t>(records));
  pool->descriptors.assign(records, VkDescriptorBufferInfo{});
  r = b.next.CreateDescriptorPool(device, pCreateInfo, pAllocator, pDescriptorPool);
  if (r != VK_SUCCESS) {
    DestroyBlockBuffer(b, *pool);
    return r;
  }
  b.pools.Insert(*pDescriptorPool, std::move(pool));
  return r;
}

VKAPI_ATTR void VKAPI_CALL DestroyDescriptorPool(VkDevice device, VkDescriptorPool descriptorPool,
                                                 const VkAllocationCallbacks* pAllocator) {
  DeviceBindings& b = BindingsOf(device);
  if (descriptorPool != VK_NULL_HANDLE) {
    if (std::unique_ptr<PoolShadow> pool = b.pools.Erase(descriptorPool)) {
      ForgetSets(b, *pool);
      DestroyBlockBuffer(b, *pool);
    }
  }
  b.next.DestroyDescriptorPool(device, descriptorPool, pAllocator);
}

VKAPI_ATTR VkResult VKAPI_CALL ResetDescriptorPool(VkDevice device, VkDescriptorPool descriptorPool,
                                                   VkDescriptorPoolResetFlags flags) {
  DeviceBindings& b = BindingsOf(device);
  if (PoolShadow* pool = b.pools.Find(descriptorPool)) ForgetSets(b, *pool);
  return b.next.ResetDescriptorPool(device, descriptorPool, flags);
}

VKAPI_ATTR VkResult VKAPI_CALL AllocateDescriptorSets(VkDevice device, const VkDescriptorSetAllocateInfo* pAllocateInfo,
                                                      VkDescriptorSet* pDescriptorSets) {
  DeviceBindings& b = BindingsOf(device);
  const uint32_t n = pAllocateInfo->descriptorSetCount;
  // The usual call allocates a few sets: no heap allocation for up to kInline of them.
  constexpr uint32_t kInline = 8;
  std::shared_ptr<const SetLayoutShadow> layouts_inline[kInline];
  std::pair<uint32_t, uint32_t> runs_inline[kInline];
  std::vector<std::shared_ptr<const SetLayoutShadow>> layouts_heap;
  std::vector<std::pair<uint32_t, uint32_t>> runs_heap;
  std::shared_ptr<const SetLayoutShadow>* layouts = layouts_inline;
  std::pair<uint32_t, uint32_t>* runs = runs_inline;  // {first record, count}
  if (n > kInline) {
    layouts_heap.resize(n);
    runs_heap.resize(n);
    layouts = layouts_heap.data();
    runs = runs_heap.data();
  }
  bool any = false;
  for (uint32_t i = 0; i < n; ++i) {
    const SetLayoutEntry* e = b.set_layouts.Find(pAllocateInfo->pSetLayouts[i]);
    if (e != nullptr && e->shadow->converts()) layouts[i] = e->shadow;
    any = any || layouts[i] != nullptr;
    runs[i] = {0, 0};
  }
  if (!any) return b.next.AllocateDescriptorSets(device, pAllocateInfo, pDescriptorSets);
  PoolShadow* pool = b.pools.Find(pAllocateInfo->descriptorPool);
  const auto* variable = FindInChain<VkDescriptorSetVariableDescriptorCountAllocateInfo>(
      pAllocateInfo->pNext, VK_STRUCTURE_TYPE_DESCRIPTOR_SET_VARIABLE_DESCRIPTOR_COUNT_ALLOCATE_INFO);

  // Records first: they can be given back whatever the pool's flags, native sets cannot.
  VkResult result = VK_SUCCESS;
  for (uint32_t i = 0; i < n && result == VK_SUCCESS; ++i) {
    if (layouts[i] == nullptr) continue;
    const uint32_t var = variable != nullptr && i < variable->descriptorSetCount ? variable->pDescriptorCounts[i] : 0;
    const uint32_t count = layouts[i]->RecordsFor(var);
    runs[i].second = count;
    if (count == 0) continue;
    RecordAllocator::Result r = pool != nullptr ? pool->records.Allocate(count, &runs[i].first)
                                                : RecordAllocator::Result::kOutOfPoolMemory;
    if (r != RecordAllocator::Result::kOk) {
      runs[i].second = 0;
      result = r == RecordAllocator::Result::kFragmented ? VK_ERROR_FRAGMENTED_POOL : VK_ERROR_OUT_OF_POOL_MEMORY;
    }
  }
  if (result == VK_SUCCESS) result = b.next.AllocateDescriptorSets(device, pAllocateInfo, pDescriptorSets);
  if (result != VK_SUCCESS) {
    for (uint32_t i = 0; i < n; ++i) {
      if (pool != nullptr && runs[i].second != 0) pool->records.Free(runs[i].first, runs[i].second);
      pDescriptorSets[i] = VK_NULL_HANDLE;
    }
    return result;
  }
  for (uint32_t i = 0; i < n; ++i) {
    if (layouts[i] == nullptr) continue;
    auto set = std::make_unique<SetShadow>();
    set->layout = std::move(layouts[i]);
    set->pool = pool;
    set->first_record = runs[i].first;
    set->record_count = runs[i].second;
    if (pool != nullptr && set->record_count != 0) {
      set->records = pool->mapped + static_cast<size_t>(set->first_record) * kRecordBytes;
      set->address = pool->address + static_cast<VkDeviceAddress>(set->first_record) * kRecordBytes;
      // Unwritten descriptors read as null records (a partially bound set stays safe).
      std::memset(set->records, 0, static_cast<size_t>(set->record_count) * kRecordBytes);
    }
    if (pool != nullptr && set->record_count != 0) {
      set->descriptors = pool->descriptors.data() + set->first_record;
      std::fill(set->descriptors, set->descriptors + set->record_count, VkDescriptorBufferInfo{});
    }
    if (pool != nullptr) pool->sets.push_back(pDescriptorSets[i]);
    b.sets.Insert(pDescriptorSets[i], std::move(set));
    b.counters.sets->Add();
  }
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL FreeDescriptorSets(VkDevice device, VkDescriptorPool descriptorPool,
                                                  uint32_t descriptorSetCount, const VkDescriptorSet* pDescriptorSets) {
  DeviceBindings& b = BindingsOf(device);
  if (PoolShadow* pool = b.pools.Find(descriptorPool)) {
    for (uint32_t i = 0; i < descriptorSetCount; ++i) {
      if (pDescriptorSets[i] == VK_NULL_HANDLE) continue;
      std::unique_ptr<SetShadow> set = b.sets.Erase(pDescriptorSets[i]);
      if (set == nullptr) continue;
      b.ReleaseFull(*set);
      pool->records.Free(set->first_record, set->record_count);
      auto it = std::find(pool->sets.begin(), pool->sets.end(), pDescriptorSets[i]);
      if (it != pool->sets.end()) {
        *it = pool->sets.back();
        pool->sets.pop_back();
      }
    }
  }
  return b.next.FreeDescriptorSets(device, descriptorPool, descriptorSetCount, pDescriptorSets);
}

VKAPI_ATTR void VKAPI_CALL UpdateDescriptorSets(VkDevice device, uint32_t descriptorWriteCount,
                                                const VkWriteDescriptorSet* pDescriptorWrites,
                                                uint32_t descriptorCopyCount,
                                                const VkCopyDescriptorSet* pDescriptorCopies) {
  DeviceBindings& b = BindingsOf(device);
  // Native writes and copies are passed down together, in the application's order
  // relative to each other (records do not interact with native descriptors).
  constexpr uint32_t kInline = 16;
  VkWriteDescriptorSet writes_inline[kInline];
  std::vector<VkWriteDescriptorSet> writes_heap;
  VkWriteDescriptorSet* writes = writes_inline;
  if (descriptorWriteCount > kInline) {
    writes_heap.resize(descriptorWriteCount);
    writes = writes_heap.data();
  }
  uint32_t native_writes = 0;
  VkDescriptorSet last_handle = VK_NULL_HANDLE;
  SetShadow* last = nullptr;
  for (uint32_t i = 0; i < descriptorWriteCount; ++i) {
    const VkWriteDescriptorSet& w = pDescriptorWrites[i];
    // Writes usually come in runs for one set: look it up once per run.
    if (w.dstSet != last_handle) {
      last_handle = w.dstSet;
      last = b.sets.Find(w.dstSet);
    }
    SetShadow* set = last;
    if (set != nullptr) set->full_stale = true;
    const bool converted =
        set != nullptr && ForEachRecord(*set->layout, w.dstBinding, w.dstArrayElement, w.descriptorCount,
                                        [&](uint32_t record, uint32_t k) { WriteRecord(b, *set, record, w.pBufferInfo[k]); });
    if (!converted) writes[native_writes++] = w;
  }
  std::vector<VkCopyDescriptorSet> copies;
  for (uint32_t i = 0; i < descriptorCopyCount; ++i) {
    const VkCopyDescriptorSet& c = pDescriptorCopies[i];
    SetShadow* src = b.sets.Find(c.srcSet);
    SetShadow* dst = b.sets.Find(c.dstSet);
    if (dst != nullptr) dst->full_stale = true;
    bool converted = false;
    if (src != nullptr && dst != nullptr && src->layout->Find(c.srcBinding) != nullptr) {
      // Collect the source records, then write them (a copy within one set may overlap).
      std::vector<VkDescriptorBufferInfo> values(c.descriptorCount);
      ForEachRecord(*src->layout, c.srcBinding, c.srcArrayElement, c.descriptorCount, [&](uint32_t record, uint32_t k) {
        if (record < src->record_count) values[k] = src->descriptors[record];
      });
      converted = ForEachRecord(*dst->layout, c.dstBinding, c.dstArrayElement, c.descriptorCount,
                                [&](uint32_t record, uint32_t k) { WriteRecord(b, *dst, record, values[k]); });
    }
    if (!converted) copies.push_back(c);
  }
  if (native_writes != 0 || !copies.empty()) {
    b.next.UpdateDescriptorSets(device, native_writes, writes, static_cast<uint32_t>(copies.size()),
                                copies.empty() ? nullptr : copies.data());
  }
}

}  // namespace bindery::bindings
