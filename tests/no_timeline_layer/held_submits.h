// The submissions a lagging queue holds back (no_timeline_layer.cpp, "A lagging queue"):
// which submissions may run late, deep copies of them in the order they came, and whether a
// later submission waits for one of their signals.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <vulkan/vulkan.h>

namespace bindery::test::held_submits {

struct HeldSubmit {
  VkQueue real = VK_NULL_HANDLE;  // the driver queue it goes to
  VkSubmitInfo info{};            // points into the vectors below
  VkTimelineSemaphoreSubmitInfo timeline{};
  std::vector<VkCommandBuffer> command_buffers;
  std::vector<VkSemaphore> signals;
  std::vector<uint64_t> signal_values;
};

// Whether `submits` may run late: they wait for nothing and have no fence, and their pNext
// is at most the timeline values of their signals. What waits for those signals is a
// submission that waits (sent after them) or a host wait (which sends them first).
bool CanLag(uint32_t count, const VkSubmitInfo* submits, VkFence fence);

// Keeps copies of `submits` for `real`, behind those already held.
void Hold(VkQueue real, uint32_t count, const VkSubmitInfo* submits);

// Whether `submits` wait for a semaphore that a held submission signals.
bool WaitsForHeld(uint32_t count, const VkSubmitInfo* submits);

// Everything held, in the order it came; nothing is held after.
std::vector<std::unique_ptr<HeldSubmit>> TakeAll();

}  // namespace bindery::test::held_submits
