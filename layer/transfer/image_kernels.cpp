#include "transfer/image_kernels.h"

#include <cstring>
#include <iterator>
#include <utility>

#include "chassis/command_state.h"
#include "chassis/state.h"
#include "image_b2i_1_comp.h"
#include "image_b2i_2_comp.h"
#include "image_b2i_3_comp.h"
#include "image_blit_1_0_comp.h"
#include "image_blit_1_1_comp.h"
#include "image_blit_1_2_comp.h"
#include "image_blit_2_0_comp.h"
#include "image_blit_2_1_comp.h"
#include "image_blit_2_2_comp.h"
#include "image_blit_3_0_comp.h"
#include "image_blit_3_1_comp.h"
#include "image_blit_3_2_comp.h"
#include "image_clear_1_comp.h"
#include "image_clear_2_comp.h"
#include "image_clear_3_comp.h"
#include "image_i2b_1_comp.h"
#include "image_i2b_2_comp.h"
#include "image_i2b_3_comp.h"
#include "image_i2i_1_1_comp.h"
#include "image_i2i_2_2_comp.h"
#include "image_i2i_2_3_comp.h"
#include "image_i2i_3_2_comp.h"
#include "image_i2i_3_3_comp.h"
#include "image_resolve_0_comp.h"
#include "image_resolve_1_comp.h"
#include "image_resolve_2_comp.h"
#include "transfer/kernels.h"
#include "transfer/staging.h"
#include "transfer/transfer_device.h"

namespace bindery::transfer {

uint32_t ImagePipelineIndex(ImageKernelKind kind, uint32_t src_dim, uint32_t dst_dim) {
  switch (kind) {
    case ImageKernelKind::kBufferToImage: return dst_dim - 1;
    case ImageKernelKind::kImageToBuffer: return 3 + src_dim - 1;
    case ImageKernelKind::kClear: return 6 + dst_dim - 1;
    case ImageKernelKind::kImageToImage: return 9 + (src_dim - 1) * 3 + (dst_dim - 1);
    case ImageKernelKind::kBlit: return 18 + (src_dim - 1) * 3 + dst_dim;
    case ImageKernelKind::kResolve: return 27 + dst_dim;
  }
  return 0;
}

ImageKernels::~ImageKernels() {
  const VkLayerDispatchTable& d = next_;
  for (std::atomic<VkPipeline>& p : pipelines_) {
    if (VkPipeline pipeline = p.load(); pipeline != VK_NULL_HANDLE) d.DestroyPipeline(device_.handle, pipeline, nullptr);
  }
  DestroyModulesAndLayout(modules_, std::size(modules_));
  if (set_layout_ != VK_NULL_HANDLE) d.DestroyDescriptorSetLayout(device_.handle, set_layout_, nullptr);
  for (VkSampler s : samplers_) {
    if (s != VK_NULL_HANDLE) d.DestroySampler(device_.handle, s, nullptr);
  }
}

bool ImageKernels::Build(StagingPool& staging, uint32_t command_data_slot) {
  const VkLayerDispatchTable& d = next_;
  if (!BeginBuild(staging, command_data_slot) || d.CmdPushDescriptorSetKHR == nullptr) return false;
  // The blit's samplers: the spec's sampling for vkCmdBlitImage (clamp to edge, mip level 0).
  for (int f = 0; f < 2; ++f) {
    VkSamplerCreateInfo sci{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
    sci.magFilter = sci.minFilter = f == 0 ? VK_FILTER_NEAREST : VK_FILTER_LINEAR;
    sci.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
    sci.addressModeU = sci.addressModeV = sci.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    sci.maxLod = 0.0f;
    if (d.CreateSampler(device_.handle, &sci, nullptr, &samplers_[f]) != VK_SUCCESS) return false;
  }
  // Binding 0: the view a kernel reads (sampled, texelFetch); binding 1: the view it writes;
  // bindings 2 and 3: the blit's source (with its sampler) and destination.
  const VkDescriptorSetLayoutBinding bindings[4] = {
      {0, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
      {1, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
      {2, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
      {3, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}};
  VkDescriptorSetLayoutCreateInfo dslci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  dslci.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
  dslci.bindingCount = 4;
  dslci.pBindings = bindings;
  if (d.CreateDescriptorSetLayout(device_.handle, &dslci, nullptr, &set_layout_) != VK_SUCCESS) return false;
  VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  plci.setLayoutCount = 1;
  plci.pSetLayouts = &set_layout_;
  if (d.CreatePipelineLayout(device_.handle, &plci, nullptr, &layout_) != VK_SUCCESS) return false;
  ready_ = true;
  return true;
}

namespace {

struct Source {
  uint32_t index;
  const uint32_t* code;
  size_t bytes;
};

#define BINDERY_IMAGE_KERNEL(kind, src, dst, ident) {ImagePipelineIndex(ImageKernelKind::kind, src, dst), ident, sizeof(ident)}
const Source kSources[] = {
    BINDERY_IMAGE_KERNEL(kBufferToImage, 0, 1, image_b2i_1_comp),
    BINDERY_IMAGE_KERNEL(kBufferToImage, 0, 2, image_b2i_2_comp),
    BINDERY_IMAGE_KERNEL(kBufferToImage, 0, 3, image_b2i_3_comp),
    BINDERY_IMAGE_KERNEL(kImageToBuffer, 1, 0, image_i2b_1_comp),
    BINDERY_IMAGE_KERNEL(kImageToBuffer, 2, 0, image_i2b_2_comp),
    BINDERY_IMAGE_KERNEL(kImageToBuffer, 3, 0, image_i2b_3_comp),
    BINDERY_IMAGE_KERNEL(kClear, 0, 1, image_clear_1_comp),
    BINDERY_IMAGE_KERNEL(kClear, 0, 2, image_clear_2_comp),
    BINDERY_IMAGE_KERNEL(kClear, 0, 3, image_clear_3_comp),
    // Copies between images of one type, and between 2D array layers and 3D slices (the only
    // mix vkCmdCopyImage allows).
    BINDERY_IMAGE_KERNEL(kImageToImage, 1, 1, image_i2i_1_1_comp),
    BINDERY_IMAGE_KERNEL(kImageToImage, 2, 2, image_i2i_2_2_comp),
    BINDERY_IMAGE_KERNEL(kImageToImage, 2, 3, image_i2i_2_3_comp),
    BINDERY_IMAGE_KERNEL(kImageToImage, 3, 2, image_i2i_3_2_comp),
    BINDERY_IMAGE_KERNEL(kImageToImage, 3, 3, image_i2i_3_3_comp),
    BINDERY_IMAGE_KERNEL(kBlit, 1, 0, image_blit_1_0_comp),
    BINDERY_IMAGE_KERNEL(kBlit, 1, 1, image_blit_1_1_comp),
    BINDERY_IMAGE_KERNEL(kBlit, 1, 2, image_blit_1_2_comp),
    BINDERY_IMAGE_KERNEL(kBlit, 2, 0, image_blit_2_0_comp),
    BINDERY_IMAGE_KERNEL(kBlit, 2, 1, image_blit_2_1_comp),
    BINDERY_IMAGE_KERNEL(kBlit, 2, 2, image_blit_2_2_comp),
    BINDERY_IMAGE_KERNEL(kBlit, 3, 0, image_blit_3_0_comp),
    BINDERY_IMAGE_KERNEL(kBlit, 3, 1, image_blit_3_1_comp),
    BINDERY_IMAGE_KERNEL(kBlit, 3, 2, image_blit_3_2_comp),
    BINDERY_IMAGE_KERNEL(kResolve, 2, 0, image_resolve_0_comp),
    BINDERY_IMAGE_KERNEL(kResolve, 2, 1, image_resolve_1_comp),
    BINDERY_IMAGE_KERNEL(kResolve, 2, 2, image_resolve_2_comp),
};
#undef BINDERY_IMAGE_KERNEL

}  // namespace

bool ImageKernels::Ensure(uint32_t index) {
  if (index >= kImagePipelineCount || !ready_) return false;
  if (pipelines_[index].load(std::memory_order_acquire) != VK_NULL_HANDLE) return true;
  const Source* source = nullptr;
  for (const Source& s : kSources) {
    if (s.index == index) source = &s;
  }
  if (source == nullptr) return false;
  std::lock_guard<std::mutex> lock(build_mutex_);
  if (pipelines_[index].load(std::memory_order_relaxed) != VK_NULL_HANDLE) return true;
  VkPipeline pipeline = VK_NULL_HANDLE;
  if (!CreatePipeline(source->code, source->bytes, &modules_[index], &pipeline)) return false;
  pipelines_[index].store(pipeline, std::memory_order_release);
  return true;
}

void ImageKernels::Record(VkCommandBuffer cb, const CommandState& state, const ImageDispatch* dispatches,
                          uint32_t count, VkImageMemoryBarrier* to_general, uint32_t transition_count) {
  const VkLayerDispatchTable& d = next_;
  auto* data = static_cast<TransferCommandData*>(state.data(command_data_slot_));
  if (data == nullptr || count == 0) return;
  const StagingSlice slice = data->arena.Allocate(*staging_, uint64_t{count} * kImageRecordBytes,
                                                 StagingPool::kBlockSize, /*beyond_limit=*/true);
  if (slice.data == nullptr) {
    data->Fail(VK_ERROR_OUT_OF_DEVICE_MEMORY);
    return;
  }
  state.SuspendForCompute(cb, d);
  // Chain after the application's transfer-scoped dependencies; the layout transitions
  // happen inside this dependency, after them.
  VkMemoryBarrier memory{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  memory.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  memory.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  for (uint32_t i = 0; i < transition_count; ++i) {
    to_general[i].srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    to_general[i].dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  }
  d.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &memory, 0,
                       nullptr, transition_count, to_general);
  uint32_t bound = UINT32_MAX;
  for (uint32_t i = 0; i < count; ++i) {
    const ImageDispatch& job = dispatches[i];
    if (job.pipeline != bound) {
      d.CmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines_[job.pipeline].load(std::memory_order_acquire));
      bound = job.pipeline;
    }
    const VkSampler sampler = job.blit ? samplers_[job.filter == VK_FILTER_LINEAR ? 1 : 0] : VK_NULL_HANDLE;
    VkDescriptorImageInfo images[2] = {{sampler, job.src_view, VK_IMAGE_LAYOUT_GENERAL},
                                       {VK_NULL_HANDLE, job.dst_view, VK_IMAGE_LAYOUT_GENERAL}};
    VkWriteDescriptorSet writes[2];
    uint32_t write_count = 0;
    for (uint32_t b = 0; b < 2; ++b) {
      if (images[b].imageView == VK_NULL_HANDLE) continue;
      VkWriteDescriptorSet& w = writes[write_count++];
      w = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      w.dstBinding = b + (job.blit ? 2 : 0);
      w.descriptorCount = 1;
      w.descriptorType = b == 1   ? VK_DESCRIPTOR_TYPE_STORAGE_IMAGE
                         : job.blit ? VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER
                                    : VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE;
      w.pImageInfo = &images[b];
    }
    d.CmdPushDescriptorSetKHR(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout_, 0, write_count, writes);
    if (job.blit) {
      std::memcpy(slice.data + uint64_t{i} * kImageRecordBytes, &job.blit_params, sizeof(BlitParams));
    } else {
      std::memcpy(slice.data + uint64_t{i} * kImageRecordBytes, &job.params, sizeof(ImageParams));
    }
    const KernelParamsName name = NameParams(slice.block_index, slice.offset + uint64_t{i} * kImageRecordBytes);
    dispatch_base_(cb, 0, name.base_y, name.base_z, job.groups, 1, 1);
  }
  // Make the kernels' writes available to the application's next transfer-scoped
  // dependency, and put every subresource back in the command's layout.
  memory.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  memory.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  for (uint32_t i = 0; i < transition_count; ++i) {
    VkImageMemoryBarrier& b = to_general[i];
    std::swap(b.oldLayout, b.newLayout);
    b.srcAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    b.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  }
  d.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &memory, 0,
                       nullptr, transition_count, to_general);
  state.RestoreComputeDescriptorSets(cb, d);
  state.RestoreCompute(cb, d);
}

}  // namespace bindery::transfer
