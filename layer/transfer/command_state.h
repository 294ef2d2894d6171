// What the layer knows about one command buffer: where it can run (its pool's queue
// family), its staging arena, and — on devices where transfer kernels are possible —
// the application's compute state that a kernel disturbs and must put back: the bound
// compute pipeline, the push constants, and an active conditional-rendering block.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>
#include <vulkan/vk_layer_dispatch_table.h>

#include "transfer/staging.h"

namespace bindery::transfer {

struct PoolInfo {
  uint32_t queue_family = 0;
  VkQueueFlags queue_flags = 0;
  bool is_protected = false;
  std::vector<VkCommandBuffer> members;  // guarded by the pool's external synchronisation
};

class CommandState {
 public:
  CommandState(VkCommandPool pool, const PoolInfo& info, bool secondary, uint32_t max_push_constant_bytes)
      : pool_(pool),
        queue_flags_(info.queue_flags),
        protected_(info.is_protected),
        secondary_(secondary),
        push_bytes_(max_push_constant_bytes) {}

  VkCommandPool pool() const { return pool_; }
  StagingArena& staging() { return staging_; }

  // Back to the initial state (vkBeginCommandBuffer / reset). The caller releases staging.
  void Reset(bool inherits_conditional_rendering);

  // May a compute kernel be recorded here now?
  bool KernelsAllowed() const {
    return (queue_flags_ & VK_QUEUE_COMPUTE_BIT) != 0 && !protected_ && !push_overflow_ &&
           !inherited_conditional_rendering_;
  }

  // Tracking of the application's state.
  void OnBindComputePipeline(VkPipeline pipeline) { compute_pipeline_ = pipeline; }
  void OnPushConstants(VkPipelineLayout layout, VkShaderStageFlags stages, uint32_t offset, uint32_t size,
                       const void* values);
  void OnBeginConditionalRendering(const VkConditionalRenderingBeginInfoEXT& info);
  void OnEndConditionalRendering() { conditional_active_ = false; }

  // Around a kernel: suspend the application's conditional rendering, and afterwards put
  // back its compute pipeline, push constants and conditional rendering.
  void SuspendForKernel(VkCommandBuffer cb, const VkLayerDispatchTable& d) const;
  void RestoreAfterKernel(VkCommandBuffer cb, const VkLayerDispatchTable& d) const;

 private:
  struct PushRecord {
    VkPipelineLayout layout;
    VkShaderStageFlags stages;
    uint32_t offset;
    uint32_t size;
  };
  static constexpr uint32_t kMaxPushRecords = 8;

  const VkCommandPool pool_;
  const VkQueueFlags queue_flags_;
  const bool protected_;
  const bool secondary_;
  StagingArena staging_;

  VkPipeline compute_pipeline_ = VK_NULL_HANDLE;
  std::array<PushRecord, kMaxPushRecords> push_records_{};
  uint32_t push_record_count_ = 0;
  bool push_overflow_ = false;  // too many distinct ranges to replay: no kernels here
  std::vector<uint8_t> push_bytes_;
  bool conditional_active_ = false;
  VkConditionalRenderingBeginInfoEXT conditional_{};
  bool inherited_conditional_rendering_ = false;
};

}  // namespace bindery::transfer
