// The device-level entry points of the timeline capability. Each converts the
// application's structs into the capability's batches only when an emulated semaphore
// (or parked work on the queue) is involved; otherwise the call goes straight down.
#include "chassis/state.h"
#include "core/pnext.h"
#include "timeline/hooks.h"
#include "timeline/timeline_capability.h"
#include "timeline/timeline_device.h"

namespace bindery::timeline {
namespace {

// The capability's state on the device of `h`, or nullptr where timelines are not emulated
// on that device. Function pointers are per device, but applications call one device's
// pointers with another device (the conformance suite's multi-queue tests create a second
// device and call the first one's entry points; drivers tolerate it): such a call reaches
// these hooks on a device without emulation and goes to that device's next layer (Down).
template <typename Handle>
DeviceTimelines* Find(Handle h) {
  return StateRegistry::Get().FindDevice(h)->template State<DeviceTimelines>(TimelineCapability().slot());
}
template <typename Handle>
const VkLayerDispatchTable& Down(Handle h) {
  return StateRegistry::Get().FindDevice(h)->Next(TimelineCapability().slot());
}

bool Emulated(DeviceTimelines& t, VkSemaphore s) { return t.Find(s) != nullptr; }

// Whether a wait or signal list needs the capability: an emulated semaphore, or a binary
// wait whose signal is parked.
bool Involved(DeviceTimelines& t, const VkSemaphore* waits, uint32_t wait_count, const VkSemaphore* signals,
              uint32_t signal_count) {
  for (uint32_t i = 0; i < wait_count; ++i) {
    if (Emulated(t, waits[i]) || t.BinaryParked(waits[i])) return true;
  }
  for (uint32_t i = 0; i < signal_count; ++i) {
    if (Emulated(t, signals[i])) return true;
  }
  return false;
}

// The pNext chain of a converted submit batch. A batch without timeline semaphores keeps
// it (copied: the batch may be parked), so the driver gets the submission the application
// made; a batch with them loses what the relays would make untrue (index arrays no longer
// match the semaphores that go down), logged.
void ConvertChain(DeviceTimelines& t, const void* chain, Batch& out) {
  bool any = false;
  for (auto* s = static_cast<const VkBaseInStructure*>(chain); s != nullptr && !any; s = s->pNext) {
    any = s->sType != VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO &&
          s->sType != VK_STRUCTURE_TYPE_PROTECTED_SUBMIT_INFO;
  }
  if (!any) return;
  if (!out.HasTimeline()) {
    out.chain = std::make_shared<const SubmitChain>(chain);
    for (VkStructureType dropped : out.chain->dropped()) {
      BINDERY_LOG(t.device.log(), kWarn, "timeline-submit",
                  "a submission going through timeline emulation loses pNext struct %d (the layer cannot copy it)",
                  static_cast<int>(dropped));
    }
    return;
  }
  for (auto* s = static_cast<const VkBaseInStructure*>(chain); s != nullptr; s = s->pNext) {
    if (s->sType == VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO ||
        s->sType == VK_STRUCTURE_TYPE_PROTECTED_SUBMIT_INFO) {
      continue;
    }
    BINDERY_LOG(t.device.log(), kWarn, "timeline-submit",
                "a submission with emulated timeline semaphores loses pNext struct %d (not supported with emulation)",
                static_cast<int>(s->sType));
  }
}

std::vector<Batch>& Scratch(QueueTimelines& q, uint32_t count) {
  if (q.scratch_batches.size() < count) q.scratch_batches.resize(count);
  for (uint32_t i = 0; i < count; ++i) q.scratch_batches[i].Clear();
  return q.scratch_batches;
}

// vkQueueSubmit and vkQueueBindSparse batches (VkSubmitInfo, VkBindSparseInfo) name their
// semaphores with the same members: does any batch need the capability?
template <typename Info>
bool AnyInvolved(DeviceTimelines& t, const Info* infos, uint32_t count) {
  for (uint32_t b = 0; b < count; ++b) {
    if (FindInChain<VkBaseInStructure>(infos[b].pNext, VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO) != nullptr ||
        Involved(t, infos[b].pWaitSemaphores, infos[b].waitSemaphoreCount, infos[b].pSignalSemaphores,
                 infos[b].signalSemaphoreCount)) {
      return true;
    }
  }
  return false;
}

// One list of semaphores of such a batch as operations: a timeline one takes its value
// from `values` (VkTimelineSemaphoreSubmitInfo's array for the list); `stages` null means
// every command. False, logged with the list's VUID, when a timeline one has no value.
bool AppendOps(DeviceTimelines& t, const char* call, const char* vuid, const VkSemaphore* semaphores,
               const VkPipelineStageFlags* stages, uint32_t count, const uint64_t* values, uint32_t value_count,
               std::vector<SemOp>& out) {
  for (uint32_t i = 0; i < count; ++i) {
    SemOp op{semaphores[i], 0, stages != nullptr ? stages[i] : VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, 0,
             t.Find(semaphores[i])};
    if (op.timeline != nullptr) {
      if (values == nullptr || i >= value_count) {
        BINDERY_LOG(t.device.log(), kError, "timeline-submit", "%s: timeline semaphore %u has no value (%s)", call, i,
                    vuid);
        return false;
      }
      op.value = values[i];
    }
    out.push_back(op);
  }
  return true;
}

VkResult Submit2(VkQueue queue, uint32_t count, const VkSubmitInfo2* submits, VkFence fence, bool khr) {
  DeviceTimelines* found = Find(queue);
  if (found == nullptr) {
    return khr ? Down(queue).QueueSubmit2KHR(queue, count, submits, fence) : Down(queue).QueueSubmit2(queue, count, submits, fence);
  }
  DeviceTimelines& t = *found;
  QueueTimelines& q = t.Queue(queue);
  bool involved = false;
  for (uint32_t b = 0; b < count && !involved; ++b) {
    for (uint32_t i = 0; i < submits[b].waitSemaphoreInfoCount && !involved; ++i) {
      const VkSemaphore s = submits[b].pWaitSemaphoreInfos[i].semaphore;
      involved = Emulated(t, s) || t.BinaryParked(s);
    }
    for (uint32_t i = 0; i < submits[b].signalSemaphoreInfoCount && !involved; ++i) {
      involved = Emulated(t, submits[b].pSignalSemaphoreInfos[i].semaphore);
    }
  }
  if (!involved && !t.HasParked(q)) {
    const VkResult r =
        khr ? t.next.QueueSubmit2KHR(queue, count, submits, fence) : t.next.QueueSubmit2(queue, count, submits, fence);
    if (r == VK_SUCCESS) t.PassedThrough(q, fence, Route::kSubmit2);
    return r;
  }
  std::vector<Batch>& batches = Scratch(q, count);
  for (uint32_t b = 0; b < count; ++b) {
    const VkSubmitInfo2& in = submits[b];
    Batch& out = batches[b];
    out.flags = in.flags;
    auto convert = [&](const VkSemaphoreSubmitInfo& s) {
      SemOp op{s.semaphore, s.value, s.stageMask, s.deviceIndex, t.Find(s.semaphore)};
      if (op.timeline == nullptr) op.value = 0;  // binary: the value is ignored, and not sent down
      return op;
    };
    for (uint32_t i = 0; i < in.waitSemaphoreInfoCount; ++i) out.waits.push_back(convert(in.pWaitSemaphoreInfos[i]));
    for (uint32_t i = 0; i < in.signalSemaphoreInfoCount; ++i) {
      out.signals.push_back(convert(in.pSignalSemaphoreInfos[i]));
    }
    out.commands.assign(in.pCommandBufferInfos, in.pCommandBufferInfos + in.commandBufferInfoCount);
    ConvertChain(t, in.pNext, out);
  }
  return t.Submit(q, batches, count, fence, Route::kSubmit2);
}

}  // namespace

VKAPI_ATTR VkResult VKAPI_CALL CreateSemaphore(VkDevice device, const VkSemaphoreCreateInfo* info,
                                               const VkAllocationCallbacks* alloc, VkSemaphore* out) {
  if (DeviceTimelines* t = Find(device)) return t->CreateSemaphore(info, alloc, out);
  return Down(device).CreateSemaphore(device, info, alloc, out);
}

VKAPI_ATTR void VKAPI_CALL DestroySemaphore(VkDevice device, VkSemaphore semaphore,
                                            const VkAllocationCallbacks* alloc) {
  if (DeviceTimelines* t = Find(device)) return t->DestroySemaphore(semaphore, alloc);
  Down(device).DestroySemaphore(device, semaphore, alloc);
}

VKAPI_ATTR VkResult VKAPI_CALL GetSemaphoreCounterValue(VkDevice device, VkSemaphore semaphore, uint64_t* value) {
  if (DeviceTimelines* t = Find(device)) return t->CounterValue(semaphore, value);
  return Down(device).GetSemaphoreCounterValue(device, semaphore, value);
}
VKAPI_ATTR VkResult VKAPI_CALL GetSemaphoreCounterValueKHR(VkDevice device, VkSemaphore semaphore, uint64_t* value) {
  if (DeviceTimelines* t = Find(device)) return t->CounterValue(semaphore, value);
  return Down(device).GetSemaphoreCounterValueKHR(device, semaphore, value);
}

VKAPI_ATTR VkResult VKAPI_CALL WaitSemaphores(VkDevice device, const VkSemaphoreWaitInfo* info, uint64_t timeout) {
  if (DeviceTimelines* t = Find(device)) return t->Wait(info, timeout);
  return Down(device).WaitSemaphores(device, info, timeout);
}
VKAPI_ATTR VkResult VKAPI_CALL WaitSemaphoresKHR(VkDevice device, const VkSemaphoreWaitInfo* info, uint64_t timeout) {
  if (DeviceTimelines* t = Find(device)) return t->Wait(info, timeout);
  return Down(device).WaitSemaphoresKHR(device, info, timeout);
}

VKAPI_ATTR VkResult VKAPI_CALL SignalSemaphore(VkDevice device, const VkSemaphoreSignalInfo* info) {
  if (DeviceTimelines* t = Find(device)) return t->Signal(info);
  return Down(device).SignalSemaphore(device, info);
}
VKAPI_ATTR VkResult VKAPI_CALL SignalSemaphoreKHR(VkDevice device, const VkSemaphoreSignalInfo* info) {
  if (DeviceTimelines* t = Find(device)) return t->Signal(info);
  return Down(device).SignalSemaphoreKHR(device, info);
}

VKAPI_ATTR VkResult VKAPI_CALL QueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo* submits,
                                           VkFence fence) {
  DeviceTimelines* found = Find(queue);
  if (found == nullptr) return Down(queue).QueueSubmit(queue, count, submits, fence);
  DeviceTimelines& t = *found;
  QueueTimelines& q = t.Queue(queue);
  if (!AnyInvolved(t, submits, count) && !t.HasParked(q)) {
    const VkResult r = t.next.QueueSubmit(queue, count, submits, fence);
    if (r == VK_SUCCESS) t.PassedThrough(q, fence, Route::kSubmit);
    return r;
  }

  std::vector<Batch>& batches = Scratch(q, count);
  for (uint32_t b = 0; b < count; ++b) {
    const VkSubmitInfo& in = submits[b];
    Batch& out = batches[b];
    const auto* values =
        FindInChain<VkTimelineSemaphoreSubmitInfo>(in.pNext, VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO);
    if (const auto* p = FindInChain<VkProtectedSubmitInfo>(in.pNext, VK_STRUCTURE_TYPE_PROTECTED_SUBMIT_INFO)) {
      if (p->protectedSubmit) out.flags |= VK_SUBMIT_PROTECTED_BIT;
    }
    const uint64_t* wait_values = values != nullptr ? values->pWaitSemaphoreValues : nullptr;
    const uint64_t* signal_values = values != nullptr ? values->pSignalSemaphoreValues : nullptr;
    if (!AppendOps(t, "vkQueueSubmit", "VUID-VkSubmitInfo-pWaitSemaphores-03243", in.pWaitSemaphores,
                   in.pWaitDstStageMask, in.waitSemaphoreCount, wait_values,
                   values != nullptr ? values->waitSemaphoreValueCount : 0, out.waits) ||
        !AppendOps(t, "vkQueueSubmit", "VUID-VkSubmitInfo-pSignalSemaphores-03244", in.pSignalSemaphores, nullptr,
                   in.signalSemaphoreCount, signal_values, values != nullptr ? values->signalSemaphoreValueCount : 0,
                   out.signals)) {
      return VK_ERROR_UNKNOWN;
    }
    for (uint32_t i = 0; i < in.commandBufferCount; ++i) {
      VkCommandBufferSubmitInfo cb{VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO};
      cb.commandBuffer = in.pCommandBuffers[i];
      out.commands.push_back(cb);
    }
    ConvertChain(t, in.pNext, out);
  }
  return t.Submit(q, batches, count, fence, Route::kSubmit);
}

VKAPI_ATTR VkResult VKAPI_CALL QueueSubmit2(VkQueue queue, uint32_t count, const VkSubmitInfo2* submits,
                                            VkFence fence) {
  return Submit2(queue, count, submits, fence, false);
}
VKAPI_ATTR VkResult VKAPI_CALL QueueSubmit2KHR(VkQueue queue, uint32_t count, const VkSubmitInfo2* submits,
                                               VkFence fence) {
  return Submit2(queue, count, submits, fence, true);
}

VKAPI_ATTR VkResult VKAPI_CALL QueueBindSparse(VkQueue queue, uint32_t count, const VkBindSparseInfo* infos,
                                               VkFence fence) {
  DeviceTimelines* found = Find(queue);
  if (found == nullptr) return Down(queue).QueueBindSparse(queue, count, infos, fence);
  DeviceTimelines& t = *found;
  QueueTimelines& q = t.Queue(queue);
  if (!AnyInvolved(t, infos, count) && !t.HasParked(q)) {
    const VkResult r = t.next.QueueBindSparse(queue, count, infos, fence);
    if (r == VK_SUCCESS) t.PassedThrough(q, fence, Route::kBindSparse);
    return r;
  }
  // Like a submit: timeline waits become relays to binary semaphores, timeline signals
  // binary semaphores watched through the layer's fence; parked behind a wait that is not
  // pending yet. The driver gets binary semaphores only (no VkTimelineSemaphoreSubmitInfo).
  std::vector<Batch>& batches = Scratch(q, count);
  for (uint32_t b = 0; b < count; ++b) {
    const VkBindSparseInfo& in = infos[b];
    Batch& out = batches[b];
    const auto* values =
        FindInChain<VkTimelineSemaphoreSubmitInfo>(in.pNext, VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO);
    for (auto* s = static_cast<const VkBaseInStructure*>(in.pNext); s != nullptr; s = s->pNext) {
      if (s->sType == VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO) continue;
      if (s->sType == VK_STRUCTURE_TYPE_DEVICE_GROUP_BIND_SPARSE_INFO) {
        const auto* group = reinterpret_cast<const VkDeviceGroupBindSparseInfo*>(s);
        out.device_group = true;
        out.resource_device = group->resourceDeviceIndex;
        out.memory_device = group->memoryDeviceIndex;
        continue;
      }
      BINDERY_LOG(t.device.log(), kWarn, "timeline-sparse",
                  "a vkQueueBindSparse with emulated timeline semaphores loses pNext struct %d (not supported with "
                  "emulation)",
                  static_cast<int>(s->sType));
    }
    const uint64_t* wait_values = values != nullptr ? values->pWaitSemaphoreValues : nullptr;
    const uint64_t* signal_values = values != nullptr ? values->pSignalSemaphoreValues : nullptr;
    if (!AppendOps(t, "vkQueueBindSparse", "VUID-VkBindSparseInfo-pWaitSemaphores-03246", in.pWaitSemaphores, nullptr,
                   in.waitSemaphoreCount, wait_values, values != nullptr ? values->waitSemaphoreValueCount : 0,
                   out.waits) ||
        !AppendOps(t, "vkQueueBindSparse", "VUID-VkBindSparseInfo-pSignalSemaphores-03247", in.pSignalSemaphores,
                   nullptr, in.signalSemaphoreCount, signal_values,
                   values != nullptr ? values->signalSemaphoreValueCount : 0, out.signals)) {
      return VK_ERROR_UNKNOWN;
    }
    out.sparse = &in;
  }
  return t.Submit(q, batches, count, fence, Route::kBindSparse);
}

VKAPI_ATTR VkResult VKAPI_CALL QueuePresentKHR(VkQueue queue, const VkPresentInfoKHR* info) {
  DeviceTimelines* found = Find(queue);
  if (found == nullptr) return Down(queue).QueuePresentKHR(queue, info);
  DeviceTimelines& t = *found;
  for (uint32_t i = 0; i < info->waitSemaphoreCount; ++i) {
    if (Emulated(t, info->pWaitSemaphores[i])) {
      BINDERY_LOG(t.device.log(), kError, "timeline-present",
                  "vkQueuePresentKHR: wait semaphore %u is a timeline semaphore (VUID-vkQueuePresentKHR-pWaitSemaphores-03267); refused",
                  i);
      return VK_ERROR_UNKNOWN;
    }
  }
  QueueTimelines& q = t.Queue(queue);
  return t.Present(q, info);
}

static VkResult RefuseTimelineAcquire(DeviceTimelines& t) {
  BINDERY_LOG(t.device.log(), kError, "timeline-acquire",
              "vkAcquireNextImage*KHR: the semaphore is a timeline semaphore (VUID-vkAcquireNextImageKHR-semaphore-03265); refused");
  return VK_ERROR_UNKNOWN;
}

VKAPI_ATTR VkResult VKAPI_CALL AcquireNextImageKHR(VkDevice device, VkSwapchainKHR swapchain, uint64_t timeout,
                                                   VkSemaphore semaphore, VkFence fence, uint32_t* index) {
  DeviceTimelines* found = Find(device);
  if (found == nullptr) return Down(device).AcquireNextImageKHR(device, swapchain, timeout, semaphore, fence, index);
  DeviceTimelines& t = *found;
  if (Emulated(t, semaphore)) return RefuseTimelineAcquire(t);
  return t.next.AcquireNextImageKHR(device, swapchain, timeout, semaphore, fence, index);
}

VKAPI_ATTR VkResult VKAPI_CALL AcquireNextImage2KHR(VkDevice device, const VkAcquireNextImageInfoKHR* info,
                                                    uint32_t* index) {
  DeviceTimelines* found = Find(device);
  if (found == nullptr) return Down(device).AcquireNextImage2KHR(device, info, index);
  DeviceTimelines& t = *found;
  if (Emulated(t, info->semaphore)) return RefuseTimelineAcquire(t);
  return t.next.AcquireNextImage2KHR(device, info, index);
}

VKAPI_ATTR VkResult VKAPI_CALL QueueWaitIdle(VkQueue queue) {
  DeviceTimelines* found = Find(queue);
  if (found == nullptr) return Down(queue).QueueWaitIdle(queue);
  DeviceTimelines& t = *found;
  return t.QueueWaitIdle(t.Queue(queue));
}

VKAPI_ATTR VkResult VKAPI_CALL DeviceWaitIdle(VkDevice device) {
  if (DeviceTimelines* t = Find(device)) return t->DeviceWaitIdle();
  return Down(device).DeviceWaitIdle(device);
}

VKAPI_ATTR VkResult VKAPI_CALL WaitForFences(VkDevice device, uint32_t count, const VkFence* fences, VkBool32 all,
                                             uint64_t timeout) {
  if (DeviceTimelines* t = Find(device)) return t->WaitForFences(count, fences, all, timeout);
  return Down(device).WaitForFences(device, count, fences, all, timeout);
}

VKAPI_ATTR VkResult VKAPI_CALL GetFenceStatus(VkDevice device, VkFence fence) {
  if (DeviceTimelines* t = Find(device)) return t->FenceStatus(fence);
  return Down(device).GetFenceStatus(device, fence);
}

VKAPI_ATTR VkResult VKAPI_CALL GetSemaphoreFdKHR(VkDevice device, const VkSemaphoreGetFdInfoKHR* info, int* fd) {
  DeviceTimelines* found = Find(device);
  if (found == nullptr) return Down(device).GetSemaphoreFdKHR(device, info, fd);
  DeviceTimelines& t = *found;
  if (Emulated(t, info->semaphore)) {
    BINDERY_LOG(t.device.log(), kError, "timeline-external",
                "vkGetSemaphoreFdKHR: an emulated timeline semaphore has no payload a file descriptor can carry; "
                "refused with VK_ERROR_INVALID_EXTERNAL_HANDLE");
    return VK_ERROR_INVALID_EXTERNAL_HANDLE;
  }
  const VkResult r = t.WaitBinarySentDown(info->semaphore, "vkGetSemaphoreFdKHR");
  if (r != VK_SUCCESS) return r;
  return t.next.GetSemaphoreFdKHR(device, info, fd);
}

VKAPI_ATTR VkResult VKAPI_CALL GetFenceFdKHR(VkDevice device, const VkFenceGetFdInfoKHR* info, int* fd) {
  DeviceTimelines* found = Find(device);
  if (found == nullptr) return Down(device).GetFenceFdKHR(device, info, fd);
  DeviceTimelines& t = *found;
  const VkResult r = t.WaitFenceSentDown(info->fence, "vkGetFenceFdKHR");
  if (r != VK_SUCCESS) return r;
  return t.next.GetFenceFdKHR(device, info, fd);
}

VKAPI_ATTR void VKAPI_CALL DestroyFence(VkDevice device, VkFence fence, const VkAllocationCallbacks* alloc) {
  if (DeviceTimelines* t = Find(device)) return t->DestroyFence(fence, alloc);
  Down(device).DestroyFence(device, fence, alloc);
}

VKAPI_ATTR VkResult VKAPI_CALL ImportSemaphoreFdKHR(VkDevice device, const VkImportSemaphoreFdInfoKHR* info) {
  DeviceTimelines* found = Find(device);
  if (found == nullptr) return Down(device).ImportSemaphoreFdKHR(device, info);
  DeviceTimelines& t = *found;
  if (Emulated(t, info->semaphore)) {
    BINDERY_LOG(t.device.log(), kError, "timeline-external",
                "vkImportSemaphoreFdKHR: a payload cannot be imported into an emulated timeline semaphore; refused "
                "with VK_ERROR_INVALID_EXTERNAL_HANDLE");
    return VK_ERROR_INVALID_EXTERNAL_HANDLE;
  }
  return t.next.ImportSemaphoreFdKHR(device, info);
}

}  // namespace bindery::timeline
