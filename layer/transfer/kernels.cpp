#include "transfer/kernels.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <vector>

#include "copy_regions_comp.h"
#include "fill_edges_comp.h"
#include "copy_shift_comp.h"
#include "copy_vec4_comp.h"
#include "chassis/command_state.h"
#include "chassis/state.h"
#include "fill_vec4_comp.h"
#include "transfer/staging.h"
#include "transfer/transfer_device.h"

namespace bindery::transfer {
namespace {

constexpr uint32_t kWorkgroupSize = 256;  // local_size_x in transfer_common.glsl
constexpr uint32_t kMaxGroups = 65535;    // the minimum maxComputeWorkGroupCount[0]
// Blocks per dispatch: keeps 4 * block index inside 32 bits in copy_shift.
constexpr uint64_t kMaxBlocksPerDispatch = 1ull << 28;

void Barrier(const VkLayerDispatchTable& d, VkCommandBuffer cb, VkPipelineStageFlags src_stage,
             VkAccessFlags src_access, VkPipelineStageFlags dst_stage, VkAccessFlags dst_access) {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = src_access;
  barrier.dstAccessMask = dst_access;
  d.CmdPipelineBarrier(cb, src_stage, dst_stage, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

}  // namespace

Kernels::~Kernels() {
  for (VkPipeline p : pipelines_) {
    if (p != VK_NULL_HANDLE) next_.DestroyPipeline(device_.handle, p, nullptr);
  }
  DestroyModulesAndLayout(modules_, std::size(modules_));
}

bool Kernels::Build(StagingPool& staging, uint32_t command_data_slot) {
  const VkLayerDispatchTable& d = next_;
  if (!BeginBuild(staging, command_data_slot)) return false;
  // No push constants, no descriptor sets: see kernels.h.
  VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  if (d.CreatePipelineLayout(device_.handle, &plci, nullptr, &layout_) != VK_SUCCESS) return false;
  const struct {
    const uint32_t* code;
    size_t bytes;
  } sources[] = {{fill_vec4_comp, sizeof(fill_vec4_comp)},
                 {copy_vec4_comp, sizeof(copy_vec4_comp)},
                 {copy_shift_comp, sizeof(copy_shift_comp)},
                 {copy_regions_comp, sizeof(copy_regions_comp)},
                 {fill_edges_comp, sizeof(fill_edges_comp)}};
  for (int i = 0; i < static_cast<int>(KernelKind::kCount); ++i) {
    if (!CreatePipeline(sources[i].code, sources[i].bytes, &modules_[i], &pipelines_[i])) return false;
  }
  ready_ = true;
  return true;
}

void Kernels::Record(VkCommandBuffer cb, const CommandState& state, const KernelJob* jobs, uint32_t count,
                     void (*alongside)(void*), void* context, bool alongside_first) {
  const VkLayerDispatchTable& d = next_;
  auto* data = static_cast<TransferCommandData*>(state.data(command_data_slot_));
  if (data == nullptr || count == 0) return;
  // One parameter record per dispatch, written now (so resubmission is safe) in one slice
  // that a dispatch can name (within the first kBlockSize bytes of its block).
  uint64_t dispatches = 0;
  for (uint32_t j = 0; j < count; ++j) {
    dispatches += jobs[j].kind == KernelKind::kCopyRegions || jobs[j].kind == KernelKind::kFillEdges
                      ? 1
                      : std::max<uint64_t>(1, (jobs[j].blocks + kMaxBlocksPerDispatch - 1) / kMaxBlocksPerDispatch);
  }
  const StagingSlice slice = data->arena.Allocate(*staging_, dispatches * sizeof(KernelParams),
                                                 StagingPool::kBlockSize, /*beyond_limit=*/true);
  if (slice.data == nullptr) {
    data->Fail(VK_ERROR_OUT_OF_DEVICE_MEMORY);
    return;
  }
  state.SuspendForCompute(cb, d);
  // Chain after the application's transfer-scoped dependencies (and order after our own
  // edge copies, which touch other bytes).
  Barrier(d, cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  if (alongside != nullptr && alongside_first) alongside(context);
  KernelKind bound = KernelKind::kCount;
  uint64_t record = 0;
  auto dispatch = [&](const KernelParams& params, uint32_t groups) {
    std::memcpy(slice.data + record * sizeof(KernelParams), &params, sizeof(params));
    const KernelParamsName name = NameParams(slice.block_index, slice.offset + record * sizeof(KernelParams));
    ++record;
    dispatch_base_(cb, 0, name.base_y, name.base_z, groups, 1, 1);
  };
  for (uint32_t j = 0; j < count; ++j) {
    const KernelJob& job = jobs[j];
    if (job.kind != bound) {
      d.CmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines_[static_cast<int>(job.kind)]);
      bound = job.kind;
    }
    if (job.kind == KernelKind::kFillEdges) {  // one workgroup: an edge is shorter than the split's alignment
      const KernelParams params{{static_cast<uint32_t>(job.dst_address), static_cast<uint32_t>(job.dst_address >> 32)},
                                {static_cast<uint32_t>(job.src_address), static_cast<uint32_t>(job.src_address >> 32)},
                                static_cast<uint32_t>(job.blocks),
                                job.value,
                                {job.extra, 0}};
      dispatch(params, 1);
      continue;
    }
    if (job.kind == KernelKind::kCopyRegions) {  // one workgroup per region
      const KernelParams params{{static_cast<uint32_t>(job.dst_address), static_cast<uint32_t>(job.dst_address >> 32)},
                                {0, 0},
                                static_cast<uint32_t>(job.blocks),
                                0,
                                {0, 0}};
      dispatch(params, static_cast<uint32_t>(std::min<uint64_t>(job.blocks, kMaxGroups)));
      continue;
    }
    for (uint64_t done = 0; done < job.blocks;) {
      const uint64_t blocks = std::min(job.blocks - done, kMaxBlocksPerDispatch);
      const uint64_t dst = job.dst_address + done * 16;
      const uint64_t src = job.src_address + done * 16;
      const KernelParams params{{static_cast<uint32_t>(dst), static_cast<uint32_t>(dst >> 32)},
                                {static_cast<uint32_t>(src), static_cast<uint32_t>(src >> 32)},
                                static_cast<uint32_t>(blocks),
                                job.value,
                                {0, 0}};
      const uint64_t groups = std::min<uint64_t>((blocks + kWorkgroupSize - 1) / kWorkgroupSize, kMaxGroups);
      dispatch(params, static_cast<uint32_t>(groups));
      done += blocks;
    }
  }
  if (alongside != nullptr && !alongside_first) alongside(context);
  // Make the kernels' writes available and chain them into the application's next
  // transfer-scoped dependency.
  Barrier(d, cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
  state.RestoreCompute(cb, d);
}

}  // namespace bindery::transfer
