#include "chassis/tracking_stage.h"

#include <cstring>

#include "chassis/counting_queries.h"
#include "chassis/device_editor.h"
#include "chassis/state.h"
#include "chassis/trackers.h"
#include "core/chain_edit.h"
#include "core/pnext.h"

namespace bindery {
namespace {

class TrackingPlanHolder : public DevicePlan {
 public:
  explicit TrackingPlanHolder(const TrackingPlan& p) : plan(p) {}
  TrackingPlan plan;
};

uint32_t Slot() { return TrackingStage().slot(); }

struct Ctx {
  DeviceState& device;
  Trackers& trackers;
  const VkLayerDispatchTable& next;
};

template <typename Handle>
Ctx Of(Handle h) {
  DeviceState& d = *StateRegistry::Get().FindDevice(h);
  return {d, *d.trackers, d.Next(Slot())};
}

// Create-then-track, written once: `track` runs only when the driver created the object.
template <typename Track>
VkResult Tracked(VkResult result, Track&& track) {
  if (result == VK_SUCCESS) track();
  return result;
}

constexpr VkBufferCreateFlags kNeverAddressed = VK_BUFFER_CREATE_SPARSE_BINDING_BIT | VK_BUFFER_CREATE_PROTECTED_BIT;

// The usage a buffer is created with: VkBufferUsageFlags2CreateInfoKHR's when present
// (then VkBufferCreateInfo::usage is ignored), else VkBufferCreateInfo::usage.
uint64_t UsageOf(const VkBufferCreateInfo& info) {
  if (auto* u2 = FindInChain<BufferUsageFlags2CreateInfo>(info.pNext, kStypeBufferUsageFlags2CreateInfo)) {
    return u2->usage;
  }
  return info.usage;
}

// Gives `info` SHADER_DEVICE_ADDRESS usage when the capabilities want the buffer
// addressable and the layer can do it validly; true if it was added. `chain` edits a copy
// of the application's chain.
bool AddAddressUsage(Trackers& t, VkBufferCreateInfo& info, ChainEditor& chain) {
  const uint64_t usage = UsageOf(info);
  if (!t.device.addressing.enabled() || (usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT) != 0) return false;
  if ((info.flags & kNeverAddressed) != 0 || !t.WantsAddress(usage, info.size)) return false;
  // External memory: only where the driver says its handle types allow the usage, and
  // then memory imported for it takes the flag too (external_addressing.h); otherwise the
  // buffer stays as the application made it (native paths).
  constexpr VkStructureType kExternal = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO;
  if (auto* external = FindInChain<VkExternalMemoryBufferCreateInfo>(info.pNext, kExternal)) {
    if (external->handleTypes != 0 && !t.external.BufferMayBeAddressed(external->handleTypes, usage, info.flags)) {
      return false;
    }
  }
  // Memory smaller than the smallest flagged allocation could be bound to it.
  if (t.device.addressing.memory_flag && info.size < t.min_flagged_allocation()) return false;
  if (chain.Find(kStypeBufferUsageFlags2CreateInfo) != nullptr) {
    auto* u2 = chain.Modify<BufferUsageFlags2CreateInfo>(kStypeBufferUsageFlags2CreateInfo);
    if (u2 == nullptr) return false;
    u2->usage |= kBufferUsage2ShaderDeviceAddress;
  } else {
    info.usage |= VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  }
  info.pNext = chain.chain();
  return true;
}

// An import through a handle type whose buffers the layer makes addressable
// (external_addressing.h) may take the device-address flag; other imports may not be
// given it (handle types without a handleType member, or that the driver does not allow).
bool ImportMayTakeFlag(Trackers& t, const void* chain) {
  if (auto* fd = FindInChain<VkImportMemoryFdInfoKHR>(chain, VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR)) {
    return fd->handleType != 0 && t.external.ImportMayBeAddressed(fd->handleType);
  }
  constexpr VkStructureType kHost = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT;
  if (auto* host = FindInChain<VkImportMemoryHostPointerInfoEXT>(chain, kHost)) {
    return host->handleType != 0 && t.external.ImportMayBeAddressed(host->handleType);
  }
  return false;
}

bool IsImport(const void* chain) {
  return FindFirstIf(chain, [](const VkBaseInStructure& s) {
           switch (s.sType) {
             case VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR:
             case VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT:
             case VK_STRUCTURE_TYPE_IMPORT_MEMORY_WIN32_HANDLE_INFO_KHR:
             case VK_STRUCTURE_TYPE_IMPORT_MEMORY_WIN32_HANDLE_INFO_NV:
             case VK_STRUCTURE_TYPE_IMPORT_ANDROID_HARDWARE_BUFFER_INFO_ANDROID:
             case VK_STRUCTURE_TYPE_IMPORT_MEMORY_ZIRCON_HANDLE_INFO_FUCHSIA:
             case VK_STRUCTURE_TYPE_IMPORT_MEMORY_BUFFER_COLLECTION_FUCHSIA:
               return true;
             default:
               return false;
           }
         }) != nullptr;
}

// ---- buffers and memory ----------------------------------------------------------------

bool IsExternal(const VkBufferCreateInfo& info) {
  constexpr VkStructureType kExternal = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO;
  auto* external = FindInChain<VkExternalMemoryBufferCreateInfo>(info.pNext, kExternal);
  return external != nullptr && external->handleTypes != 0;
}

// The memory requirements of `buffer` (dedicated ones too where they can be asked).
struct Requirements {
  VkMemoryRequirements memory{};
  VkBool32 prefers_dedicated = VK_FALSE;
  VkBool32 requires_dedicated = VK_FALSE;
  bool operator==(const Requirements& o) const {
    return memory.size == o.memory.size && memory.alignment == o.memory.alignment &&
           memory.memoryTypeBits == o.memory.memoryTypeBits && prefers_dedicated == o.prefers_dedicated &&
           requires_dedicated == o.requires_dedicated;
  }
};
Requirements RequirementsOf(Ctx& c, VkDevice device, VkBuffer buffer) {
  Requirements r;
  PFN_vkGetBufferMemoryRequirements2 get2 = nullptr;
  if (c.device.api_version >= VK_API_VERSION_1_1) {
    get2 = c.next.GetBufferMemoryRequirements2;
  } else if (c.device.ExtensionEnabled(VK_KHR_GET_MEMORY_REQUIREMENTS_2_EXTENSION_NAME)) {
    get2 = c.next.GetBufferMemoryRequirements2KHR;
  }
  if (get2 == nullptr) {
    c.next.GetBufferMemoryRequirements(device, buffer, &r.memory);
    return r;
  }
  VkMemoryDedicatedRequirements dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS};
  VkMemoryRequirements2 req{VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2, &dedicated};
  VkBufferMemoryRequirementsInfo2 info{VK_STRUCTURE_TYPE_BUFFER_MEMORY_REQUIREMENTS_INFO_2};
  info.buffer = buffer;
  get2(device, &info, &req);
  r.memory = req.memoryRequirements;
  r.prefers_dedicated = dedicated.prefersDedicatedAllocation;
  r.requires_dedicated = dedicated.requiresDedicatedAllocation;
  return r;
}

// Does `buffer` (made with the address usage added to `app`) need the memory the
// application's own buffer would? The memory of an external buffer is shared with another
// API or process, which makes its twin with the application's usage: a buffer that needs
// other memory (larger, aligned otherwise, of other types, dedicated) must not be made.
bool SameMemoryNeeds(Ctx& c, VkDevice device, VkBuffer buffer, const VkBufferCreateInfo& app) {
  VkBuffer probe = VK_NULL_HANDLE;
  if (c.next.CreateBuffer(device, &app, nullptr, &probe) != VK_SUCCESS) return false;
  const bool same = RequirementsOf(c, device, probe) == RequirementsOf(c, device, buffer);
  c.next.DestroyBuffer(device, probe, nullptr);
  return same;
}

VKAPI_ATTR VkResult VKAPI_CALL CreateBuffer(VkDevice device, const VkBufferCreateInfo* pCreateInfo,
                                            const VkAllocationCallbacks* pAllocator, VkBuffer* pBuffer) {
  Ctx c = Of(device);
  VkBufferCreateInfo info = *pCreateInfo;
  ChainEditor chain(pCreateInfo->pNext);
  bool added = AddAddressUsage(c.trackers, info, chain);
  VkResult result = c.next.CreateBuffer(device, &info, pAllocator, pBuffer);
  if (result == VK_SUCCESS && added && IsExternal(*pCreateInfo) && !SameMemoryNeeds(c, device, *pBuffer, *pCreateInfo)) {
    // (Cold: external buffers are few.) The application's buffer as it made it.
    c.next.DestroyBuffer(device, *pBuffer, pAllocator);
    *pBuffer = VK_NULL_HANDLE;
    info = *pCreateInfo;
    added = false;
    result = c.next.CreateBuffer(device, &info, pAllocator, pBuffer);
  }
  return Tracked(result, [&] {
    auto buffer = std::make_unique<BufferInfo>();
    buffer->size = info.size;
    buffer->usage = UsageOf(info);
    buffer->flags = info.flags;
    buffer->layer_added_address_usage = added;
    c.trackers.buffers.Insert(*pBuffer, std::move(buffer));
  });
}

VKAPI_ATTR void VKAPI_CALL DestroyBuffer(VkDevice device, VkBuffer buffer, const VkAllocationCallbacks* pAllocator) {
  Ctx c = Of(device);
  if (buffer != VK_NULL_HANDLE) c.trackers.buffers.Erase(buffer);
  c.next.DestroyBuffer(device, buffer, pAllocator);
}

// Memory requirements asked without a buffer (maintenance4, used by VMA) must see the
// usage the layer would add, or the application sizes memory for another buffer.
template <typename Fn>
void DeviceBufferRequirements(Fn next, VkDevice device, const VkDeviceBufferMemoryRequirements* pInfo,
                              VkMemoryRequirements2* pRequirements) {
  Ctx c = Of(device);
  if (pInfo == nullptr || pInfo->pCreateInfo == nullptr) return next(device, pInfo, pRequirements);
  VkBufferCreateInfo info = *pInfo->pCreateInfo;
  ChainEditor chain(info.pNext);
  // (An external buffer gets the usage only where its requirements stay the application's:
  // asked with its own usage, the answer is the same either way.)
  if (IsExternal(info) || !AddAddressUsage(c.trackers, info, chain)) return next(device, pInfo, pRequirements);
  VkDeviceBufferMemoryRequirements edited = *pInfo;
  edited.pCreateInfo = &info;
  next(device, &edited, pRequirements);
}

VKAPI_ATTR void VKAPI_CALL GetDeviceBufferMemoryRequirements(VkDevice device,
                                                             const VkDeviceBufferMemoryRequirements* pInfo,
                                                             VkMemoryRequirements2* pRequirements) {
  DeviceBufferRequirements(Of(device).next.GetDeviceBufferMemoryRequirements, device, pInfo, pRequirements);
}

VKAPI_ATTR void VKAPI_CALL GetDeviceBufferMemoryRequirementsKHR(VkDevice device,
                                                                const VkDeviceBufferMemoryRequirements* pInfo,
                                                                VkMemoryRequirements2* pRequirements) {
  DeviceBufferRequirements(Of(device).next.GetDeviceBufferMemoryRequirementsKHR, device, pInfo, pRequirements);
}

VKAPI_ATTR VkResult VKAPI_CALL AllocateMemory(VkDevice device, const VkMemoryAllocateInfo* pAllocateInfo,
                                              const VkAllocationCallbacks* pAllocator, VkDeviceMemory* pMemory) {
  Ctx c = Of(device);
  VkMemoryAllocateInfo info = *pAllocateInfo;
  ChainEditor chain(pAllocateInfo->pNext);
  auto* existing = FindInChain<VkMemoryAllocateFlagsInfo>(info.pNext, VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO);
  bool flag = existing != nullptr && (existing->flags & VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT) != 0;
  bool added = false;
  VkMemoryAllocateFlagsInfo ours{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  // Buffers the layer made addressable can only be bound to allocations at least this
  // large; imported memory is bound only to external buffers, which are addressable only
  // where their handle type allows it: its imports take the flag then, others not.
  if (!flag && c.device.addressing.memory_flag && info.allocationSize >= c.trackers.min_flagged_allocation() &&
      (!IsImport(info.pNext) || ImportMayTakeFlag(c.trackers, info.pNext))) {
    if (existing != nullptr) {
      auto* copy = chain.Modify<VkMemoryAllocateFlagsInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO);
      if (copy != nullptr) copy->flags |= VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
      added = copy != nullptr;
    } else {
      ours.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
      chain.Prepend(reinterpret_cast<VkBaseOutStructure*>(&ours));
      added = true;
    }
    if (!added) {
      BINDERY_LOG(c.device.log(), kWarn, "tracking-memory",
                  "cannot add the device-address flag to an allocation (an unknown struct precedes its "
                  "VkMemoryAllocateFlagsInfo); buffers bound to it take the native paths");
    }
    info.pNext = chain.chain();
  }
  return Tracked(c.next.AllocateMemory(device, &info, pAllocator, pMemory), [&] {
    auto memory = std::make_unique<MemoryInfo>();
    memory->size = info.allocationSize;
    memory->address_flag = flag || added;
    memory->layer_added_address_flag = added;
    c.trackers.memories.Insert(*pMemory, std::move(memory));
  });
}

VKAPI_ATTR void VKAPI_CALL FreeMemory(VkDevice device, VkDeviceMemory memory, const VkAllocationCallbacks* pAllocator) {
  Ctx c = Of(device);
  if (memory != VK_NULL_HANDLE) c.trackers.memories.Erase(memory);
  c.next.FreeMemory(device, memory, pAllocator);
}

void OnBufferBound(Ctx& c, VkBuffer buffer, VkDeviceMemory memory) {
  BufferInfo* info = c.trackers.buffers.Find(buffer);
  if (info == nullptr || (info->usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT) == 0) return;
  const MemoryInfo* mem = c.trackers.memories.Find(memory);
  const DeviceAddressing& a = c.device.addressing;
  if (!a.enabled() || mem == nullptr) return;
  if (a.memory_flag && !mem->address_flag) {
    // Only reachable when the flag could not be added to that allocation (logged there):
    // the buffer keeps no address and takes the native paths.
    return;
  }
  VkBufferDeviceAddressInfo address{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
  address.buffer = buffer;
  info->address = a.get_address(c.device.handle, &address);
}

VKAPI_ATTR VkResult VKAPI_CALL BindBufferMemory(VkDevice device, VkBuffer buffer, VkDeviceMemory memory,
                                                VkDeviceSize offset) {
  Ctx c = Of(device);
  return Tracked(c.next.BindBufferMemory(device, buffer, memory, offset), [&] { OnBufferBound(c, buffer, memory); });
}

VkResult BindBufferMemory2Common(Ctx& c, PFN_vkBindBufferMemory2 next, VkDevice device, uint32_t count,
                                 const VkBindBufferMemoryInfo* infos) {
  return Tracked(next(device, count, infos), [&] {
    for (uint32_t i = 0; i < count; ++i) OnBufferBound(c, infos[i].buffer, infos[i].memory);
  });
}

VKAPI_ATTR VkResult VKAPI_CALL BindBufferMemory2(VkDevice device, uint32_t count, const VkBindBufferMemoryInfo* infos) {
  Ctx c = Of(device);
  return BindBufferMemory2Common(c, c.next.BindBufferMemory2, device, count, infos);
}

VKAPI_ATTR VkResult VKAPI_CALL BindBufferMemory2KHR(VkDevice device, uint32_t count,
                                                    const VkBindBufferMemoryInfo* infos) {
  Ctx c = Of(device);
  return BindBufferMemory2Common(c, c.next.BindBufferMemory2KHR, device, count, infos);
}

// ---- command pools and buffers -----------------------------------------------------------

VKAPI_ATTR VkResult VKAPI_CALL CreateCommandPool(VkDevice device, const VkCommandPoolCreateInfo* pCreateInfo,
                                                 const VkAllocationCallbacks* pAllocator, VkCommandPool* pPool) {
  Ctx c = Of(device);
  return Tracked(c.next.CreateCommandPool(device, pCreateInfo, pAllocator, pPool), [&] {
    auto pool = std::make_unique<PoolInfo>();
    pool->queue_family = pCreateInfo->queueFamilyIndex;
    if (pCreateInfo->queueFamilyIndex < c.device.queue_families.size()) {
      pool->queue_flags = c.device.queue_families[pCreateInfo->queueFamilyIndex].queueFlags;
    }
    pool->is_protected = (pCreateInfo->flags & VK_COMMAND_POOL_CREATE_PROTECTED_BIT) != 0;
    c.trackers.pools.Insert(*pPool, std::move(pool));
  });
}

void ForgetCommandBuffer(Trackers& t, VkCommandBuffer cb) { t.ForgetCommand(cb); }

VKAPI_ATTR void VKAPI_CALL DestroyCommandPool(VkDevice device, VkCommandPool pool,
                                              const VkAllocationCallbacks* pAllocator) {
  Ctx c = Of(device);
  if (std::unique_ptr<PoolInfo> info = c.trackers.pools.Erase(pool)) {
    for (VkCommandBuffer cb : info->members) ForgetCommandBuffer(c.trackers, cb);
  }
  c.next.DestroyCommandPool(device, pool, pAllocator);
}

VKAPI_ATTR VkResult VKAPI_CALL ResetCommandPool(VkDevice device, VkCommandPool pool, VkCommandPoolResetFlags flags) {
  Ctx c = Of(device);
  const VkResult result = c.next.ResetCommandPool(device, pool, flags);
  if (const PoolInfo* info = c.trackers.pools.Find(pool)) {
    for (VkCommandBuffer cb : info->members) {
      if (CommandState* state = c.trackers.FindCommand(cb)) state->Reset();
    }
  }
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL AllocateCommandBuffers(VkDevice device, const VkCommandBufferAllocateInfo* pInfo,
                                                      VkCommandBuffer* pCommandBuffers) {
  Ctx c = Of(device);
  const VkResult result = c.next.AllocateCommandBuffers(device, pInfo, pCommandBuffers);
  PoolInfo* pool = c.trackers.pools.Find(pInfo->commandPool);
  if (result != VK_SUCCESS || pool == nullptr) return result;
  for (uint32_t i = 0; i < pInfo->commandBufferCount; ++i) {
    auto state = std::make_unique<CommandState>(pInfo->commandPool, *pool,
                                                pInfo->level == VK_COMMAND_BUFFER_LEVEL_SECONDARY,
                                                c.device.properties.limits.maxPushConstantsSize);
    state->set_tracking_next(&c.next);
    for (std::size_t s = 0; s < c.device.slot_count; ++s) {
      const DeviceState::Slot& slot = c.device.slots[s];
      if (slot.state != nullptr) {
        state->set_data(static_cast<uint32_t>(s), slot.capability->CreateCommandData(*slot.state, pInfo->commandPool));
      }
    }
    // A handle freed and handed out again replaces the old entry.
    c.trackers.AddCommand(pCommandBuffers[i], std::move(state));
    pool->members.push_back(pCommandBuffers[i]);
  }
  return result;
}

VKAPI_ATTR void VKAPI_CALL FreeCommandBuffers(VkDevice device, VkCommandPool pool, uint32_t count,
                                              const VkCommandBuffer* pCommandBuffers) {
  Ctx c = Of(device);
  PoolInfo* info = c.trackers.pools.Find(pool);
  for (uint32_t i = 0; i < count; ++i) {
    if (pCommandBuffers[i] == VK_NULL_HANDLE) continue;
    ForgetCommandBuffer(c.trackers, pCommandBuffers[i]);
    if (info == nullptr) continue;
    auto& m = info->members;
    for (auto it = m.begin(); it != m.end(); ++it) {
      if (*it == pCommandBuffers[i]) {
        *it = m.back();
        m.pop_back();
        break;
      }
    }
  }
  c.next.FreeCommandBuffers(device, pool, count, pCommandBuffers);
}

VKAPI_ATTR VkResult VKAPI_CALL BeginCommandBuffer(VkCommandBuffer cb, const VkCommandBufferBeginInfo* pBeginInfo) {
  Ctx c = Of(cb);
  if (CommandState* state = c.trackers.FindCommand(cb)) {
    CommandState::Inherited inherited;
    // A primary's pInheritanceInfo is ignored by the spec (it may point anywhere): only a
    // secondary's is read.
    const VkCommandBufferInheritanceInfo* info = state->secondary() ? pBeginInfo->pInheritanceInfo : nullptr;
    if (info != nullptr) {
      auto* cond = FindInChain<VkCommandBufferInheritanceConditionalRenderingInfoEXT>(
          info->pNext, VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_CONDITIONAL_RENDERING_INFO_EXT);
      inherited.conditional_rendering = cond != nullptr && cond->conditionalRenderingEnable == VK_TRUE;
      // The statistics of any pipeline-statistics query it may run inside
      // (chassis/counting_queries.h).
      inherited.counting_statistics = InheritedStatisticsCountDispatches(info->pipelineStatistics);
    }
    // Begin resets implicitly; the command buffer is not pending (spec), so capability
    // data (e.g. staging) can be reused.
    state->Reset(inherited);
  }
  return c.next.BeginCommandBuffer(cb, pBeginInfo);
}

VKAPI_ATTR VkResult VKAPI_CALL EndCommandBuffer(VkCommandBuffer cb) {
  Ctx c = Of(cb);
  const VkResult result = c.next.EndCommandBuffer(cb);
  if (result != VK_SUCCESS) return result;
  const CommandState* state = c.trackers.FindCommand(cb);
  return state == nullptr ? result : state->RecordingError();
}

VKAPI_ATTR VkResult VKAPI_CALL ResetCommandBuffer(VkCommandBuffer cb, VkCommandBufferResetFlags flags) {
  Ctx c = Of(cb);
  if (CommandState* state = c.trackers.FindCommand(cb)) state->Reset();
  return c.next.ResetCommandBuffer(cb, flags);
}

// ---- the state sent down ------------------------------------------------------------------

// The record path: pipelines and pushes reach the command buffer's state and the next
// layer through the global command index alone (no device lookup, no lock, no
// thread-local storage). Each hook's common case is a leaf ending in a tail call; every
// other case goes to an out-of-line function with the same parameters (also a tail call),
// so the hook needs no frame and saves no registers.
[[gnu::noinline]] void BindPipelineSlow(VkCommandBuffer cb, VkPipelineBindPoint bind_point, VkPipeline pipeline) {
  Ctx c = Of(cb);
  c.next.CmdBindPipeline(cb, bind_point, pipeline);  // a command buffer the index does not know
}

VKAPI_ATTR void VKAPI_CALL CmdBindPipeline(VkCommandBuffer cb, VkPipelineBindPoint bind_point, VkPipeline pipeline) {
  CommandState* state = Trackers::CommandOf(cb);
  if (state == nullptr) return BindPipelineSlow(cb, bind_point, pipeline);
  state->OnBindPipeline(bind_point, pipeline);
  return state->tracking_next()->CmdBindPipeline(cb, bind_point, pipeline);
}

// A push the inline record does not take (another range than the last push's, more than
// 32 bytes, the first push), or of a command buffer the index does not know.
[[gnu::noinline]] void PushConstantsSlow(VkCommandBuffer cb, VkPipelineLayout layout, VkShaderStageFlags stages,
                                         uint32_t offset, uint32_t size, const void* values) {
  if (CommandState* state = Trackers::CommandOf(cb)) {
    state->OnPushConstantsSlow(layout, stages, offset, size, values);
    return state->tracking_next()->CmdPushConstants(cb, layout, stages, offset, size, values);
  }
  Ctx c = Of(cb);
  c.next.CmdPushConstants(cb, layout, stages, offset, size, values);
}

VKAPI_ATTR void VKAPI_CALL CmdPushConstants(VkCommandBuffer cb, VkPipelineLayout layout, VkShaderStageFlags stages,
                                            uint32_t offset, uint32_t size, const void* values) {
  CommandState* state = Trackers::CommandOf(cb);
  if (state == nullptr || !state->RecordSameRangePush(layout, stages, offset, size, values)) {
    return PushConstantsSlow(cb, layout, stages, offset, size, values);
  }
  return state->tracking_next()->CmdPushConstants(cb, layout, stages, offset, size, values);
}

VKAPI_ATTR void VKAPI_CALL CmdPushConstants2KHR(VkCommandBuffer cb, const PushConstantsInfo* info) {
  DeviceState& d = *StateRegistry::Get().FindDevice(cb);
  d.NextNewer(Slot()).CmdPushConstants2KHR(cb, info);
  if (CommandState* state = d.trackers->FindCommand(cb)) state->OnPushConstants2(*info);
}

VKAPI_ATTR void VKAPI_CALL CmdBindShadersEXT(VkCommandBuffer cb, uint32_t count, const VkShaderStageFlagBits* stages,
                                             const ShaderObject* shaders) {
  DeviceState& d = *StateRegistry::Get().FindDevice(cb);
  d.NextNewer(Slot()).CmdBindShadersEXT(cb, count, stages, shaders);
  if (CommandState* state = d.trackers->FindCommand(cb)) state->OnBindShaders(count, stages, shaders);
}

// Compute descriptor sets (TrackingPlan::compute_descriptor_sets): binds are recorded;
// what cannot be bound again (push descriptors, descriptor buffers, a maintenance6 bind
// with a dynamic layout) makes the command buffer's compute sets untrackable.

// A compute bind the hook's inline form does not take (more than one set, dynamic offsets,
// another range than the last bind's), or of a command buffer the index does not know.
[[gnu::noinline]] void BindDescriptorSetsSlow(VkCommandBuffer cb, VkPipelineBindPoint bind_point,
                                              VkPipelineLayout layout, uint32_t first, uint32_t count,
                                              const VkDescriptorSet* sets, uint32_t dynamic_count,
                                              const uint32_t* dynamic_offsets) {
  if (CommandState* state = Trackers::CommandOf(cb)) {
    if (bind_point == VK_PIPELINE_BIND_POINT_COMPUTE &&
        !state->RebindLast(layout, first, count, sets, dynamic_count, dynamic_offsets)) {
      state->OnBindDescriptorSets(bind_point, layout, first, count, sets, dynamic_count, dynamic_offsets);
    }
    return state->tracking_next()->CmdBindDescriptorSets(cb, bind_point, layout, first, count, sets, dynamic_count,
                                                          dynamic_offsets);
  }
  Ctx c = Of(cb);
  c.next.CmdBindDescriptorSets(cb, bind_point, layout, first, count, sets, dynamic_count, dynamic_offsets);
}

// The usual compute bind (one set rebound where the last bind bound it) and every other
// bind point's: a leaf ending in a tail call.
VKAPI_ATTR void VKAPI_CALL CmdBindDescriptorSets(VkCommandBuffer cb, VkPipelineBindPoint bind_point,
                                                 VkPipelineLayout layout, uint32_t first, uint32_t count,
                                                 const VkDescriptorSet* sets, uint32_t dynamic_count,
                                                 const uint32_t* dynamic_offsets) {
  CommandState* state = Trackers::CommandOf(cb);
  if (state == nullptr || (bind_point == VK_PIPELINE_BIND_POINT_COMPUTE &&
                           !state->RebindLastOne(layout, first, count, sets, dynamic_count))) {
    return BindDescriptorSetsSlow(cb, bind_point, layout, first, count, sets, dynamic_count, dynamic_offsets);
  }
  return state->tracking_next()->CmdBindDescriptorSets(cb, bind_point, layout, first, count, sets, dynamic_count,
                                                        dynamic_offsets);
}

void ComputeSetsUntrackable(VkCommandBuffer cb) {
  if (CommandState* state = Trackers::CommandOf(cb)) state->OnComputeDescriptorsUntrackable();
}

// Push descriptors reach the next layer through the command buffer's state as binds do (no
// device lookup); a command buffer the index does not know goes through its device.
[[gnu::noinline]] void PushDescriptorSetSlow(VkCommandBuffer cb, VkPipelineBindPoint bind_point,
                                             VkPipelineLayout layout, uint32_t set, uint32_t count,
                                             const VkWriteDescriptorSet* writes) {
  Of(cb).next.CmdPushDescriptorSetKHR(cb, bind_point, layout, set, count, writes);
}

VKAPI_ATTR void VKAPI_CALL CmdPushDescriptorSetKHR(VkCommandBuffer cb, VkPipelineBindPoint bind_point,
                                                   VkPipelineLayout layout, uint32_t set, uint32_t count,
                                                   const VkWriteDescriptorSet* writes) {
  CommandState* state = Trackers::CommandOf(cb);
  if (state == nullptr) return PushDescriptorSetSlow(cb, bind_point, layout, set, count, writes);
  if (bind_point == VK_PIPELINE_BIND_POINT_COMPUTE) state->OnComputeDescriptorsUntrackable();
  return state->tracking_next()->CmdPushDescriptorSetKHR(cb, bind_point, layout, set, count, writes);
}

[[gnu::noinline]] void PushDescriptorSetWithTemplateSlow(VkCommandBuffer cb,
                                                         VkDescriptorUpdateTemplate update_template,
                                                         VkPipelineLayout layout, uint32_t set, const void* data) {
  Of(cb).next.CmdPushDescriptorSetWithTemplateKHR(cb, update_template, layout, set, data);
}

VKAPI_ATTR void VKAPI_CALL CmdPushDescriptorSetWithTemplateKHR(VkCommandBuffer cb,
                                                               VkDescriptorUpdateTemplate update_template,
                                                               VkPipelineLayout layout, uint32_t set,
                                                               const void* data) {
  CommandState* state = Trackers::CommandOf(cb);
  if (state == nullptr) return PushDescriptorSetWithTemplateSlow(cb, update_template, layout, set, data);
  state->OnComputeDescriptorsUntrackable();  // the template's bind point is not tracked: assume compute
  return state->tracking_next()->CmdPushDescriptorSetWithTemplateKHR(cb, update_template, layout, set, data);
}

VKAPI_ATTR void VKAPI_CALL CmdBindDescriptorBuffersEXT(VkCommandBuffer cb, uint32_t count,
                                                       const VkDescriptorBufferBindingInfoEXT* infos) {
  ComputeSetsUntrackable(cb);
  Of(cb).next.CmdBindDescriptorBuffersEXT(cb, count, infos);
}

VKAPI_ATTR void VKAPI_CALL CmdBindDescriptorSets2KHR(VkCommandBuffer cb, const BindDescriptorSetsInfo* info) {
  DeviceState& d = *StateRegistry::Get().FindDevice(cb);
  if (CommandState* state = d.trackers->FindCommand(cb); state != nullptr &&
                                                         (info->stageFlags & VK_SHADER_STAGE_COMPUTE_BIT) != 0) {
    if (info->pNext != nullptr || info->layout == VK_NULL_HANDLE) {
      state->OnComputeDescriptorsUntrackable();
    } else {
      state->OnBindDescriptorSets(VK_PIPELINE_BIND_POINT_COMPUTE, info->layout, info->firstSet,
                                  info->descriptorSetCount, info->pDescriptorSets, info->dynamicOffsetCount,
                                  info->pDynamicOffsets);
    }
  }
  d.NextNewer(Slot()).CmdBindDescriptorSets2KHR(cb, info);
}

VKAPI_ATTR void VKAPI_CALL CmdPushDescriptorSet2KHR(VkCommandBuffer cb, const PushDescriptorSetInfo* info) {
  if ((info->stageFlags & VK_SHADER_STAGE_COMPUTE_BIT) != 0) ComputeSetsUntrackable(cb);
  StateRegistry::Get().FindDevice(cb)->NextNewer(Slot()).CmdPushDescriptorSet2KHR(cb, info);
}

VKAPI_ATTR void VKAPI_CALL CmdPushDescriptorSetWithTemplate2KHR(VkCommandBuffer cb,
                                                                const PushDescriptorSetWithTemplateInfo* info) {
  ComputeSetsUntrackable(cb);
  StateRegistry::Get().FindDevice(cb)->NextNewer(Slot()).CmdPushDescriptorSetWithTemplate2KHR(cb, info);
}

VKAPI_ATTR void VKAPI_CALL CmdBeginConditionalRenderingEXT(VkCommandBuffer cb,
                                                           const VkConditionalRenderingBeginInfoEXT* info) {
  Ctx c = Of(cb);
  c.next.CmdBeginConditionalRenderingEXT(cb, info);
  if (CommandState* state = c.trackers.FindCommand(cb)) state->OnBeginConditionalRendering(*info);
}

VKAPI_ATTR void VKAPI_CALL CmdEndConditionalRenderingEXT(VkCommandBuffer cb) {
  Ctx c = Of(cb);
  c.next.CmdEndConditionalRenderingEXT(cb);
  if (CommandState* state = c.trackers.FindCommand(cb)) state->OnEndConditionalRendering();
}

// ---- queries that would count the layer's dispatches (chassis/counting_queries.h) -----------

VKAPI_ATTR VkResult VKAPI_CALL CreateQueryPool(VkDevice device, const VkQueryPoolCreateInfo* pCreateInfo,
                                               const VkAllocationCallbacks* pAllocator, VkQueryPool* pPool) {
  Ctx c = Of(device);
  return Tracked(c.next.CreateQueryPool(device, pCreateInfo, pAllocator, pPool),
                 [&] { c.trackers.AddQueryPool(*pPool, *pCreateInfo); });
}

VKAPI_ATTR void VKAPI_CALL DestroyQueryPool(VkDevice device, VkQueryPool pool, const VkAllocationCallbacks* pAllocator) {
  Ctx c = Of(device);
  if (pool != VK_NULL_HANDLE) c.trackers.ForgetQueryPool(pool);
  c.next.DestroyQueryPool(device, pool, pAllocator);
}

// The begin goes down first: work the capabilities below record at the begin itself (a
// flush of queued small writes) lands before the query and may still be a dispatch.
VKAPI_ATTR void VKAPI_CALL CmdBeginQuery(VkCommandBuffer cb, VkQueryPool pool, uint32_t query,
                                         VkQueryControlFlags flags) {
  Ctx c = Of(cb);
  c.next.CmdBeginQuery(cb, pool, query, flags);
  if (CommandState* state = c.trackers.FindCommand(cb)) {
    state->OnBeginQuery(c.trackers.QueryPoolCountsDispatches(pool), pool, query, 0);
  }
}

VKAPI_ATTR void VKAPI_CALL CmdEndQuery(VkCommandBuffer cb, VkQueryPool pool, uint32_t query) {
  Ctx c = Of(cb);
  c.next.CmdEndQuery(cb, pool, query);
  if (CommandState* state = c.trackers.FindCommand(cb)) state->OnEndQuery(pool, query, 0);
}

VKAPI_ATTR void VKAPI_CALL CmdBeginQueryIndexedEXT(VkCommandBuffer cb, VkQueryPool pool, uint32_t query,
                                                   VkQueryControlFlags flags, uint32_t index) {
  Ctx c = Of(cb);
  c.next.CmdBeginQueryIndexedEXT(cb, pool, query, flags, index);
  if (CommandState* state = c.trackers.FindCommand(cb)) {
    state->OnBeginQuery(c.trackers.QueryPoolCountsDispatches(pool), pool, query, index);
  }
}

VKAPI_ATTR void VKAPI_CALL CmdEndQueryIndexedEXT(VkCommandBuffer cb, VkQueryPool pool, uint32_t query,
                                                 uint32_t index) {
  Ctx c = Of(cb);
  c.next.CmdEndQueryIndexedEXT(cb, pool, query, index);
  if (CommandState* state = c.trackers.FindCommand(cb)) state->OnEndQuery(pool, query, index);
}

// ---- the stage ------------------------------------------------------------------------------

const TrackingPlan& PlanOf(const DevicePlan& p) { return static_cast<const TrackingPlanHolder&>(p).plan; }
bool Resources(const DevicePlan& p) { return PlanOf(p).resources || !PlanOf(p).address_rules.empty(); }
bool Addresses(const DevicePlan& p) { return !PlanOf(p).address_rules.empty(); }
bool Commands(const DevicePlan& p) {
  return PlanOf(p).commands || PlanOf(p).command_state || PlanOf(p).push_constants ||
         PlanOf(p).compute_descriptor_sets;
}
bool CommandStateWanted(const DevicePlan& p) { return PlanOf(p).command_state; }
bool PushesWanted(const DevicePlan& p) { return PlanOf(p).push_constants; }
bool ComputeSetsWanted(const DevicePlan& p) { return PlanOf(p).compute_descriptor_sets; }

const Hook kHooks[] = {
    BINDERY_HOOK(CreateBuffer, Resources),
    BINDERY_HOOK(DestroyBuffer, Resources),
    BINDERY_HOOK(GetDeviceBufferMemoryRequirements, Addresses),
    BINDERY_HOOK(GetDeviceBufferMemoryRequirementsKHR, Addresses),
    BINDERY_HOOK(AllocateMemory, Resources),
    BINDERY_HOOK(FreeMemory, Resources),
    BINDERY_HOOK(BindBufferMemory, Resources),
    BINDERY_HOOK(BindBufferMemory2, Resources),
    BINDERY_HOOK(BindBufferMemory2KHR, Resources),
    BINDERY_HOOK(CreateCommandPool, Commands),
    BINDERY_HOOK(DestroyCommandPool, Commands),
    BINDERY_HOOK(ResetCommandPool, Commands),
    BINDERY_HOOK(AllocateCommandBuffers, Commands),
    BINDERY_HOOK(FreeCommandBuffers, Commands),
    BINDERY_HOOK(BeginCommandBuffer, Commands),
    BINDERY_HOOK(EndCommandBuffer, Commands),
    BINDERY_HOOK(ResetCommandBuffer, Commands),
    BINDERY_HOOK(CmdBindPipeline, CommandStateWanted),
    BINDERY_HOOK(CmdPushConstants, PushesWanted),
    BINDERY_HOOK(CmdPushConstants2KHR, PushesWanted),
    BINDERY_HOOK(CmdBindShadersEXT, CommandStateWanted),
    BINDERY_HOOK(CmdBindDescriptorSets, ComputeSetsWanted),
    BINDERY_HOOK(CmdPushDescriptorSetKHR, ComputeSetsWanted),
    BINDERY_HOOK(CmdPushDescriptorSetWithTemplateKHR, ComputeSetsWanted),
    BINDERY_HOOK(CmdBindDescriptorBuffersEXT, ComputeSetsWanted),
    BINDERY_HOOK(CmdBindDescriptorSets2KHR, ComputeSetsWanted),
    BINDERY_HOOK(CmdPushDescriptorSet2KHR, ComputeSetsWanted),
    BINDERY_HOOK(CmdPushDescriptorSetWithTemplate2KHR, ComputeSetsWanted),
    BINDERY_HOOK(CmdBeginConditionalRenderingEXT, CommandStateWanted),
    BINDERY_HOOK(CmdEndConditionalRenderingEXT, CommandStateWanted),
    BINDERY_HOOK(CreateQueryPool, CommandStateWanted),
    BINDERY_HOOK(DestroyQueryPool, CommandStateWanted),
    BINDERY_HOOK(CmdBeginQuery, CommandStateWanted),
    BINDERY_HOOK(CmdEndQuery, CommandStateWanted),
    BINDERY_HOOK(CmdBeginQueryIndexedEXT, CommandStateWanted),
    BINDERY_HOOK(CmdEndQueryIndexedEXT, CommandStateWanted),
};

class Stage final : public Capability {
 public:
  const char* Name() const override { return "tracking"; }
  HookTable DeviceHooks() const override { return MakeHookTable(kHooks); }
  bool PlansLast() const override { return true; }

  std::unique_ptr<DevicePlan> PlanDevice(DeviceEditor& editor) const override {
    if (!editor.tracking().any()) return nullptr;
    return std::make_unique<TrackingPlanHolder>(editor.tracking());
  }

  std::unique_ptr<CapabilityDevice> CreateDevice(DeviceState&, DevicePlan&) const override {
    // The trackers belong to the device (the chassis makes them before any capability
    // starts, so all can read them); the stage itself keeps nothing.
    return std::make_unique<CapabilityDevice>();
  }
};

}  // namespace

Capability& TrackingStage() {
  static Stage* stage = new Stage();
  return *stage;
}

}  // namespace bindery
