#include "transfer/kernels.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "copy_regions_comp.h"
#include "copy_shift_comp.h"
#include "copy_vec4_comp.h"
#include "chassis/command_state.h"
#include "chassis/state.h"
#include "fill_vec4_comp.h"

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
  const VkLayerDispatchTable& d = next_;
  for (VkPipeline p : pipelines_) {
    if (p != VK_NULL_HANDLE) d.DestroyPipeline(device_.handle, p, nullptr);
  }
  for (VkShaderModule m : modules_) {
    if (m != VK_NULL_HANDLE) d.DestroyShaderModule(device_.handle, m, nullptr);
  }
  if (layout_ != VK_NULL_HANDLE) d.DestroyPipelineLayout(device_.handle, layout_, nullptr);
}

bool Kernels::Build() {
  ready_ = false;
  const VkLayerDispatchTable& d = next_;
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(KernelParams)};
  VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  plci.pushConstantRangeCount = 1;
  plci.pPushConstantRanges = &range;
  if (d.CreatePipelineLayout(device_.handle, &plci, nullptr, &layout_) != VK_SUCCESS) return false;
  const struct {
    const uint32_t* code;
    size_t bytes;
  } sources[] = {{fill_vec4_comp, sizeof(fill_vec4_comp)},
                 {copy_vec4_comp, sizeof(copy_vec4_comp)},
                 {copy_shift_comp, sizeof(copy_shift_comp)},
                 {copy_regions_comp, sizeof(copy_regions_comp)}};
  for (int i = 0; i < static_cast<int>(KernelKind::kCount); ++i) {
    VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    smci.codeSize = sources[i].bytes;
    smci.pCode = sources[i].code;
    if (d.CreateShaderModule(device_.handle, &smci, nullptr, &modules_[i]) != VK_SUCCESS) return false;
    VkComputePipelineCreateInfo cpci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    cpci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    cpci.stage.module = modules_[i];
    cpci.stage.pName = "main";
    cpci.layout = layout_;
    if (d.CreateComputePipelines(device_.handle, VK_NULL_HANDLE, 1, &cpci, nullptr, &pipelines_[i]) != VK_SUCCESS) {
      return false;
    }
  }
  ready_ = true;
  return true;
}

void Kernels::Record(VkCommandBuffer cb, const CommandState& state, const KernelJob* jobs, uint32_t count,
                     void (*alongside)(void*), void* context) {
  const VkLayerDispatchTable& d = next_;
  state.SuspendForCompute(cb, d);
  // Chain after the application's transfer-scoped dependencies (and order after our own
  // edge copies, which touch other bytes).
  Barrier(d, cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  KernelKind bound = KernelKind::kCount;
  for (uint32_t j = 0; j < count; ++j) {
    const KernelJob& job = jobs[j];
    if (job.kind != bound) {
      d.CmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines_[static_cast<int>(job.kind)]);
      bound = job.kind;
    }
    if (job.kind == KernelKind::kCopyRegions) {  // one workgroup per region
      const KernelParams params{{static_cast<uint32_t>(job.dst_address), static_cast<uint32_t>(job.dst_address >> 32)},
                                {0, 0},
                                static_cast<uint32_t>(job.blocks),
                                0};
      d.CmdPushConstants(cb, layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(params), &params);
      d.CmdDispatch(cb, static_cast<uint32_t>(std::min<uint64_t>(job.blocks, kMaxGroups)), 1, 1);
      continue;
    }
    for (uint64_t done = 0; done < job.blocks;) {
      const uint64_t blocks = std::min(job.blocks - done, kMaxBlocksPerDispatch);
      const uint64_t dst = job.dst_address + done * 16;
      const uint64_t src = job.src_address + done * 16;
      KernelParams params{{static_cast<uint32_t>(dst), static_cast<uint32_t>(dst >> 32)},
                          {static_cast<uint32_t>(src), static_cast<uint32_t>(src >> 32)},
                          static_cast<uint32_t>(blocks),
                          job.value};
      d.CmdPushConstants(cb, layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(params), &params);
      const uint64_t groups = std::min<uint64_t>((blocks + kWorkgroupSize - 1) / kWorkgroupSize, kMaxGroups);
      d.CmdDispatch(cb, static_cast<uint32_t>(groups), 1, 1);
      done += blocks;
    }
  }
  if (alongside != nullptr) alongside(context);
  // Make the kernels' writes available and chain them into the application's next
  // transfer-scoped dependency.
  Barrier(d, cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
  state.RestoreCompute(cb, d);
}

}  // namespace bindery::transfer
