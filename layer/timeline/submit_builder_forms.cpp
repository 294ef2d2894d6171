// SubmitBuilder's last step: the call built in VkSubmitInfo2 form (submits_, one entry per
// relay or application batch) goes down through the entry point the application used:
// vkQueueSubmit2, vkQueueSubmit (32-bit stage masks, protected submits as
// VkProtectedSubmitInfo) or vkQueueBindSparse (binary semaphores only, no stage masks; a
// relay is an empty bind batch, so the whole release stays one driver call on a queue that
// may support sparse binding and nothing else). A batch's own pNext structs (copied,
// Batch::chain) go down with it in either submit form.
#include "timeline/submit_builder.h"

#include "timeline/timeline_device.h"

namespace bindery::timeline {
namespace {

// Lays the wait and signal semaphores of `in` out in `semaphores` (capacity reserved by
// the caller: pointers into it stay valid); returns the index of the first wait.
std::size_t CopySemaphores(const VkSubmitInfo2& in, std::vector<VkSemaphore>& semaphores) {
  const std::size_t first = semaphores.size();
  for (uint32_t i = 0; i < in.waitSemaphoreInfoCount; ++i) semaphores.push_back(in.pWaitSemaphoreInfos[i].semaphore);
  for (uint32_t i = 0; i < in.signalSemaphoreInfoCount; ++i) {
    semaphores.push_back(in.pSignalSemaphoreInfos[i].semaphore);
  }
  return first;
}

}  // namespace

VkResult SubmitBuilder::SendDown(Route route) {
  if (route == Route::kSubmit2) {
    const VkLayerDispatchTable& next = device_.next;
    PFN_vkQueueSubmit2 fn = next.QueueSubmit2 != nullptr ? next.QueueSubmit2 : next.QueueSubmit2KHR;
    return fn(queue_.queue, static_cast<uint32_t>(submits_.size()), submits_.data(), sub_->fence);
  }
  legacy_semaphores_.clear();
  legacy_semaphores_.reserve(semaphores_.size());
  return route == Route::kBindSparse ? SendBindSparse() : SendSubmit();
}

VkResult SubmitBuilder::SendBindSparse() {
  const uint32_t count = static_cast<uint32_t>(submits_.size());
  sparse_infos_.clear();
  sparse_groups_.clear();
  sparse_infos_.reserve(count);
  sparse_groups_.reserve(count);
  for (uint32_t s = 0; s < count; ++s) {
    const VkSubmitInfo2& in = submits_[s];
    const std::size_t first = CopySemaphores(in, legacy_semaphores_);
    VkBindSparseInfo info{VK_STRUCTURE_TYPE_BIND_SPARSE_INFO};
    if (const Batch* batch = origin_[s]) {
      // The application's binds (a relay binds nothing).
      const VkBindSparseInfo& binds = batch->sparse_copy ? batch->sparse_copy->info() : *batch->sparse;
      info.bufferBindCount = binds.bufferBindCount;
      info.pBufferBinds = binds.pBufferBinds;
      info.imageOpaqueBindCount = binds.imageOpaqueBindCount;
      info.pImageOpaqueBinds = binds.pImageOpaqueBinds;
      info.imageBindCount = binds.imageBindCount;
      info.pImageBinds = binds.pImageBinds;
      if (batch->device_group) {
        VkDeviceGroupBindSparseInfo group{VK_STRUCTURE_TYPE_DEVICE_GROUP_BIND_SPARSE_INFO};
        group.resourceDeviceIndex = batch->resource_device;
        group.memoryDeviceIndex = batch->memory_device;
        sparse_groups_.push_back(group);
        info.pNext = &sparse_groups_.back();
      }
    }
    info.waitSemaphoreCount = in.waitSemaphoreInfoCount;
    info.pWaitSemaphores = legacy_semaphores_.data() + first;
    info.signalSemaphoreCount = in.signalSemaphoreInfoCount;
    info.pSignalSemaphores = legacy_semaphores_.data() + first + in.waitSemaphoreInfoCount;
    sparse_infos_.push_back(info);
  }
  return device_.next.QueueBindSparse(queue_.queue, count, sparse_infos_.data(), sub_->fence);
}

VkResult SubmitBuilder::SendSubmit() {
  // Stage masks came from 32-bit ones.
  const uint32_t count = static_cast<uint32_t>(submits_.size());
  legacy_submits_.clear();
  legacy_stages_.clear();
  legacy_commands_.clear();
  legacy_protected_.clear();
  legacy_submits_.reserve(count);
  legacy_protected_.reserve(count);
  legacy_stages_.reserve(semaphores_.size());
  legacy_commands_.reserve(commands_.size());
  for (const VkSubmitInfo2& in : submits_) {
    const std::size_t first = CopySemaphores(in, legacy_semaphores_);
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.pNext = in.pNext;  // the batch's own chain (VkSubmitInfo structs: it came through vkQueueSubmit)
    si.waitSemaphoreCount = in.waitSemaphoreInfoCount;
    si.pWaitSemaphores = legacy_semaphores_.data() + first;
    si.pWaitDstStageMask = legacy_stages_.data() + legacy_stages_.size();
    for (uint32_t i = 0; i < in.waitSemaphoreInfoCount; ++i) {
      VkPipelineStageFlags stage = static_cast<VkPipelineStageFlags>(in.pWaitSemaphoreInfos[i].stageMask);
      if (stage == 0) stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
      legacy_stages_.push_back(stage);
    }
    si.commandBufferCount = in.commandBufferInfoCount;
    si.pCommandBuffers = legacy_commands_.data() + legacy_commands_.size();
    for (uint32_t i = 0; i < in.commandBufferInfoCount; ++i) {
      legacy_commands_.push_back(in.pCommandBufferInfos[i].commandBuffer);
    }
    si.signalSemaphoreCount = in.signalSemaphoreInfoCount;
    si.pSignalSemaphores = legacy_semaphores_.data() + first + in.waitSemaphoreInfoCount;
    if (in.flags & VK_SUBMIT_PROTECTED_BIT) {
      legacy_protected_.push_back({VK_STRUCTURE_TYPE_PROTECTED_SUBMIT_INFO, si.pNext, VK_TRUE});
      si.pNext = &legacy_protected_.back();
    }
    legacy_submits_.push_back(si);
  }
  return device_.next.QueueSubmit(queue_.queue, count, legacy_submits_.data(), sub_->fence);
}

}  // namespace bindery::timeline
