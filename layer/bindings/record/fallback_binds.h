// Sets bound again as full native sets for a pipeline running natively, and the converted
// binds put back after it (fallback_binds.cpp).
#pragma once

#include <cstdint>

#include <vulkan/vulkan.h>

#include "bindings/record/command_data.h"
#include "bindings/record/record_store.h"

namespace bindery::bindings {

// The sets bound at `point` bound again as full native sets for `f`'s
// layout; and the converted binds put back after that.
void BindFullSets(const RecordContext& c, VkPipelineBindPoint bind_point,
                  BindingsCommandData::BindPoint& point, const FallbackPipeline& f);
void RestoreConvertedBinds(const RecordContext& c, VkPipelineBindPoint bind_point,
                           BindingsCommandData::BindPoint& point);
// Does set `set` at `point` still hold what the push `prior` wrote, for a
// push through `through` that keeps the descriptors it does not write? Not when a later
// bind or push disturbed it, nor when `through` is not compatible with the prior push's
// layout for that set (the spec keeps no contents across such pushes).
bool PushStillHolds(RecordStore& b, const BindingsCommandData::BindPoint& point, uint32_t set,
                    const PushCopy& prior, VkPipelineLayout through);
// Was what set `i` holds (bound or pushed at `order` through `layout`) disturbed by a later
// bind or push at `point`?
bool DisturbedSince(RecordStore& b, const BindingsCommandData::BindPoint& point, uint32_t i, uint32_t order,
                    VkPipelineLayout layout);

}  // namespace bindery::bindings
