// Layer-owned descriptor sets (sets of layouts with no native binding left): carved from
// their pool's slot arena and record block, with no native set, no heap allocation and
// no map entry. The pool is externally synchronised by the application, so none of this
// locks.
#pragma once

#include <memory>

#include <vulkan/vulkan.h>

#include "bindings/descriptors/descriptor_store.h"

namespace bindery::bindings {

// Gives `pool` its slot arena for `max_sets` sets; false when the region has no room
// (the pool then allocates every set natively, as before layer-owned sets existed).
bool CreateOwnedSlots(PoolShadow& pool, uint32_t max_sets);

// A new layer-owned set of `layout` (`variable_count` descriptors in its variable
// binding). VK_ERROR_OUT_OF_POOL_MEMORY / VK_ERROR_FRAGMENTED_POOL when the pool is full.
VkResult AllocateOwnedSet(PoolShadow& pool, const std::shared_ptr<const SetLayoutShadow>& layout,
                          uint32_t variable_count, VkDescriptorSet* out);

// Frees one layer-owned set (`set` is OwnedSet(handle)).
void FreeOwnedSet(DescriptorStore& b, PoolShadow& pool, VkDescriptorSet handle, SetShadow& set);

// Every layer-owned set of the pool goes at once (reset): O(1) unless some set was
// materialised natively or has private data.
void ResetOwnedSets(DescriptorStore& b, PoolShadow& pool);

// Reset, and the arena goes back to the region (pool destruction).
void DestroyOwnedSlots(DescriptorStore& b, PoolShadow& pool);

}  // namespace bindery::bindings
