// The record store: what the capability keeps for recording command buffers beyond each
// command buffer's own state (command_data.h): the pool of root-ring memory they draw
// from. On top of the pipelines store it reads (model/device_core.h has the order); the
// hooks of record/ own it.
#pragma once

#include <vulkan/vulkan.h>

#include "bindings/model/lookup_cache.h"
#include "bindings/pipelines/pipeline_store.h"
#include "bindings/record/command_data.h"
#include "bindings/record/root_ring.h"
#include "chassis/trackers.h"

namespace bindery::bindings {

class RecordStore : public PipelineStore {
 public:
  using PipelineStore::PipelineStore;

  // Per-command-buffer memory for push-descriptor records and ring roots (root_ring.h).
  RootRingPool ring_pool{*this};
};

// The capability's data of a command buffer, through the tracking stage's command index.
inline BindingsCommandData* CommandDataOf(RecordStore& b, VkCommandBuffer cb) {
  CommandState* state = Trackers::CommandOf(cb);
  return state != nullptr ? static_cast<BindingsCommandData*>(state->data(b.slot)) : nullptr;
}

// What a record hook found once and passes down, so that no step looks it up again: the
// device's record store, the command buffer, and the command buffer's state (nullptr
// where the tracking stage has none for it).
struct RecordContext {
  RecordStore& b;
  VkCommandBuffer cb;
  BindingsCommandData* data;
};
inline RecordContext ContextOf(RecordStore& b, VkCommandBuffer cb) { return RecordContext{b, cb, CommandDataOf(b, cb)}; }

// The shadow of `layout` (nullptr when unknown), through the command buffer's memory of the
// last layout it bound or pushed through (a command buffer uses few layouts: no
// thread-local access, no lock), else the per-thread lookup, remembered. `data` may be
// nullptr (nothing remembered then).
const PipelineLayoutShadow* LayoutShadowLookup(RecordStore& b, BindingsCommandData* data, VkPipelineLayout layout,
                                               uint64_t generation);
inline const PipelineLayoutShadow* LayoutShadowOf(RecordStore& b, BindingsCommandData* data, VkPipelineLayout layout) {
  const uint64_t generation = g_lookup_generation.load(std::memory_order_acquire);
  if (data != nullptr && data->last_layout == layout && data->last_layout_generation == generation &&
      layout != VK_NULL_HANDLE) {
    return data->last_layout_shadow;
  }
  return LayoutShadowLookup(b, data, layout, generation);
}

// The shadow of a converting update template (nullptr for any other handle), the same way:
// the command buffer's last one, else the locked map, remembered (DestroyTemplate
// invalidates the lookup caches after erasing).
const TemplateShadow* TemplateShadowLookup(RecordStore& b, BindingsCommandData* data,
                                           VkDescriptorUpdateTemplate handle, uint64_t generation);
inline const TemplateShadow* TemplateShadowOf(RecordStore& b, BindingsCommandData* data,
                                              VkDescriptorUpdateTemplate handle) {
  const uint64_t generation = g_lookup_generation.load(std::memory_order_acquire);
  if (data != nullptr && data->last_template == handle && data->last_template_generation == generation &&
      handle != VK_NULL_HANDLE) {
    return data->last_template_shadow;
  }
  return TemplateShadowLookup(b, data, handle, generation);
}

}  // namespace bindery::bindings
