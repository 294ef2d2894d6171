// Descriptor pools: each pool's shadow owns its argument block (pool_blocks.h), made on
// its first converted set, and, under force, the arena of its layer-owned sets
// (owned_sets.h); the native pool keeps the native descriptors.
#include <memory>

#include "bindings/descriptors/descriptor_hooks.h"
#include "bindings/descriptors/descriptor_store.h"
#include "bindings/descriptors/owned_sets.h"
#include "bindings/descriptors/pool_blocks.h"
#include "bindings/model/lookup_cache.h"
#include "core/pnext.h"

namespace bindery::bindings {

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

}  // namespace bindery::bindings
