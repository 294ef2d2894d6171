// The image transfer kernels (shaders/image_*.comp, one pipeline per kernel and view
// dimensionality) and the recipe for recording them inside an application's command buffer.
//
// Recipe (ImageKernels::Record), like the buffer kernels' (transfer/kernels.h) plus what an
// image needs: suspend conditional rendering; one barrier TRANSFER -> COMPUTE that chains
// after the application's transfer-scoped dependencies and moves every subresource the
// kernels touch from the command's layout to GENERAL (the layout storage and sampled views
// are used in); per dispatch, push the views (a push-descriptor set of the kernels' own
// layout) and dispatch with the parameter record named by the base workgroup; one barrier
// COMPUTE -> TRANSFER that makes the writes available to the application's next
// transfer-scoped dependency and moves the subresources back to the command's layout; then
// bind back the application's compute descriptor sets (pushing our set disturbed them) and
// its compute pipeline, and resume conditional rendering.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>

#include <vulkan/vulkan.h>

#include "transfer/kernel_base.h"

namespace bindery {
class CommandState;
}

namespace bindery::transfer {

// The parameter record of an image kernel (ImageParams in shaders/image_common.glsl).
struct ImageParams {
  uint32_t buffer[2];
  uint32_t row_pitch;
  uint32_t slice_pitch;
  int32_t src[3];
  uint32_t texel_bytes;
  int32_t dst[3];
  uint32_t units_x;
  uint32_t extent[3];
  uint32_t tile_shift;
  uint32_t value[4];
};
static_assert(sizeof(ImageParams) == 80, "matches the std430 struct in image_common.glsl");

// The parameter record of the blit kernel (BlitParams in shaders/image_blit.comp).
struct BlitParams {
  float src0[3];
  uint32_t src_layer;
  float scale[3];
  uint32_t dst_layer;
  float inv_size[3];
  uint32_t units_x;
  int32_t dst0[3];
  uint32_t tile_shift;
  int32_t dst_min[3];
  uint32_t unused0;
  uint32_t extent[3];
  uint32_t unused1;
};
static_assert(sizeof(BlitParams) == 96, "matches the std430 struct in image_blit.comp");
inline constexpr uint32_t kImageRecordBytes = 96;  // every image dispatch's record slot

// Kernels: kind x the dimensionality of the views they use (1D array, 2D array, 3D).
enum class ImageKernelKind {
  kBufferToImage,  // + dst dim
  kImageToBuffer,  // + src dim
  kClear,          // + dst dim
  kImageToImage,   // + src dim x dst dim
  kBlit,           // + dim (src_dim) x numeric kind (dst_dim: 0 float, 1 unsigned, 2 signed)
  kResolve,        // + numeric kind (dst_dim: 0 float, 1 unsigned, 2 signed); 2D only
};
// Pipeline index of a kernel: dims are 1, 2 or 3.
uint32_t ImagePipelineIndex(ImageKernelKind kind, uint32_t src_dim, uint32_t dst_dim);
inline constexpr uint32_t kImagePipelineCount = 3 + 3 + 3 + 9 + 9 + 3;

// One dispatch: the pipeline, the views it reads (binding 0, sampled) and writes (binding
// 1, storage), and its record. A blit reads binding 2 (a combined image sampler with the
// filter's sampler) and writes binding 3 (storage, the destination's own format).
struct ImageDispatch {
  uint32_t pipeline;
  VkImageView src_view = VK_NULL_HANDLE;
  VkImageView dst_view = VK_NULL_HANDLE;
  ImageParams params{};
  uint32_t groups = 1;
  bool blit = false;
  VkFilter filter = VK_FILTER_NEAREST;
  BlitParams blit_params{};
};

class ImageKernels : public KernelBase {
 public:
  ImageKernels(DeviceState& device, const VkLayerDispatchTable& next) : KernelBase(device, next) {}
  ~ImageKernels();

  // Makes what every kernel shares (at vkCreateDevice): the push-descriptor layout, the
  // blit samplers. False if that failed (image commands then go native). The pipelines
  // themselves are built on first use (Ensure): 27 of them cost ~0.1 s of llvmpipe time per
  // device, which every device would pay whether it copies images or not.
  bool Build(StagingPool& staging, uint32_t command_data_slot);
  // Builds pipeline `index` if it is not built yet (once per device and kernel; later calls
  // are one atomic load). False if it cannot be built: the caller goes native before
  // recording anything.
  bool Ensure(uint32_t index);

  // Records `dispatches` inside the bracket described above. `to_general` are the image
  // barriers that move subresources from the command's layouts to GENERAL (oldLayout the
  // command's, newLayout GENERAL; the reverse is recorded after); `buffers`: the kernels
  // read or write buffer memory too (the memory barriers then cover it). When staging for
  // the records cannot be had, records nothing and the command buffer keeps
  // VK_ERROR_OUT_OF_DEVICE_MEMORY (vkEndCommandBuffer returns it).
  void Record(VkCommandBuffer cb, const CommandState& state, const ImageDispatch* dispatches, uint32_t count,
              VkImageMemoryBarrier* to_general, uint32_t transition_count);

 private:
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkSampler samplers_[2] = {};  // nearest, linear: clamp to edge, level 0
  std::mutex build_mutex_;
  VkShaderModule modules_[kImagePipelineCount] = {};
  std::atomic<VkPipeline> pipelines_[kImagePipelineCount] = {};
};

}  // namespace bindery::transfer
