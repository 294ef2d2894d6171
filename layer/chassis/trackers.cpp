#include "chassis/trackers.h"

namespace bindery {

Trackers::Trackers(DeviceState& device_state, const TrackingPlan& tracking_plan)
    : device(device_state), plan(tracking_plan) {
  for (const TrackingPlan::AddressRule& rule : plan.address_rules) {
    if (rule.min_size < min_flagged_allocation_) min_flagged_allocation_ = rule.min_size;
  }
}

Trackers::~Trackers() {
  // Command buffers the application did not free go with the device: out of the index
  // before their states go.
  commands.ForEach([](VkCommandBuffer cb, CommandState&) { command_index.Erase(cb); });
}

CommandState* Trackers::AddCommand(VkCommandBuffer cb, std::unique_ptr<CommandState> state) {
  ForgetCommand(cb);
  CommandState* added = commands.Insert(cb, std::move(state));
  command_index.Insert(cb, added);
  return added;
}

std::unique_ptr<CommandState> Trackers::ForgetCommand(VkCommandBuffer cb) {
  command_index.Erase(cb);
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
