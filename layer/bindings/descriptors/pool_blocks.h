// A descriptor pool's argument block (one host-visible, addressable buffer in argument
// memory: model/argument_memory.h, sized from the pool's create info, one record per
// converted descriptor) and the sets it holds (pool_blocks.cpp). Used by the pool hooks
// (descriptor_pool_hooks.cpp) and set allocation (descriptor_set_hooks.cpp).
#pragma once

#include <cstdint>

#include <vulkan/vulkan.h>

#include "bindings/descriptors/descriptor_store.h"

namespace bindery::bindings {

// The pool's argument-block buffer: `records` records, mapped, with its device address.
VkResult CreateBlockBuffer(DescriptorStore& b, uint32_t records, PoolShadow& pool);
// The block and its CPU copies given back (the pool keeps its shadow).
void DestroyBlockBuffer(DescriptorStore& b, PoolShadow& pool);
// Forgets every set of the pool (reset / destroy): records back to the pool.
void ForgetSets(DescriptorStore& b, PoolShadow& pool);

}  // namespace bindery::bindings
