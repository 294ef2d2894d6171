// One command buffer as the chassis tracks it: where it can run (its pool's queue
// family), the per-capability CommandData, and — when a capability asked for it — the
// state sent down in it that a capability recording its own work must put back: the
// bound pipeline per bind point, compute shader objects, an active conditional-rendering
// block and — only where a capability asked for them (TrackingPlan::push_constants) — the
// push constants (each push with its own bytes, replayed in order);
// (TrackingPlan::compute_descriptor_sets) the descriptor sets bound at the compute bind
// point (each bind with its layout, sets and dynamic offsets, rebound in order); and what
// would see such work: the active queries that count dispatches, and the statistics a
// secondary inherits (chassis/counting_queries.h).
//
// "Sent down" means as seen at the tracking stage's position in the stack: below the
// capabilities that rewrite state (their rewritten pipelines and root pushes are what is
// recorded here), above those that record their own work (whose kernels are not).
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>
#include <vulkan/vk_layer_dispatch_table.h>

#include "chassis/capability.h"
#include "chassis/newer_vulkan.h"

namespace bindery {

struct PoolInfo {
  uint32_t queue_family = 0;
  VkQueueFlags queue_flags = 0;
  bool is_protected = false;
  std::vector<VkCommandBuffer> members;  // guarded by the pool's external synchronisation
};

// What a secondary command buffer inherits (VkCommandBufferBeginInfo::pInheritanceInfo)
// that decides whether the layer may record compute work in it.
struct CommandInheritance {
  bool conditional_rendering = false;  // VkCommandBufferInheritanceConditionalRenderingInfoEXT
  bool counting_statistics = false;    // pipelineStatistics a dispatch would count
};

class CommandState {
 public:
  CommandState(VkCommandPool pool, const PoolInfo& info, bool secondary, uint32_t max_push_constant_bytes);
  CommandState(const CommandState&) = delete;  // it points into itself (the last push record)
  CommandState& operator=(const CommandState&) = delete;

  VkCommandPool pool() const { return pool_; }
  VkQueueFlags queue_flags() const { return queue_flags_; }
  bool is_protected() const { return protected_; }
  bool secondary() const { return secondary_; }

  // What the tracking stage calls down to for this command buffer (its device's table at
  // the stage's slot), so the record path reaches it from the command buffer alone.
  const VkLayerDispatchTable* tracking_next() const { return tracking_next_; }
  void set_tracking_next(const VkLayerDispatchTable* next) { tracking_next_ = next; }

  // Capability data, by the capability's stack slot.
  CommandData* data(uint32_t slot) const { return data_[slot].get(); }
  void set_data(uint32_t slot, std::unique_ptr<CommandData> data) { data_[slot] = std::move(data); }

  using Inherited = CommandInheritance;
  // Back to the initial state (begin / reset / pool reset); tells every CommandData.
  // `inherited` counts only for secondaries (a primary's inheritance info is ignored).
  void Reset(const Inherited& inherited = {});
  // The first recording error a capability reported (vkEndCommandBuffer returns it).
  VkResult RecordingError() const;

  // ---- the state sent down -------------------------------------------------------
  void OnBindPipeline(VkPipelineBindPoint bind_point, VkPipeline pipeline);
  // A push recorded: same-range small pushes inline, anything else out of line.
  void OnPushConstants(VkPipelineLayout layout, VkShaderStageFlags stages, uint32_t offset, uint32_t size,
                       const void* values) {
    if (!RecordSameRangePush(layout, stages, offset, size, values)) {
      OnPushConstantsSlow(layout, stages, offset, size, values);
    }
  }
  // The record path's common case, inline and calling nothing: a push of at most 32 bytes
  // to the same range as the last push (an application pushing the same block before
  // every dispatch, whose record stays last and only changes bytes). False when it did
  // not record: then OnPushConstantsSlow must.
  bool RecordSameRangePush(VkPipelineLayout layout, VkShaderStageFlags stages, uint32_t offset, uint32_t size,
                           const void* values) {
    PushRecord* last = last_push_;
    if (last == nullptr || size > 32 || last->stages != stages || last->offset != offset || last->size != size) {
      return false;
    }
    last->layout = layout;
    CopySmall(last_push_bytes_, static_cast<const uint8_t*>(values), size);
    return true;
  }
  void OnPushConstantsSlow(VkPipelineLayout layout, VkShaderStageFlags stages, uint32_t offset, uint32_t size,
                           const void* values);
  void OnPushConstants2(const PushConstantsInfo& info);
  void OnBindShaders(uint32_t count, const VkShaderStageFlagBits* stages, const ShaderObject* shaders);
  void OnBeginConditionalRendering(const VkConditionalRenderingBeginInfoEXT& info);
  // A compute vkCmdBindDescriptorSets that binds again exactly what the last recorded bind
  // bound (the same first set, set count and number of dynamic offsets): its record is
  // rewritten in place (layout, sets, offsets), which is what OnBindDescriptorSets would
  // leave (it drops every record the bind covers, and the last one covers all those before
  // it that the bind covers: they were dropped when it was recorded, then appends). The
  // usual case, one set rebound per dispatch, inline: no loop over the other records, no
  // compaction. False, having changed nothing, for any other bind.
  // RebindLastOne is its one-set, no-offset form, few enough registers for the hook's leaf.
  bool RebindLastOne(VkPipelineLayout layout, uint32_t first_set, uint32_t set_count, const VkDescriptorSet* sets,
                     uint32_t dynamic_count) {
    if ((set_count ^ 1u) != 0 || dynamic_count != 0 || set_bind_count_ == 0) return false;
    SetBindRecord& r = set_binds_[set_bind_count_ - 1];
    if (r.first_set != first_set || r.set_count != 1 || r.dynamic_count != 0) return false;
    r.layout = layout;
    set_handles_[r.sets_at] = sets[0];
    return true;
  }
  bool RebindLast(VkPipelineLayout layout, uint32_t first_set, uint32_t set_count, const VkDescriptorSet* sets,
                  uint32_t dynamic_count, const uint32_t* dynamic_offsets) {
    if (set_bind_count_ == 0) return false;
    SetBindRecord& r = set_binds_[set_bind_count_ - 1];
    if (r.first_set != first_set || r.set_count != set_count || r.dynamic_count != dynamic_count) return false;
    r.layout = layout;
    for (uint32_t i = 0; i < set_count; ++i) set_handles_[r.sets_at + i] = sets[i];
    for (uint32_t i = 0; i < dynamic_count; ++i) dynamic_offsets_[r.dynamic_at + i] = dynamic_offsets[i];
    return true;
  }
  // A vkCmdBindDescriptorSets sent down (only the compute bind point is recorded).
  void OnBindDescriptorSets(VkPipelineBindPoint bind_point, VkPipelineLayout layout, uint32_t first_set,
                            uint32_t set_count, const VkDescriptorSet* sets, uint32_t dynamic_count,
                            const uint32_t* dynamic_offsets);
  // Compute descriptor state the record cannot rebind (push descriptors, descriptor
  // buffers, a maintenance6 bind with a dynamic layout): work that binds its own set
  // cannot run in this command buffer until it is reset.
  void OnComputeDescriptorsUntrackable() { sets_untrackable_ = true; }
  void OnEndConditionalRendering() { conditional_active_ = false; }
  // A query begun (vkCmdBeginQuery: index 0) or ended. Only queries that count dispatches
  // (`counts_dispatches`, chassis/counting_queries.h) are kept, until their end.
  void OnBeginQuery(bool counts_dispatches, VkQueryPool pool, uint32_t query, uint32_t index);
  void OnEndQuery(VkQueryPool pool, uint32_t query, uint32_t index);

  VkPipeline pipeline(VkPipelineBindPoint bind_point) const;

  // Can a capability's compute work be recorded here now, unseen by the application? The
  // compute state must be restorable exactly (a compute queue, not protected, every push
  // replayable, no compute shader object bound, no inherited conditional rendering it could
  // not suspend) and no query may count the dispatch (DispatchesCounted).
  bool CanRecordComputeWork() const { return ComputeStateRestorable() && !DispatchesCounted(); }
  // A query that counts dispatches is active here, or (a secondary) may be: one begun in this
  // command buffer and not ended yet, or pipeline statistics it inherits.
  bool DispatchesCounted() const {
    return counting_query_count_ != 0 || counting_queries_overflow_ || inherited_counting_statistics_;
  }

  // Around such work: suspend conditional rendering, then put back the compute pipeline,
  // the pushes recorded (in order, each with its own layout and bytes; none when pushes are
  // not tracked) and conditional rendering.
  void SuspendForCompute(VkCommandBuffer cb, const VkLayerDispatchTable& next) const;
  void RestoreCompute(VkCommandBuffer cb, const VkLayerDispatchTable& next) const;

  // For work that binds (or pushes) a descriptor set of its own at the compute bind point:
  // whether every compute set the application bound can be bound again (only meaningful
  // where TrackingPlan::compute_descriptor_sets), and the rebinding, each recorded bind in
  // its order (the last bind of every set index is among them, so each set ends bound with
  // the layout it was bound with, as it was).
  bool ComputeDescriptorSetsRestorable() const { return !sets_untrackable_; }
  void RestoreComputeDescriptorSets(VkCommandBuffer cb, const VkLayerDispatchTable& next) const;
  uint32_t set_bind_count() const { return set_bind_count_; }  // for tests

  // For tests: the replay list.
  uint32_t push_record_count() const { return push_count_; }

 private:
  // The first half of CanRecordComputeWork, private: every capability asks the whole question.
  bool ComputeStateRestorable() const {
    return (queue_flags_ & VK_QUEUE_COMPUTE_BIT) != 0 && !protected_ && !push_untrackable_ &&
           !compute_shader_object_ && !inherited_conditional_rendering_;
  }

  // 1 to 32 bytes without a call to memcpy (which would give the hook a frame): two
  // overlapping copies of 8 or 16 bytes, or one of 4 (sizes are multiples of 4 for a valid
  // push; an invalid one was refused when its range was first recorded).
  static void CopySmall(uint8_t* dst, const uint8_t* src, uint32_t size) {
    if (size > 16) {
      uint8_t head[16], tail[16];
      std::memcpy(head, src, 16);
      std::memcpy(tail, src + size - 16, 16);
      std::memcpy(dst, head, 16);
      std::memcpy(dst + size - 16, tail, 16);
    } else if (size >= 8) {
      uint64_t head, tail;
      std::memcpy(&head, src, 8);
      std::memcpy(&tail, src + size - 8, 8);
      std::memcpy(dst, &head, 8);
      std::memcpy(dst + size - 8, &tail, 8);
    } else {
      uint32_t word;
      std::memcpy(&word, src, 4);
      std::memcpy(dst, &word, 4);
    }
  }

  struct PushRecord {
    VkPipelineLayout layout;
    VkShaderStageFlags stages;
    uint32_t offset;
    uint32_t size;
    uint32_t storage;  // index of its byte slot
  };
  static constexpr uint32_t kMaxPushRecords = 8;
  static constexpr int kBindPoints = 3;  // graphics, compute, ray tracing

  const VkCommandPool pool_;
  const VkQueueFlags queue_flags_;
  const bool protected_;
  const bool secondary_;
  const uint32_t max_push_bytes_;
  const VkLayerDispatchTable* tracking_next_ = nullptr;
  std::array<std::unique_ptr<CommandData>, kMaxCapabilities> data_;

  std::array<VkPipeline, kBindPoints> pipelines_{};
  // Pushes in replay order; each owns a slot of max_push_bytes_ in push_bytes_.
  std::array<PushRecord, kMaxPushRecords> pushes_{};
  uint32_t push_count_ = 0;
  PushRecord* last_push_ = nullptr;    // &pushes_[push_count_ - 1], or nullptr when there is none
  uint8_t* last_push_bytes_ = nullptr;  // its byte slot
  bool push_untrackable_ = false;  // too many distinct ranges, or a push we cannot replay
  std::vector<uint8_t> push_bytes_;
  bool compute_shader_object_ = false;

  // Compute descriptor-set binds, oldest first; a bind whose sets a later bind all covers
  // is dropped. Fixed storage: the record path allocates nothing.
  struct SetBindRecord {
    VkPipelineLayout layout;
    uint32_t first_set;
    uint32_t set_count;
    uint32_t sets_at;  // into set_handles_
    uint32_t dynamic_count;
    uint32_t dynamic_at;  // into dynamic_offsets_
  };
  static constexpr uint32_t kMaxSetBinds = 8;
  static constexpr uint32_t kMaxRecordedSets = 32;
  static constexpr uint32_t kMaxRecordedDynamicOffsets = 64;
  std::array<SetBindRecord, kMaxSetBinds> set_binds_{};
  uint32_t set_bind_count_ = 0;
  std::array<VkDescriptorSet, kMaxRecordedSets> set_handles_{};
  uint32_t set_handle_count_ = 0;
  std::array<uint32_t, kMaxRecordedDynamicOffsets> dynamic_offsets_{};
  uint32_t dynamic_offset_count_ = 0;
  bool sets_untrackable_ = false;

  bool conditional_active_ = false;
  VkConditionalRenderingBeginInfoEXT conditional_{};
  bool inherited_conditional_rendering_ = false;
  // Active queries that count dispatches. The spec allows one active query per query type in
  // a command buffer (VUID-vkCmdBeginQuery-queryPool-01922), and only a few types count:
  // more than kMaxCountingQueries (an invalid program) keeps the command buffer counted until
  // it is reset.
  struct CountingQuery {
    VkQueryPool pool;
    uint32_t query;
    uint32_t index;
  };
  static constexpr uint32_t kMaxCountingQueries = 4;
  std::array<CountingQuery, kMaxCountingQueries> counting_queries_{};
  uint32_t counting_query_count_ = 0;
  bool counting_queries_overflow_ = false;
  bool inherited_counting_statistics_ = false;
};

}  // namespace bindery
