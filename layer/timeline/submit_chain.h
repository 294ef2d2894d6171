// The pNext structs of one submit batch (VkSubmitInfo or VkSubmitInfo2) that must reach
// the driver with it, copied. Used for batches that involve no timeline semaphore but go
// through the capability (behind parked work, or beside a timeline batch): such a batch
// goes down with its own semaphores in its own order, so index arrays (device groups)
// stay true. Not copied: VkTimelineSemaphoreSubmitInfo (the driver may not know it; the
// batch has no timeline value) and VkProtectedSubmitInfo (the batch's flags carry it and
// the vkQueueSubmit form adds it back). A struct the layer does not know is dropped and
// named by dropped() for the caller to log.
#pragma once

#include <vector>

#include <vulkan/vulkan.h>

#include "timeline/chain_store.h"

namespace bindery::timeline {

class SubmitChain {
 public:
  explicit SubmitChain(const void* chain);
  SubmitChain(const SubmitChain&) = delete;
  SubmitChain& operator=(const SubmitChain&) = delete;

  const void* head() const { return store_.head(); }
  const std::vector<VkStructureType>& dropped() const { return dropped_; }

 private:
  ChainStore store_;
  std::vector<VkStructureType> dropped_;
};

}  // namespace bindery::timeline
