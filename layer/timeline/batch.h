// One batch of an application's submission in the capability's own form: the waits and
// signals (timeline or binary), the command buffers, and what else must reach the driver
// with it. vkQueueSubmit, vkQueueSubmit2 and vkQueueBindSparse all convert to it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <vulkan/vulkan.h>

#include "timeline/sparse_binds.h"
#include "timeline/submit_chain.h"
#include "timeline/timeline_semaphore.h"

namespace bindery::timeline {

// One wait or signal of a batch, in the form of VkSemaphoreSubmitInfo.
struct SemOp {
  VkSemaphore semaphore = VK_NULL_HANDLE;
  uint64_t value = 0;
  VkPipelineStageFlags2 stage = 0;
  uint32_t device_index = 0;
  SemaphoreRef timeline;  // null: a binary semaphore of the application
};

// How a submission goes down to the driver: the application's entry point decides, and
// the layer's relay batches take the same form.
enum class Route { kSubmit, kSubmit2, kBindSparse };

struct Batch {
  std::vector<SemOp> waits;
  std::vector<SemOp> signals;
  std::vector<VkCommandBufferSubmitInfo> commands;
  VkSubmitFlags flags = 0;
  // A batch with no timeline semaphore keeps the pNext structs of its submit info (device
  // group indices, performance query pass...), copied: it may be parked behind other work.
  std::shared_ptr<const SubmitChain> chain;
  // kBindSparse: the binds (semaphores and pNext ignored). While the application's call
  // runs they are its own struct; parked work points into its own copy (`sparse_copy`).
  const VkBindSparseInfo* sparse = nullptr;
  std::shared_ptr<const SparseBinds> sparse_copy;
  bool device_group = false;  // VkDeviceGroupBindSparseInfo, kept for the driver
  uint32_t resource_device = 0, memory_device = 0;

  bool HasTimeline() const {
    for (const SemOp& w : waits) {
      if (w.timeline != nullptr) return true;
    }
    for (const SemOp& s : signals) {
      if (s.timeline != nullptr) return true;
    }
    return false;
  }
  void Clear() {
    waits.clear();
    signals.clear();
    commands.clear();
    flags = 0;
    chain.reset();
    sparse = nullptr;
    sparse_copy.reset();
    device_group = false;
  }
};

}  // namespace bindery::timeline
