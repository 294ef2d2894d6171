#include "chassis/trackers.h"

#include "chassis/counting_queries.h"

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
  query_pool_index_.FreeTables();
}

namespace {
// HandleIndex keys 0 and 1 mark empty and erased slots; a non-dispatchable handle may be any
// other value, 1 included (a driver handing out small numbers): such a pool is kept out of
// the index and found in the map (under its shard's lock).
bool Indexable(VkQueryPool pool) { return reinterpret_cast<uintptr_t>(pool) > 1; }
}  // namespace

void Trackers::AddQueryPool(VkQueryPool pool, const VkQueryPoolCreateInfo& info) {
  auto entry = std::make_unique<QueryPoolInfo>();
  entry->counts_dispatches = QueryCountsDispatches(info.queryType, info.pipelineStatistics);
  // A handle the driver hands out again replaces the old entry.
  QueryPoolInfo* added = query_pools_.Insert(pool, std::move(entry));
  if (Indexable(pool)) query_pool_index_.Insert(pool, added);
}

void Trackers::ForgetQueryPool(VkQueryPool pool) {
  if (Indexable(pool)) query_pool_index_.Erase(pool);
  query_pools_.Erase(pool);
}

bool Trackers::QueryPoolCountsDispatches(VkQueryPool pool) const {
  const QueryPoolInfo* info = Indexable(pool) ? query_pool_index_.Find(pool) : query_pools_.Find(pool);
  return info == nullptr || info->counts_dispatches;
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
