#include "chassis/trackers.h"

#include <atomic>

#include "core/thread_local.h"

namespace bindery {

Trackers::Trackers(DeviceState& device_state, const TrackingPlan& tracking_plan)
    : device(device_state), plan(tracking_plan) {
  for (const TrackingPlan::AddressRule& rule : plan.address_rules) {
    if (rule.min_size < min_flagged_allocation_) min_flagged_allocation_ = rule.min_size;
  }
}

Trackers::~Trackers() {
  // Another device's trackers may later live at this address: drop every cached answer.
  command_generation.fetch_add(1, std::memory_order_acq_rel);
}

CommandState* Trackers::FindCommand(VkCommandBuffer cb) {
  const uint64_t generation = command_generation.load(std::memory_order_acquire);
  CommandCache& cache = ThisThreadCache();
  if (cache.cb == cb && cache.trackers == this && cache.generation == generation) return cache.state;
  CommandState* state = commands.Find(cb);
  cache = {this, cb, state, generation};
  return state;
}

std::unique_ptr<CommandState> Trackers::ForgetCommand(VkCommandBuffer cb) {
  command_generation.fetch_add(1, std::memory_order_acq_rel);
  return commands.Erase(cb);
}

VkDeviceAddress Trackers::AddressOf(VkBuffer buffer) const {
  const BufferInfo* info = buffers.Find(buffer);
  return info == nullptr ? 0 : info->address;
}

VkDeviceSize Trackers::SizeOf(VkBuffer buffer) const {
  const BufferInfo* info = buffers.Find(buffer);
  return info == nullptr ? 0 : info->size;
}

bool Trackers::WantsAddress(uint64_t usage, VkDeviceSize size) const {
  for (const TrackingPlan::AddressRule& rule : plan.address_rules) {
    if ((usage & rule.usage) != 0 && size >= rule.min_size) return true;
  }
  return false;
}

}  // namespace bindery
