// The last step of a release: the submission the layer built in VkSubmitInfo2 form
// (q.out_submits, one entry per relay or application batch) goes down through the entry
// point the application used: vkQueueSubmit2, vkQueueSubmit (32-bit stage masks, protected
// submits as VkProtectedSubmitInfo) or vkQueueBindSparse (binary semaphores only, no stage
// masks; a relay is an empty bind batch, so the whole release stays one driver call on a
// queue that may support sparse binding and nothing else).
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

VkResult DeviceTimelines::SendDown(QueueTimelines& q, Route route, VkFence fence) {
  const uint32_t count = static_cast<uint32_t>(q.out_submits.size());
  if (route == Route::kSubmit2) {
    PFN_vkQueueSubmit2 fn = next.QueueSubmit2 != nullptr ? next.QueueSubmit2 : next.QueueSubmit2KHR;
    return fn(q.queue, count, q.out_submits.data(), fence);
  }
  q.legacy_semaphores.clear();
  q.legacy_semaphores.reserve(q.out_semaphores.size());

  if (route == Route::kBindSparse) {
    q.sparse_infos.clear();
    q.sparse_groups.clear();
    q.sparse_infos.reserve(count);
    q.sparse_groups.reserve(count);
    for (uint32_t s = 0; s < count; ++s) {
      const VkSubmitInfo2& in = q.out_submits[s];
      const std::size_t first = CopySemaphores(in, q.legacy_semaphores);
      VkBindSparseInfo info{VK_STRUCTURE_TYPE_BIND_SPARSE_INFO};
      if (const Batch* batch = q.out_origin[s]) {
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
          q.sparse_groups.push_back(group);
          info.pNext = &q.sparse_groups.back();
        }
      }
      info.waitSemaphoreCount = in.waitSemaphoreInfoCount;
      info.pWaitSemaphores = q.legacy_semaphores.data() + first;
      info.signalSemaphoreCount = in.signalSemaphoreInfoCount;
      info.pSignalSemaphores = q.legacy_semaphores.data() + first + in.waitSemaphoreInfoCount;
      q.sparse_infos.push_back(info);
    }
    return next.QueueBindSparse(q.queue, count, q.sparse_infos.data(), fence);
  }

  // vkQueueSubmit (stage masks came from 32-bit ones).
  q.legacy_submits.clear();
  q.legacy_stages.clear();
  q.legacy_commands.clear();
  q.legacy_protected.clear();
  q.legacy_submits.reserve(count);
  q.legacy_protected.reserve(count);
  q.legacy_stages.reserve(q.out_semaphores.size());
  q.legacy_commands.reserve(q.out_commands.size());
  for (const VkSubmitInfo2& in : q.out_submits) {
    const std::size_t first = CopySemaphores(in, q.legacy_semaphores);
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.waitSemaphoreCount = in.waitSemaphoreInfoCount;
    si.pWaitSemaphores = q.legacy_semaphores.data() + first;
    si.pWaitDstStageMask = q.legacy_stages.data() + q.legacy_stages.size();
    for (uint32_t i = 0; i < in.waitSemaphoreInfoCount; ++i) {
      VkPipelineStageFlags stage = static_cast<VkPipelineStageFlags>(in.pWaitSemaphoreInfos[i].stageMask);
      if (stage == 0) stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
      q.legacy_stages.push_back(stage);
    }
    si.commandBufferCount = in.commandBufferInfoCount;
    si.pCommandBuffers = q.legacy_commands.data() + q.legacy_commands.size();
    for (uint32_t i = 0; i < in.commandBufferInfoCount; ++i) {
      q.legacy_commands.push_back(in.pCommandBufferInfos[i].commandBuffer);
    }
    si.signalSemaphoreCount = in.signalSemaphoreInfoCount;
    si.pSignalSemaphores = q.legacy_semaphores.data() + first + in.waitSemaphoreInfoCount;
    if (in.flags & VK_SUBMIT_PROTECTED_BIT) {
      q.legacy_protected.push_back({VK_STRUCTURE_TYPE_PROTECTED_SUBMIT_INFO, nullptr, VK_TRUE});
      si.pNext = &q.legacy_protected.back();
    }
    q.legacy_submits.push_back(si);
  }
  return next.QueueSubmit(q.queue, count, q.legacy_submits.data(), fence);
}

VkResult DeviceTimelines::SubmitFence(QueueTimelines& q, VkFence fence, Route route) {
  // A fence-only call through the same entry point (a sparse-only queue takes no submits).
  const VkResult r = route == Route::kBindSparse ? next.QueueBindSparse(q.queue, 0, nullptr, fence)
                                                 : next.QueueSubmit(q.queue, 0, nullptr, fence);
  if (r == VK_ERROR_DEVICE_LOST) MarkLost();
  return r;
}

}  // namespace bindery::timeline
