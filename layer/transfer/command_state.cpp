#include "transfer/command_state.h"

#include <atomic>
#include <cstring>

#include "transfer/transfer_device.h"

#include <vulkan/vk_layer_dispatch_table.h>

namespace bindery::transfer {

namespace {

// Bumped whenever a command buffer's state is erased on any device: a cached pointer is
// valid only while the generation it was read under is current.
std::atomic<uint64_t> g_command_generation{1};

struct CommandCache {
  const DeviceTransfers* transfers = nullptr;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  CommandState* state = nullptr;
  uint64_t generation = 0;
};
// initial-exec: static TLS, no __tls_get_addr on the record path (and no dynamic TLS block,
// which LeakSanitizer in GCC 12 mis-tracks in dlopened libraries).
__attribute__((tls_model("initial-exec"))) thread_local CommandCache t_command_cache;

}  // namespace

CommandState* DeviceTransfers::FindCommand(VkCommandBuffer cb) {
  const uint64_t generation = g_command_generation.load(std::memory_order_acquire);
  CommandCache& cache = t_command_cache;
  if (cache.cb == cb && cache.transfers == this && cache.generation == generation) return cache.state;
  CommandState* state = commands.Find(cb);
  cache = {this, cb, state, generation};
  return state;
}

DeviceTransfers::~DeviceTransfers() {
  // Another device's transfers may later live at this address: drop every cached answer.
  g_command_generation.fetch_add(1, std::memory_order_acq_rel);
}

std::unique_ptr<CommandState> DeviceTransfers::ForgetCommand(VkCommandBuffer cb) {
  g_command_generation.fetch_add(1, std::memory_order_acq_rel);
  return commands.Erase(cb);
}

void CommandState::Reset(bool inherits_conditional_rendering) {
  compute_pipeline_ = VK_NULL_HANDLE;
  push_record_count_ = 0;
  push_overflow_ = false;
  conditional_active_ = false;
  inherited_conditional_rendering_ = secondary_ && inherits_conditional_rendering;
}

void CommandState::OnPushConstants(VkPipelineLayout layout, VkShaderStageFlags stages, uint32_t offset,
                                   uint32_t size, const void* values) {
  if (static_cast<uint64_t>(offset) + size > push_bytes_.size()) return;  // invalid anyway
  std::memcpy(push_bytes_.data() + offset, values, size);
  // One record per distinct (stages, offset, size): a later push of the same range
  // replaces the earlier one and moves to the end, preserving replay order.
  for (uint32_t i = 0; i < push_record_count_; ++i) {
    PushRecord& r = push_records_[i];
    if (r.stages == stages && r.offset == offset && r.size == size) {
      for (uint32_t j = i; j + 1 < push_record_count_; ++j) push_records_[j] = push_records_[j + 1];
      push_records_[push_record_count_ - 1] = {layout, stages, offset, size};
      return;
    }
  }
  if (push_record_count_ == kMaxPushRecords) {
    push_overflow_ = true;
    return;
  }
  push_records_[push_record_count_++] = {layout, stages, offset, size};
}

void CommandState::OnBeginConditionalRendering(const VkConditionalRenderingBeginInfoEXT& info) {
  conditional_active_ = true;
  conditional_ = info;
  conditional_.pNext = nullptr;
}

void CommandState::SuspendForKernel(VkCommandBuffer cb, const VkLayerDispatchTable& d) const {
  // Dispatches obey conditional rendering, copies and fills do not: the kernel standing
  // in for a copy must run unconditionally.
  if (conditional_active_) d.CmdEndConditionalRenderingEXT(cb);
}

void CommandState::RestoreAfterKernel(VkCommandBuffer cb, const VkLayerDispatchTable& d) const {
  if (compute_pipeline_ != VK_NULL_HANDLE) d.CmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, compute_pipeline_);
  // Binding a pipeline does not disturb descriptor sets; our push constants did disturb
  // the application's, so replay its pushes (last values, each with its own layout).
  for (uint32_t i = 0; i < push_record_count_; ++i) {
    const PushRecord& r = push_records_[i];
    d.CmdPushConstants(cb, r.layout, r.stages, r.offset, r.size, push_bytes_.data() + r.offset);
  }
  if (conditional_active_) d.CmdBeginConditionalRenderingEXT(cb, &conditional_);
}

}  // namespace bindery::transfer
