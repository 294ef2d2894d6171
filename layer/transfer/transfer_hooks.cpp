// The Vulkan entry points of the transfers capability.
//
// Resource tracking (buffers, memory, pools, command buffers) keeps what the polyfills
// need; vkCmdFillBuffer / vkCmdUpdateBuffer / vkCmdCopyBuffer(2) choose a path per call
// (transfer/policy.h). Each intercept is installed only on devices where it is needed
// (see the `active_on` predicates in the table at the end).
#include <cstring>

#include "core/chain_edit.h"
#include "core/state.h"
#include "entry/intercepts.h"
#include "transfer/plan.h"
#include "transfer/transfer_device.h"

namespace bindery::transfer {
namespace {

// Unaligned fills up to this size are written entirely from staging (one copy command).
constexpr VkDeviceSize kSmallFillFromStaging = 4096;

DeviceState& Device(VkDevice device) { return *StateRegistry::Get().FindDevice(device); }
DeviceState& Device(VkCommandBuffer cb) { return *StateRegistry::Get().FindDevice(cb); }

// Collects one call's native copy regions and kernel jobs, recording them in batches:
// native regions (which touch bytes the kernels do not) first, then the kernels inside
// one barrier bracket. Fixed-size arrays: no allocation while recording.
class CopyRecorder {
 public:
  CopyRecorder(DeviceTransfers& t, VkCommandBuffer cb, CommandState* state, VkBuffer src, VkBuffer dst)
      : t_(t), cb_(cb), state_(state), src_(src), dst_(dst) {}
  ~CopyRecorder() { Flush(); }

  void Native(VkDeviceSize src_offset, VkDeviceSize dst_offset, VkDeviceSize size) {
    if (size == 0) return;
    if (native_count_ == kMaxNative) FlushNative();
    native_[native_count_++] = {src_offset, dst_offset, size};
  }
  void Kernel(const KernelJob& job) {
    if (job_count_ == kMaxJobs) Flush();
    jobs_[job_count_++] = job;
  }
  void Flush() {
    FlushNative();
    if (job_count_ != 0) {
      t_.kernels.Record(cb_, *state_, jobs_, job_count_);
      Stats::Bump(t_.device.stats.transfer_kernels, job_count_);
      job_count_ = 0;
    }
  }

 private:
  void FlushNative() {
    if (native_count_ == 0) return;
    t_.device.dispatch.CmdCopyBuffer(cb_, src_, dst_, native_count_, native_);
    native_count_ = 0;
  }
  static constexpr uint32_t kMaxNative = 32;
  static constexpr uint32_t kMaxJobs = 16;
  DeviceTransfers& t_;
  VkCommandBuffer cb_;
  CommandState* state_;
  VkBuffer src_, dst_;
  VkBufferCopy native_[kMaxNative];
  uint32_t native_count_ = 0;
  KernelJob jobs_[kMaxJobs];
  uint32_t job_count_ = 0;
};

// Can a kernel run in this command buffer now, on buffers with these addresses?
bool KernelUsable(DeviceTransfers& t, CommandState* state, VkDeviceAddress a, VkDeviceAddress b) {
  return t.KernelsPossible() && state != nullptr && state->KernelsAllowed() && a != 0 && b != 0 && t.kernels.Ready();
}

// One copy region: the 16-byte-aligned middle of the destination to a kernel when the
// policy says it pays, the rest natively. Returns whether a kernel was used.
bool CopyRegion(DeviceTransfers& t, CopyRecorder& rec, bool kernels_ok, VkDeviceAddress src_address,
                VkDeviceAddress dst_address, const VkBufferCopy& r) {
  if (kernels_ok) {
    const bool aligned = ((r.srcOffset | r.dstOffset | r.size) & 3) == 0;
    const Split split = SplitAligned({r.dstOffset, r.size}, 16, dst_address);
    if (split.middle.size >= t.policy.CopyThreshold(aligned)) {
      const VkDeviceSize into = split.middle.offset - r.dstOffset;
      const KernelCopy k =
          PlanKernelCopy(src_address + r.srcOffset + into, dst_address + split.middle.offset, split.middle.size);
      rec.Native(r.srcOffset, r.dstOffset, split.head.size);
      rec.Kernel({k.src_vec4_aligned ? KernelKind::kCopyVec4 : KernelKind::kCopyShift, k.dst_address,
                  k.src_vec4_aligned ? src_address + r.srcOffset + into : k.src_word_address, k.bytes / 16,
                  k.src_vec4_aligned ? 0u : k.shift_bits});
      rec.Native(r.srcOffset + (split.tail.offset - r.dstOffset), split.tail.offset, split.tail.size);
      return true;
    }
  }
  rec.Native(r.srcOffset, r.dstOffset, r.size);
  return false;
}

VkDeviceAddress AddressOf(DeviceTransfers& t, VkBuffer buffer) {
  const BufferInfo* info = t.buffers.Find(buffer);
  return info == nullptr ? 0 : info->address;
}

// Copies `range_count` ranges of dst from staging, one copy command; `write(data, range)`
// puts each range's bytes into staging. False if no staging memory could be had.
template <typename WriteFn>
bool StagingCopy(DeviceTransfers& t, VkCommandBuffer cb, CommandState& state, VkBuffer dst, const ByteRange* ranges,
                 uint32_t range_count, WriteFn&& write) {
  VkDeviceSize total = 0;
  for (uint32_t i = 0; i < range_count; ++i) total += ranges[i].size;
  if (total == 0) return true;
  const StagingSlice slice = state.staging().Allocate(t.staging, total);
  if (slice.data == nullptr) return false;
  VkBufferCopy regions[2];
  uint32_t n = 0;
  VkDeviceSize at = 0;
  for (uint32_t i = 0; i < range_count && n < 2; ++i) {
    if (ranges[i].empty()) continue;
    write(slice.data + at, ranges[i]);
    regions[n++] = {slice.offset + at, ranges[i].offset, ranges[i].size};
    at += ranges[i].size;
  }
  t.device.dispatch.CmdCopyBuffer(cb, slice.buffer, dst, n, regions);
  Stats::Bump(t.device.stats.transfer_edge_copies);
  return true;
}

// Writes the bytes a fill of `data` begun at `fill_offset` leaves in `range`.
void WriteFillBytes(uint8_t* out, ByteRange range, uint32_t data, VkDeviceSize fill_offset) {
  const uint32_t word = RotatedPattern(data, fill_offset, range.offset);
  VkDeviceSize i = 0;
  for (; i + 4 <= range.size; i += 4) std::memcpy(out + i, &word, 4);
  for (; i < range.size; ++i) out[i] = static_cast<uint8_t>(word >> (8 * (i % 4)));
}

}  // namespace

// ---- resources ---------------------------------------------------------------------

VKAPI_ATTR VkResult VKAPI_CALL CreateBuffer(VkDevice device, const VkBufferCreateInfo* pCreateInfo,
                                            const VkAllocationCallbacks* pAllocator, VkBuffer* pBuffer) {
  DeviceState& d = Device(device);
  DeviceTransfers& t = *d.transfers;
  VkBufferCreateInfo info = *pCreateInfo;
  constexpr VkBufferUsageFlags kTransfer = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  constexpr VkBufferCreateFlags kNoKernels = VK_BUFFER_CREATE_SPARSE_BINDING_BIT | VK_BUFFER_CREATE_PROTECTED_BIT;
  // Kernels read and write through device addresses: give transfer buffers the usage
  // before the application asks for memory requirements.
  if (t.KernelsPossible() && (info.usage & kTransfer) != 0 && (info.flags & kNoKernels) == 0) {
    info.usage |= VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  }
  const VkResult result = d.dispatch.CreateBuffer(device, &info, pAllocator, pBuffer);
  if (result == VK_SUCCESS) {
    auto buffer = std::make_unique<BufferInfo>();
    buffer->size = info.size;
    buffer->wants_address = (info.usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT) != 0 &&
                            (info.flags & kNoKernels) == 0 && t.device_address;
    t.buffers.Insert(*pBuffer, std::move(buffer));
  }
  return result;
}

VKAPI_ATTR void VKAPI_CALL DestroyBuffer(VkDevice device, VkBuffer buffer, const VkAllocationCallbacks* pAllocator) {
  DeviceState& d = Device(device);
  if (buffer != VK_NULL_HANDLE) d.transfers->buffers.Erase(buffer);
  d.dispatch.DestroyBuffer(device, buffer, pAllocator);
}

VKAPI_ATTR VkResult VKAPI_CALL AllocateMemory(VkDevice device, const VkMemoryAllocateInfo* pAllocateInfo,
                                              const VkAllocationCallbacks* pAllocator, VkDeviceMemory* pMemory) {
  DeviceState& d = Device(device);
  DeviceTransfers& t = *d.transfers;
  // Buffers bound to this memory get device addresses only if it allows them: add
  // VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT (the layer enabled the feature).
  VkMemoryAllocateInfo info = *pAllocateInfo;
  ChainEditor chain(pAllocateInfo->pNext);
  VkMemoryAllocateFlagsInfo ours{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  ours.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  bool address = true;
  if (auto* existing = reinterpret_cast<const VkMemoryAllocateFlagsInfo*>(
          chain.Find(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO))) {
    if ((existing->flags & VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT) == 0) {
      auto* copy = chain.Modify<VkMemoryAllocateFlagsInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO);
      if (copy != nullptr) copy->flags |= VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
      address = copy != nullptr;
    }
  } else {
    chain.Prepend(reinterpret_cast<VkBaseOutStructure*>(&ours));
  }
  info.pNext = chain.chain();
  VkResult result = d.dispatch.AllocateMemory(device, &info, pAllocator, pMemory);
  if (result != VK_SUCCESS && address && info.pNext != pAllocateInfo->pNext) {
    // Some import paths refuse the flag: allocate as asked, without kernels for it.
    BINDERY_LOG(d.log(), kDebug, "transfer-memory",
                "allocation with the device-address flag failed (%d); retrying as the application asked", result);
    result = d.dispatch.AllocateMemory(device, pAllocateInfo, pAllocator, pMemory);
    address = false;
  }
  if (result == VK_SUCCESS) {
    auto memory = std::make_unique<MemoryInfo>();
    memory->device_address = address;
    t.memories.Insert(*pMemory, std::move(memory));
  }
  return result;
}

VKAPI_ATTR void VKAPI_CALL FreeMemory(VkDevice device, VkDeviceMemory memory, const VkAllocationCallbacks* pAllocator) {
  DeviceState& d = Device(device);
  if (memory != VK_NULL_HANDLE) d.transfers->memories.Erase(memory);
  d.dispatch.FreeMemory(device, memory, pAllocator);
}

static void OnBufferBound(DeviceState& d, VkBuffer buffer, VkDeviceMemory memory) {
  DeviceTransfers& t = *d.transfers;
  BufferInfo* info = t.buffers.Find(buffer);
  const MemoryInfo* mem = t.memories.Find(memory);
  if (info == nullptr || !info->wants_address || mem == nullptr || !mem->device_address) return;
  VkBufferDeviceAddressInfo address{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
  address.buffer = buffer;
  info->address = d.dispatch.GetBufferDeviceAddress(d.handle, &address);
}

VKAPI_ATTR VkResult VKAPI_CALL BindBufferMemory(VkDevice device, VkBuffer buffer, VkDeviceMemory memory,
                                                VkDeviceSize offset) {
  DeviceState& d = Device(device);
  const VkResult result = d.dispatch.BindBufferMemory(device, buffer, memory, offset);
  if (result == VK_SUCCESS) OnBufferBound(d, buffer, memory);
  return result;
}

static VkResult BindBufferMemory2Common(PFN_vkBindBufferMemory2 next, VkDevice device, uint32_t count,
                                        const VkBindBufferMemoryInfo* infos) {
  DeviceState& d = Device(device);
  const VkResult result = next(device, count, infos);
  if (result == VK_SUCCESS) {
    for (uint32_t i = 0; i < count; ++i) OnBufferBound(d, infos[i].buffer, infos[i].memory);
  }
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL BindBufferMemory2(VkDevice device, uint32_t count, const VkBindBufferMemoryInfo* infos) {
  return BindBufferMemory2Common(Device(device).dispatch.BindBufferMemory2, device, count, infos);
}

VKAPI_ATTR VkResult VKAPI_CALL BindBufferMemory2KHR(VkDevice device, uint32_t count,
                                                    const VkBindBufferMemoryInfo* infos) {
  return BindBufferMemory2Common(Device(device).dispatch.BindBufferMemory2KHR, device, count, infos);
}

// ---- command pools and buffers -------------------------------------------------------

VKAPI_ATTR VkResult VKAPI_CALL CreateCommandPool(VkDevice device, const VkCommandPoolCreateInfo* pCreateInfo,
                                                 const VkAllocationCallbacks* pAllocator, VkCommandPool* pPool) {
  DeviceState& d = Device(device);
  DeviceTransfers& t = *d.transfers;
  const VkResult result = d.dispatch.CreateCommandPool(device, pCreateInfo, pAllocator, pPool);
  if (result == VK_SUCCESS) {
    auto pool = std::make_unique<PoolInfo>();
    pool->queue_family = pCreateInfo->queueFamilyIndex;
    if (pCreateInfo->queueFamilyIndex < t.families.size()) {
      pool->queue_flags = t.families[pCreateInfo->queueFamilyIndex].queueFlags;
    }
    pool->is_protected = (pCreateInfo->flags & VK_COMMAND_POOL_CREATE_PROTECTED_BIT) != 0;
    t.pools.Insert(*pPool, std::move(pool));
  }
  return result;
}

static void ForgetCommandBuffer(DeviceTransfers& t, VkCommandBuffer cb) {
  std::unique_ptr<CommandState> state = t.ForgetCommand(cb);
  if (state != nullptr) state->staging().ReleaseAll(t.staging);
}

VKAPI_ATTR void VKAPI_CALL DestroyCommandPool(VkDevice device, VkCommandPool pool,
                                              const VkAllocationCallbacks* pAllocator) {
  DeviceState& d = Device(device);
  DeviceTransfers& t = *d.transfers;
  if (std::unique_ptr<PoolInfo> info = t.pools.Erase(pool)) {
    for (VkCommandBuffer cb : info->members) ForgetCommandBuffer(t, cb);
  }
  d.dispatch.DestroyCommandPool(device, pool, pAllocator);
}

VKAPI_ATTR VkResult VKAPI_CALL ResetCommandPool(VkDevice device, VkCommandPool pool, VkCommandPoolResetFlags flags) {
  DeviceState& d = Device(device);
  DeviceTransfers& t = *d.transfers;
  const VkResult result = d.dispatch.ResetCommandPool(device, pool, flags);
  if (const PoolInfo* info = t.pools.Find(pool)) {
    for (VkCommandBuffer cb : info->members) {
      if (CommandState* state = t.FindCommand(cb)) {
        state->Reset(false);
        state->staging().ReleaseAll(t.staging);
      }
    }
  }
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL AllocateCommandBuffers(VkDevice device, const VkCommandBufferAllocateInfo* pInfo,
                                                      VkCommandBuffer* pCommandBuffers) {
  DeviceState& d = Device(device);
  DeviceTransfers& t = *d.transfers;
  const VkResult result = d.dispatch.AllocateCommandBuffers(device, pInfo, pCommandBuffers);
  PoolInfo* pool = t.pools.Find(pInfo->commandPool);
  if (result != VK_SUCCESS || pool == nullptr) return result;
  for (uint32_t i = 0; i < pInfo->commandBufferCount; ++i) {
    t.commands.Insert(pCommandBuffers[i],
                      std::make_unique<CommandState>(pInfo->commandPool, *pool,
                                                     pInfo->level == VK_COMMAND_BUFFER_LEVEL_SECONDARY,
                                                     t.max_push_constant_bytes));
    pool->members.push_back(pCommandBuffers[i]);
  }
  return result;
}

VKAPI_ATTR void VKAPI_CALL FreeCommandBuffers(VkDevice device, VkCommandPool pool, uint32_t count,
                                              const VkCommandBuffer* pCommandBuffers) {
  DeviceState& d = Device(device);
  DeviceTransfers& t = *d.transfers;
  PoolInfo* info = t.pools.Find(pool);
  for (uint32_t i = 0; i < count; ++i) {
    if (pCommandBuffers[i] == VK_NULL_HANDLE) continue;
    ForgetCommandBuffer(t, pCommandBuffers[i]);
    if (info != nullptr) {
      auto& m = info->members;
      for (auto it = m.begin(); it != m.end(); ++it) {
        if (*it == pCommandBuffers[i]) {
          *it = m.back();
          m.pop_back();
          break;
        }
      }
    }
  }
  d.dispatch.FreeCommandBuffers(device, pool, count, pCommandBuffers);
}

VKAPI_ATTR VkResult VKAPI_CALL BeginCommandBuffer(VkCommandBuffer cb, const VkCommandBufferBeginInfo* pBeginInfo) {
  DeviceState& d = Device(cb);
  DeviceTransfers& t = *d.transfers;
  if (CommandState* state = t.FindCommand(cb)) {
    bool inherits_conditional = false;
    if (pBeginInfo->pInheritanceInfo != nullptr) {
      for (auto* s = static_cast<const VkBaseInStructure*>(pBeginInfo->pInheritanceInfo->pNext); s; s = s->pNext) {
        if (s->sType == VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_CONDITIONAL_RENDERING_INFO_EXT) {
          inherits_conditional =
              reinterpret_cast<const VkCommandBufferInheritanceConditionalRenderingInfoEXT*>(s)
                  ->conditionalRenderingEnable == VK_TRUE;
        }
      }
    }
    // Begin resets implicitly; the command buffer is not pending (spec), so its staging
    // can be reused.
    state->Reset(inherits_conditional);
    state->staging().ReleaseAll(t.staging);
  }
  return d.dispatch.BeginCommandBuffer(cb, pBeginInfo);
}

VKAPI_ATTR VkResult VKAPI_CALL ResetCommandBuffer(VkCommandBuffer cb, VkCommandBufferResetFlags flags) {
  DeviceState& d = Device(cb);
  DeviceTransfers& t = *d.transfers;
  if (CommandState* state = t.FindCommand(cb)) {
    state->Reset(false);
    state->staging().ReleaseAll(t.staging);
  }
  return d.dispatch.ResetCommandBuffer(cb, flags);
}

// ---- the application's compute state (only where kernels can run) -----------------------

VKAPI_ATTR void VKAPI_CALL CmdBindPipeline(VkCommandBuffer cb, VkPipelineBindPoint bind_point, VkPipeline pipeline) {
  DeviceState& d = Device(cb);
  d.dispatch.CmdBindPipeline(cb, bind_point, pipeline);
  if (bind_point != VK_PIPELINE_BIND_POINT_COMPUTE) return;
  if (CommandState* state = d.transfers->FindCommand(cb)) state->OnBindComputePipeline(pipeline);
}

VKAPI_ATTR void VKAPI_CALL CmdPushConstants(VkCommandBuffer cb, VkPipelineLayout layout, VkShaderStageFlags stages,
                                            uint32_t offset, uint32_t size, const void* values) {
  DeviceState& d = Device(cb);
  d.dispatch.CmdPushConstants(cb, layout, stages, offset, size, values);
  if (CommandState* state = d.transfers->FindCommand(cb)) state->OnPushConstants(layout, stages, offset, size, values);
}

VKAPI_ATTR void VKAPI_CALL CmdBeginConditionalRenderingEXT(VkCommandBuffer cb,
                                                           const VkConditionalRenderingBeginInfoEXT* info) {
  DeviceState& d = Device(cb);
  d.dispatch.CmdBeginConditionalRenderingEXT(cb, info);
  if (CommandState* state = d.transfers->FindCommand(cb)) state->OnBeginConditionalRendering(*info);
}

VKAPI_ATTR void VKAPI_CALL CmdEndConditionalRenderingEXT(VkCommandBuffer cb) {
  DeviceState& d = Device(cb);
  d.dispatch.CmdEndConditionalRenderingEXT(cb);
  if (CommandState* state = d.transfers->FindCommand(cb)) state->OnEndConditionalRendering();
}

// ---- transfers -------------------------------------------------------------------------

VKAPI_ATTR void VKAPI_CALL CmdFillBuffer(VkCommandBuffer cb, VkBuffer dst, VkDeviceSize offset, VkDeviceSize size,
                                         uint32_t data) {
  DeviceState& d = Device(cb);
  DeviceTransfers& t = *d.transfers;
  const bool fill_kernels = t.KernelsPossible() && t.policy.fill_kernel_min != UINT64_MAX;
  const uint64_t align = t.policy.fill_native_alignment;
  const bool realign = size != VK_WHOLE_SIZE && size >= t.policy.fill_realign_min && ((offset | size) % align) != 0;
  if (!fill_kernels && !realign && size != VK_WHOLE_SIZE && NativeFillAllowed(offset, size)) {
    Stats::Bump(d.stats.transfers_passed_through);
    d.dispatch.CmdFillBuffer(cb, dst, offset, size, data);
    return;
  }
  // The buffer's size (VK_WHOLE_SIZE) and address (kernels) only when needed.
  const BufferInfo* info = size == VK_WHOLE_SIZE || fill_kernels ? t.buffers.Find(dst) : nullptr;
  const VkDeviceSize bytes = info != nullptr ? ResolveFillSize(info->size, offset, size) : size;
  if (bytes == 0 || bytes == VK_WHOLE_SIZE) {
    if (bytes == VK_WHOLE_SIZE) d.dispatch.CmdFillBuffer(cb, dst, offset, size, data);  // unknown buffer
    return;
  }
  CommandState* state = t.FindCommand(cb);
  const VkDeviceAddress address = info != nullptr ? info->address : 0;
  const bool kernel = fill_kernels && bytes >= t.policy.fill_kernel_min && KernelUsable(t, state, address, address);
  if (!kernel && !realign && NativeFillAllowed(offset, bytes)) {
    Stats::Bump(d.stats.transfers_passed_through);
    d.dispatch.CmdFillBuffer(cb, dst, offset, bytes, data);
    return;
  }
  Stats::Bump(d.stats.transfers_polyfilled);
  auto write = [&](uint8_t* out, ByteRange range) { WriteFillBytes(out, range, data, offset); };
  // Small ranges: the whole range from staging is one command where a native middle plus
  // edges would be two.
  const ByteRange whole{offset, bytes};
  if (!kernel && bytes <= kSmallFillFromStaging && state != nullptr &&
      StagingCopy(t, cb, *state, dst, &whole, 1, write)) {
    return;
  }
  // Middle: 16-byte blocks by address for the kernel, the policy's alignment (at least
  // 4-byte words) for the native fill.
  const Split split = SplitAligned({offset, bytes}, kernel ? 16 : align, kernel ? address : 0);
  if (!split.middle.empty()) {
    const uint32_t pattern = RotatedPattern(data, offset, split.middle.offset);
    if (kernel) {
      const KernelJob job{KernelKind::kFillVec4, address + split.middle.offset, 0, split.middle.size / 16, pattern};
      t.kernels.Record(cb, *state, &job, 1);
      Stats::Bump(d.stats.transfer_kernels);
    } else {
      d.dispatch.CmdFillBuffer(cb, dst, split.middle.offset, split.middle.size, pattern);
    }
  }
  const ByteRange edges[2] = {split.head, split.tail};
  if (state == nullptr || !StagingCopy(t, cb, *state, dst, edges, 2, write)) {
    BINDERY_LOG(d.log(), kError, "transfer-staging",
                "no staging memory for the %llu edge bytes of an unaligned vkCmdFillBuffer; they were not written",
                static_cast<unsigned long long>(split.head.size + split.tail.size));
  }
}

// Writes the batch-kernel table for the regions `in_batch` selects and queues one
// dispatch for them; false (nothing queued) if there are too few or no staging memory.
template <typename RegionFn, typename Select>
bool BatchSmallRegions(DeviceTransfers& t, CommandState& state, CopyRecorder& rec, VkDeviceAddress src_address,
                       VkDeviceAddress dst_address, uint32_t count, RegionFn&& region, Select&& in_batch) {
  uint32_t batch = 0;
  for (uint32_t i = 0; i < count; ++i) batch += in_batch(region(i)) ? 1 : 0;
  if (batch < t.policy.copy_batch_min_regions) return false;
  const StagingSlice table = state.staging().Allocate(t.staging, VkDeviceSize{batch} * sizeof(RegionRecord));
  if (table.data == nullptr || table.address == 0) return false;
  auto* records = reinterpret_cast<RegionRecord*>(table.data);
  for (uint32_t i = 0, n = 0; i < count; ++i) {
    const VkBufferCopy r = region(i);
    if (!in_batch(r)) continue;
    const uint64_t src = src_address + r.srcOffset, dst = dst_address + r.dstOffset;
    const uint64_t src_word = src & ~uint64_t{3}, dst_word = dst & ~uint64_t{3};
    records[n++] = {{static_cast<uint32_t>(src_word), static_cast<uint32_t>(src_word >> 32)},
                    {static_cast<uint32_t>(dst_word), static_cast<uint32_t>(dst_word >> 32)},
                    static_cast<uint32_t>(r.size),
                    static_cast<uint32_t>(src & 3),
                    static_cast<uint32_t>(dst & 3),
                    0};
  }
  rec.Kernel({KernelKind::kCopyRegions, table.address, 0, batch, 0});
  return true;
}

// vkCmdCopyBuffer and vkCmdCopyBuffer2 share this; `region(i)` yields a VkBufferCopy.
// Many small regions go to one batched dispatch where the policy says so; every other
// region is split between a kernel (its aligned middle) and native edges, or copied
// natively, by CopyRegion.
template <typename RegionFn>
void CopyBufferCommon(VkCommandBuffer cb, VkBuffer src, VkBuffer dst, uint32_t count, RegionFn&& region) {
  DeviceState& d = Device(cb);
  DeviceTransfers& t = *d.transfers;
  CommandState* state = t.FindCommand(cb);
  const VkDeviceAddress src_address = AddressOf(t, src);
  const VkDeviceAddress dst_address = AddressOf(t, dst);
  const bool kernels_ok = KernelUsable(t, state, src_address, dst_address);
  CopyRecorder rec(t, cb, state, src, dst);
  auto small = [&](const VkBufferCopy& r) { return r.size != 0 && r.size <= t.policy.copy_batch_max_region; };
  const bool batched = kernels_ok && count >= t.policy.copy_batch_min_regions &&
                       BatchSmallRegions(t, *state, rec, src_address, dst_address, count, region, small);
  bool polyfilled = batched;
  for (uint32_t i = 0; i < count; ++i) {
    const VkBufferCopy r = region(i);
    if (r.size != 0 && !(batched && small(r))) {
      polyfilled |= CopyRegion(t, rec, kernels_ok, src_address, dst_address, r);
    }
  }
  Stats::Bump(polyfilled ? d.stats.transfers_polyfilled : d.stats.transfers_passed_through);
}

VKAPI_ATTR void VKAPI_CALL CmdCopyBuffer(VkCommandBuffer cb, VkBuffer src, VkBuffer dst, uint32_t count,
                                         const VkBufferCopy* regions) {
  CopyBufferCommon(cb, src, dst, count, [&](uint32_t i) { return regions[i]; });
}

static void CopyBuffer2Common(VkCommandBuffer cb, const VkCopyBufferInfo2* info) {
  CopyBufferCommon(cb, info->srcBuffer, info->dstBuffer, info->regionCount, [&](uint32_t i) {
    const VkBufferCopy2& r = info->pRegions[i];
    return VkBufferCopy{r.srcOffset, r.dstOffset, r.size};
  });
}

VKAPI_ATTR void VKAPI_CALL CmdCopyBuffer2(VkCommandBuffer cb, const VkCopyBufferInfo2* info) {
  CopyBuffer2Common(cb, info);
}

VKAPI_ATTR void VKAPI_CALL CmdCopyBuffer2KHR(VkCommandBuffer cb, const VkCopyBufferInfo2* info) {
  CopyBuffer2Common(cb, info);
}

VKAPI_ATTR void VKAPI_CALL CmdUpdateBuffer(VkCommandBuffer cb, VkBuffer dst, VkDeviceSize offset, VkDeviceSize size,
                                           const void* data) {
  DeviceState& d = Device(cb);
  DeviceTransfers& t = *d.transfers;
  if (NativeUpdateAllowed(offset, size)) {
    Stats::Bump(d.stats.transfers_passed_through);
    d.dispatch.CmdUpdateBuffer(cb, dst, offset, size, data);
    return;
  }
  if (size == 0) return;
  CommandState* state = t.FindCommand(cb);
  // The data is captured now, into staging, and copied like any other source.
  const StagingSlice slice = state != nullptr ? state->staging().Allocate(t.staging, size) : StagingSlice{};
  if (slice.data == nullptr) {
    BINDERY_LOG(d.log(), kError, "transfer-staging",
                "no staging memory for a %llu-byte vkCmdUpdateBuffer the driver cannot take; it was dropped",
                static_cast<unsigned long long>(size));
    return;
  }
  std::memcpy(slice.data, data, size);
  Stats::Bump(d.stats.transfers_polyfilled);
  Stats::Bump(d.stats.transfer_edge_copies);
  const VkBufferCopy region{slice.offset, offset, size};
  const VkDeviceAddress chunk_address = slice.address == 0 ? 0 : slice.address - slice.offset;
  const VkDeviceAddress dst_address = AddressOf(t, dst);
  CopyRecorder rec(t, cb, state, slice.buffer, dst);
  CopyRegion(t, rec, KernelUsable(t, state, chunk_address, dst_address), chunk_address, dst_address, region);
}

// ---- intercept table ---------------------------------------------------------------------

namespace {

bool Active(const DeviceState& d) { return d.transfers != nullptr; }
bool KernelsPossible(const DeviceState& d) { return d.transfers != nullptr && d.transfers->KernelsPossible(); }
bool AddressesEnabled(const DeviceState& d) { return d.transfers != nullptr && d.transfers->device_address; }

#define BINDERY_TRANSFER_INTERCEPT(name, predicate) \
  Intercept { "vk" #name, reinterpret_cast<PFN_vkVoidFunction>(&name), InterceptScope::kDevice, &predicate }

const Intercept kTransferIntercepts[] = {
    BINDERY_TRANSFER_INTERCEPT(CreateBuffer, Active),
    BINDERY_TRANSFER_INTERCEPT(DestroyBuffer, Active),
    BINDERY_TRANSFER_INTERCEPT(AllocateMemory, AddressesEnabled),
    BINDERY_TRANSFER_INTERCEPT(FreeMemory, AddressesEnabled),
    BINDERY_TRANSFER_INTERCEPT(BindBufferMemory, AddressesEnabled),
    BINDERY_TRANSFER_INTERCEPT(BindBufferMemory2, AddressesEnabled),
    BINDERY_TRANSFER_INTERCEPT(BindBufferMemory2KHR, AddressesEnabled),
    BINDERY_TRANSFER_INTERCEPT(CreateCommandPool, Active),
    BINDERY_TRANSFER_INTERCEPT(DestroyCommandPool, Active),
    BINDERY_TRANSFER_INTERCEPT(ResetCommandPool, Active),
    BINDERY_TRANSFER_INTERCEPT(AllocateCommandBuffers, Active),
    BINDERY_TRANSFER_INTERCEPT(FreeCommandBuffers, Active),
    BINDERY_TRANSFER_INTERCEPT(BeginCommandBuffer, Active),
    BINDERY_TRANSFER_INTERCEPT(ResetCommandBuffer, Active),
    BINDERY_TRANSFER_INTERCEPT(CmdBindPipeline, KernelsPossible),
    BINDERY_TRANSFER_INTERCEPT(CmdPushConstants, KernelsPossible),
    BINDERY_TRANSFER_INTERCEPT(CmdBeginConditionalRenderingEXT, KernelsPossible),
    BINDERY_TRANSFER_INTERCEPT(CmdEndConditionalRenderingEXT, KernelsPossible),
    BINDERY_TRANSFER_INTERCEPT(CmdFillBuffer, Active),
    BINDERY_TRANSFER_INTERCEPT(CmdUpdateBuffer, Active),
    BINDERY_TRANSFER_INTERCEPT(CmdCopyBuffer, KernelsPossible),
    BINDERY_TRANSFER_INTERCEPT(CmdCopyBuffer2, KernelsPossible),
    BINDERY_TRANSFER_INTERCEPT(CmdCopyBuffer2KHR, KernelsPossible),
};

#undef BINDERY_TRANSFER_INTERCEPT

}  // namespace

InterceptTable TransferIntercepts() {
  return {kTransferIntercepts, sizeof(kTransferIntercepts) / sizeof(kTransferIntercepts[0])};
}

}  // namespace bindery::transfer
