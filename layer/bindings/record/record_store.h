// The record store: what the capability keeps for recording command buffers beyond each
// command buffer's own state (command_data.h): the pool of root-ring memory they draw
// from. On top of the pipelines store it reads (model/device_core.h has the order); the
// hooks of record/ own it.
#pragma once

#include <vulkan/vulkan.h>

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

}  // namespace bindery::bindings
