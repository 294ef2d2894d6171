#include "chassis/command_state.h"

#include <cstring>

namespace bindery {
namespace {

int BindPointIndex(VkPipelineBindPoint bind_point) {
  switch (bind_point) {
    case VK_PIPELINE_BIND_POINT_GRAPHICS: return 0;
    case VK_PIPELINE_BIND_POINT_COMPUTE: return 1;
    case VK_PIPELINE_BIND_POINT_RAY_TRACING_KHR: return 2;
    default: return -1;
  }
}

}  // namespace

CommandState::CommandState(VkCommandPool pool, const PoolInfo& info, bool secondary, uint32_t max_push_constant_bytes)
    : pool_(pool),
      queue_flags_(info.queue_flags),
      protected_(info.is_protected),
      secondary_(secondary),
      max_push_bytes_(max_push_constant_bytes),
      push_bytes_(static_cast<std::size_t>(max_push_constant_bytes) * kMaxPushRecords) {}

void CommandState::Reset(const Inherited& inherited) {
  pipelines_.fill(VK_NULL_HANDLE);
  push_count_ = 0;
  last_push_ = nullptr;
  last_push_bytes_ = nullptr;
  push_untrackable_ = false;
  compute_shader_object_ = false;
  set_bind_count_ = 0;
  set_handle_count_ = 0;
  dynamic_offset_count_ = 0;
  sets_untrackable_ = false;
  conditional_active_ = false;
  inherited_conditional_rendering_ = secondary_ && inherited.conditional_rendering;
  counting_query_count_ = 0;
  counting_queries_overflow_ = false;
  inherited_counting_statistics_ = secondary_ && inherited.counting_statistics;
  for (auto& d : data_) {
    if (d != nullptr) d->OnReset();
  }
}

VkResult CommandState::RecordingError() const {
  for (const auto& d : data_) {
    if (d != nullptr && d->RecordingError() != VK_SUCCESS) return d->RecordingError();
  }
  return VK_SUCCESS;
}

void CommandState::OnBindPipeline(VkPipelineBindPoint bind_point, VkPipeline pipeline) {
  const int i = BindPointIndex(bind_point);
  if (i < 0) return;
  pipelines_[i] = pipeline;
  // A pipeline bound at the compute bind point replaces a compute shader object.
  if (i == 1) compute_shader_object_ = false;
}

VkPipeline CommandState::pipeline(VkPipelineBindPoint bind_point) const {
  const int i = BindPointIndex(bind_point);
  return i < 0 ? VK_NULL_HANDLE : pipelines_[i];
}

void CommandState::OnPushConstantsSlow(VkPipelineLayout layout, VkShaderStageFlags stages, uint32_t offset,
                                       uint32_t size, const void* values) {
  // (The same range as the last push was handled inline: only records within bounds exist,
  // so such a push is within bounds too.)
  // Invalid anyway (out of bounds, or not a positive multiple of 4): do not replay it.
  if (size == 0 || size % 4 != 0 || size > max_push_bytes_ || offset > max_push_bytes_ - size) {
    push_untrackable_ = true;
    return;
  }
  // A later push of the same (stages, offset, size) overwrites every byte an earlier one
  // wrote for those stages: the earlier one leaves the replay list and the later one goes
  // last, keeping its own bytes. Different ranges or stages keep their own records, so a
  // VERTEX push followed by a COMPUTE push at the same offsets replays both, in order.
  uint32_t storage = kMaxPushRecords;
  for (uint32_t i = 0; i < push_count_; ++i) {
    const PushRecord& r = pushes_[i];
    if (r.stages == stages && r.offset == offset && r.size == size) {
      storage = r.storage;
      for (uint32_t j = i; j + 1 < push_count_; ++j) pushes_[j] = pushes_[j + 1];
      --push_count_;
      break;
    }
  }
  if (storage == kMaxPushRecords) {
    if (push_count_ == kMaxPushRecords) {
      push_untrackable_ = true;  // too many distinct ranges to replay: no compute work here
      return;
    }
    // The first byte slot no record uses.
    for (uint32_t s = 0; s < kMaxPushRecords && storage == kMaxPushRecords; ++s) {
      bool used = false;
      for (uint32_t i = 0; i < push_count_; ++i) used = used || pushes_[i].storage == s;
      if (!used) storage = s;
    }
  }
  uint8_t* bytes = push_bytes_.data() + static_cast<std::size_t>(storage) * max_push_bytes_;
  std::memcpy(bytes, values, size);
  pushes_[push_count_++] = {layout, stages, offset, size, storage};
  last_push_ = &pushes_[push_count_ - 1];
  last_push_bytes_ = bytes;
}

void CommandState::OnPushConstants2(const PushConstantsInfo& info) {
  // A null layout with a VkPipelineLayoutCreateInfo in pNext (maintenance6's
  // dynamicPipelineLayout) cannot be replayed through vkCmdPushConstants.
  if (info.pNext != nullptr || info.layout == VK_NULL_HANDLE) {
    push_untrackable_ = true;
    return;
  }
  OnPushConstants(info.layout, info.stageFlags, info.offset, info.size, info.pValues);
}

void CommandState::OnBindShaders(uint32_t count, const VkShaderStageFlagBits* stages, const ShaderObject* shaders) {
  for (uint32_t i = 0; i < count; ++i) {
    if (stages[i] == VK_SHADER_STAGE_COMPUTE_BIT) {
      compute_shader_object_ = shaders != nullptr && shaders[i] != 0;
      if (compute_shader_object_) pipelines_[1] = VK_NULL_HANDLE;
    }
  }
}

void CommandState::OnBindDescriptorSets(VkPipelineBindPoint bind_point, VkPipelineLayout layout, uint32_t first_set,
                                        uint32_t set_count, const VkDescriptorSet* sets, uint32_t dynamic_count,
                                        const uint32_t* dynamic_offsets) {
  if (bind_point != VK_PIPELINE_BIND_POINT_COMPUTE || sets_untrackable_ || set_count == 0) return;
  // Drop the binds this one covers entirely (their sets are all bound again now), then
  // compact the handle and offset storage of those that stay.
  uint32_t kept = 0, handles = 0, offsets = 0;
  for (uint32_t i = 0; i < set_bind_count_; ++i) {
    SetBindRecord r = set_binds_[i];
    if (r.first_set >= first_set && r.first_set + r.set_count <= first_set + set_count) continue;
    std::memmove(&set_handles_[handles], &set_handles_[r.sets_at], r.set_count * sizeof(VkDescriptorSet));
    std::memmove(&dynamic_offsets_[offsets], &dynamic_offsets_[r.dynamic_at], r.dynamic_count * sizeof(uint32_t));
    r.sets_at = handles;
    r.dynamic_at = offsets;
    handles += r.set_count;
    offsets += r.dynamic_count;
    set_binds_[kept++] = r;
  }
  set_bind_count_ = kept;
  set_handle_count_ = handles;
  dynamic_offset_count_ = offsets;
  if (set_bind_count_ == kMaxSetBinds || set_count > kMaxRecordedSets - set_handle_count_ ||
      dynamic_count > kMaxRecordedDynamicOffsets - dynamic_offset_count_) {
    sets_untrackable_ = true;  // more binds than the record holds: no such work here
    return;
  }
  std::memcpy(&set_handles_[set_handle_count_], sets, set_count * sizeof(VkDescriptorSet));
  if (dynamic_count != 0) {
    std::memcpy(&dynamic_offsets_[dynamic_offset_count_], dynamic_offsets, dynamic_count * sizeof(uint32_t));
  }
  set_binds_[set_bind_count_++] = {layout, first_set, set_count, set_handle_count_, dynamic_count,
                                   dynamic_offset_count_};
  set_handle_count_ += set_count;
  dynamic_offset_count_ += dynamic_count;
}

void CommandState::RestoreComputeDescriptorSets(VkCommandBuffer cb, const VkLayerDispatchTable& next) const {
  for (uint32_t i = 0; i < set_bind_count_; ++i) {
    const SetBindRecord& r = set_binds_[i];
    next.CmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, r.layout, r.first_set, r.set_count,
                               &set_handles_[r.sets_at], r.dynamic_count,
                               r.dynamic_count != 0 ? &dynamic_offsets_[r.dynamic_at] : nullptr);
  }
}

void CommandState::OnBeginConditionalRendering(const VkConditionalRenderingBeginInfoEXT& info) {
  conditional_active_ = true;
  conditional_ = info;
  conditional_.pNext = nullptr;
}

void CommandState::OnBeginQuery(bool counts_dispatches, VkQueryPool pool, uint32_t query, uint32_t index) {
  if (!counts_dispatches) return;
  if (counting_query_count_ == kMaxCountingQueries) {
    counting_queries_overflow_ = true;
    return;
  }
  counting_queries_[counting_query_count_++] = {pool, query, index};
}

void CommandState::OnEndQuery(VkQueryPool pool, uint32_t query, uint32_t index) {
  for (uint32_t i = 0; i < counting_query_count_; ++i) {
    const CountingQuery& q = counting_queries_[i];
    if (q.pool == pool && q.query == query && q.index == index) {
      counting_queries_[i] = counting_queries_[--counting_query_count_];
      return;
    }
  }
}

void CommandState::SuspendForCompute(VkCommandBuffer cb, const VkLayerDispatchTable& next) const {
  // Dispatches obey conditional rendering, copies and fills do not: work standing in for
  // a copy must run unconditionally.
  if (conditional_active_) next.CmdEndConditionalRenderingEXT(cb);
}

void CommandState::RestoreCompute(VkCommandBuffer cb, const VkLayerDispatchTable& next) const {
  if (pipelines_[1] != VK_NULL_HANDLE) next.CmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines_[1]);
  // Binding a pipeline disturbs neither descriptor sets nor push constants. Pushes are
  // recorded only for work that pushes constants itself (which overwrites them): replay
  // those, each with its own layout and bytes.
  for (uint32_t i = 0; i < push_count_; ++i) {
    const PushRecord& r = pushes_[i];
    next.CmdPushConstants(cb, r.layout, r.stages, r.offset, r.size,
                          push_bytes_.data() + static_cast<std::size_t>(r.storage) * max_push_bytes_);
  }
  if (conditional_active_) next.CmdBeginConditionalRenderingEXT(cb, &conditional_);
}

}  // namespace bindery
