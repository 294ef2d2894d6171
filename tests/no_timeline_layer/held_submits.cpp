#include "held_submits.h"

#include <mutex>

namespace bindery::test::held_submits {

namespace {

std::mutex g_mutex;
std::vector<std::unique_ptr<HeldSubmit>> g_held;

const VkTimelineSemaphoreSubmitInfo* TimelineInfo(const VkSubmitInfo& s) {
  const auto* t = static_cast<const VkTimelineSemaphoreSubmitInfo*>(s.pNext);
  return t != nullptr && t->sType == VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO ? t : nullptr;
}

}  // namespace

bool CanLag(uint32_t count, const VkSubmitInfo* submits, VkFence fence) {
  if (fence != VK_NULL_HANDLE) return false;
  for (uint32_t i = 0; i < count; ++i) {
    if (submits[i].waitSemaphoreCount != 0) return false;
    const VkTimelineSemaphoreSubmitInfo* t = TimelineInfo(submits[i]);
    if (submits[i].pNext != nullptr && (t == nullptr || t->pNext != nullptr)) return false;
  }
  return true;
}

void Hold(VkQueue real, uint32_t count, const VkSubmitInfo* submits) {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (uint32_t i = 0; i < count; ++i) {
    const VkSubmitInfo& in = submits[i];
    auto h = std::make_unique<HeldSubmit>();
    h->real = real;
    h->command_buffers.assign(in.pCommandBuffers, in.pCommandBuffers + in.commandBufferCount);
    h->signals.assign(in.pSignalSemaphores, in.pSignalSemaphores + in.signalSemaphoreCount);
    h->info = in;
    h->info.pCommandBuffers = h->command_buffers.data();
    h->info.pSignalSemaphores = h->signals.data();
    if (const VkTimelineSemaphoreSubmitInfo* t = TimelineInfo(in)) {
      h->timeline = *t;
      if (t->pSignalSemaphoreValues != nullptr)
        h->signal_values.assign(t->pSignalSemaphoreValues, t->pSignalSemaphoreValues + t->signalSemaphoreValueCount);
      h->timeline.pSignalSemaphoreValues = h->signal_values.empty() ? nullptr : h->signal_values.data();
      h->timeline.waitSemaphoreValueCount = 0;  // it waits for nothing
      h->timeline.pWaitSemaphoreValues = nullptr;
      h->info.pNext = &h->timeline;
    }
    g_held.push_back(std::move(h));
  }
}

bool WaitsForHeld(uint32_t count, const VkSubmitInfo* submits) {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (const auto& h : g_held) {
    for (VkSemaphore signalled : h->signals) {
      for (uint32_t i = 0; i < count; ++i) {
        for (uint32_t w = 0; w < submits[i].waitSemaphoreCount; ++w) {
          if (submits[i].pWaitSemaphores[w] == signalled) return true;
        }
      }
    }
  }
  return false;
}

std::vector<std::unique_ptr<HeldSubmit>> TakeAll() {
  std::lock_guard<std::mutex> lock(g_mutex);
  std::vector<std::unique_ptr<HeldSubmit>> held;
  held.swap(g_held);
  return held;
}

}  // namespace bindery::test::held_submits
