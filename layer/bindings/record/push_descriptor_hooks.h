// Pushes made again natively for a pipeline running natively, and put back after it
// (push_descriptor_hooks.cpp).
#pragma once

#include <cstdint>

#include <vulkan/vulkan.h>

#include "bindings/record/command_data.h"
#include "bindings/record/record_store.h"

namespace bindery::bindings {

// The pushes to `set` made again, natively, with the full
// native layout of `f` (a pipeline that runs natively), but for pushes through layouts not
// compatible with its layout for that set. False when there is none.
bool RepushNatively(RecordStore& b, VkCommandBuffer cb, VkPipelineBindPoint bind_point, BindingsCommandData& data,
                    BindingsCommandData::BindPoint& point, uint32_t set, const FallbackPipeline& f);
// The native parts of the pushes to every pushed set made again through the application's
// layouts (after full-layout pushes for a pipeline running natively replaced them), but
// for the sets whose bit `skip` has (disturbed since).
void RepushNativeParts(RecordStore& b, VkCommandBuffer cb, VkPipelineBindPoint bind_point, BindingsCommandData& data,
                       BindingsCommandData::BindPoint& point, uint64_t skip);

}  // namespace bindery::bindings
