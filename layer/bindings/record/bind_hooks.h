// What the bind hooks (bind_hooks.cpp) do that other record steps do again: the converted
// bind, and a bound set's root slot.
#pragma once

#include <cstdint>

#include <vulkan/vulkan.h>

#include "bindings/record/command_data.h"
#include "bindings/record/record_store.h"

namespace bindery::bindings {

// The converted bind (bind_hooks.cpp): roots pushed, native parts bound natively.
void BindSets(const RecordContext& c, VkPipelineBindPoint bindPoint, VkPipelineLayout layout,
              const PipelineLayoutShadow* pl, uint32_t firstSet, uint32_t setCount, const VkDescriptorSet* pSets,
              uint32_t dynamicOffsetCount, const uint32_t* pDynamicOffsets);

// A bound set's root slot as `r` (a slot of a layout compatible with the one it was bound
// through) lays it out: its block's address or its records, then its converted dynamic
// offsets taken from `dynamic` (every dynamic offset of the set, in binding order). Writes
// `out` (indexed from r.root_offset) and returns the slot's length (bind_hooks.cpp).
uint32_t WriteBoundSetSlot(RecordStore& b, const SetRoot& r, VkDescriptorSet set, const uint32_t* dynamic,
                           uint32_t dynamic_count, uint8_t* out);

}  // namespace bindery::bindings
