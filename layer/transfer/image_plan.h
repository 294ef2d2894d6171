// Pure arithmetic of the image kernels: how one region of an image command becomes kernel
// dispatches (their parameter records and workgroup counts), and how the subresources the
// command touches merge into layout transitions. No Vulkan calls: unit-tested without a GPU.
#pragma once

#include <cstdint>

#include <vulkan/vulkan.h>

#include "transfer/image_kernels.h"

namespace bindery::transfer {

// One region as the kernels see it: a box of texels (width x height x slices, slices being
// 3D depth or array layers) at an origin in each image's view, and where the buffer holds
// it (buffer <-> image): its first texel's address and the pitches between rows and slices.
struct ImageRegion {
  int32_t src[3] = {0, 0, 0};  // x, y, z-or-layer within the source view
  int32_t dst[3] = {0, 0, 0};
  uint32_t width = 0, height = 0, slices = 0;
  uint32_t texel_bytes = 0;
  uint64_t buffer_address = 0;  // of texel (0, 0, 0)
  uint64_t row_pitch = 0;
  uint64_t slice_pitch = 0;
  bool buffer_words = false;  // image -> buffer with texels under 4 bytes: units are buffer words
  uint32_t value[4] = {0, 0, 0, 0};  // clear bits
};

// The buffer side of vkCmdCopyBufferToImage / vkCmdCopyImageToBuffer: bufferRowLength and
// bufferImageHeight of 0 mean tightly packed.
inline uint64_t BufferRowPitch(const VkBufferImageCopy& r, uint32_t texel_bytes) {
  return uint64_t{r.bufferRowLength != 0 ? r.bufferRowLength : r.imageExtent.width} * texel_bytes;
}
inline uint64_t BufferSlicePitch(const VkBufferImageCopy& r, uint32_t texel_bytes) {
  return BufferRowPitch(r, texel_bytes) * (r.bufferImageHeight != 0 ? r.bufferImageHeight : r.imageExtent.height);
}

// Calls emit(const ImageParams&, uint32_t groups) for each dispatch of the region: one,
// or several where the buffer bytes one dispatch spans would reach 4 GiB (records address
// the buffer by 32-bit offsets from their first texel): split by slices, and by rows where
// one slice alone is that large. Returns the number of dispatches.
template <typename Emit>
uint32_t PlanImageDispatches(const ImageRegion& region, Emit&& emit);

// Workgroups for a dispatch over `units_x` x `height` x `slices` units in tiles of 256
// (32 x 8, or 256 x 1 when height is 1): one per tile, at most 65535 (the kernels loop).
inline uint32_t TileShift(uint32_t height) { return height == 1 ? 8u : 5u; }
inline uint32_t ImageGroups(uint32_t units_x, uint32_t height, uint32_t slices) {
  const uint32_t shift = TileShift(height);
  const uint64_t tile_w = 1u << shift, tile_h = 256u >> shift;
  const uint64_t tiles = (units_x + tile_w - 1) / tile_w * ((height + tile_h - 1) / tile_h) * slices;
  return static_cast<uint32_t>(tiles < 65535 ? (tiles == 0 ? 1 : tiles) : 65535);
}

// Subresources to move to GENERAL and back: one entry per image, mip level and contiguous
// layer range in one layout. Overlapping or adjacent ranges of one image, mip and layout
// merge (two barriers on one subresource in one vkCmdPipelineBarrier would each transition
// it). Fixed capacity; Add returns false when full.
class LayoutTransitions {
 public:
  static constexpr uint32_t kCapacity = 32;
  bool Add(VkImage image, VkImageLayout layout, uint32_t mip, uint32_t base_layer, uint32_t layer_count);
  uint32_t count() const { return count_; }
  VkImageMemoryBarrier* barriers() { return barriers_; }
  void Clear() { count_ = 0; }

 private:
  VkImageMemoryBarrier barriers_[kCapacity];
  uint32_t count_ = 0;
};

// ---- implementation of the template -----------------------------------------------------

inline ImageParams MakeImageParams(const ImageRegion& r, uint64_t address, uint32_t y0, uint32_t rows,
                                   uint32_t s0, uint32_t slices) {
  ImageParams p{};
  p.buffer[0] = static_cast<uint32_t>(address);
  p.buffer[1] = static_cast<uint32_t>(address >> 32);
  p.row_pitch = static_cast<uint32_t>(r.row_pitch);
  p.slice_pitch = static_cast<uint32_t>(r.slice_pitch);
  p.src[0] = r.src[0];
  p.src[1] = r.src[1] + static_cast<int32_t>(y0);
  p.src[2] = r.src[2] + static_cast<int32_t>(s0);
  p.texel_bytes = r.texel_bytes;
  p.dst[0] = r.dst[0];
  p.dst[1] = r.dst[1] + static_cast<int32_t>(y0);
  p.dst[2] = r.dst[2] + static_cast<int32_t>(s0);
  p.units_x = r.buffer_words ? (r.width * r.texel_bytes + 3) / 4 + 1 : r.width;
  p.extent[0] = r.width;
  p.extent[1] = rows;
  p.extent[2] = slices;
  p.tile_shift = TileShift(rows);
  for (int i = 0; i < 4; ++i) p.value[i] = r.value[i];
  return p;
}

template <typename Emit>
uint32_t PlanImageDispatches(const ImageRegion& r, Emit&& emit) {
  constexpr uint64_t kSpan = 1ull << 32;
  const uint64_t row_bytes = uint64_t{r.width} * r.texel_bytes;
  // The buffer bytes from a dispatch's first texel to past its last.
  auto span = [&](uint32_t rows, uint32_t slices) {
    return (slices - 1) * r.slice_pitch + (rows - 1) * r.row_pitch + row_bytes + 4;
  };
  uint32_t dispatches = 0;
  auto one = [&](uint32_t y0, uint32_t rows, uint32_t s0, uint32_t slices) {
    const uint64_t address = r.buffer_address + s0 * r.slice_pitch + y0 * r.row_pitch;
    const ImageParams p = MakeImageParams(r, address, y0, rows, s0, slices);
    emit(p, ImageGroups(p.units_x, rows, slices));
    ++dispatches;
  };
  if (r.width == 0 || r.height == 0 || r.slices == 0) return 0;
  if (r.buffer_address == 0 || span(r.height, r.slices) < kSpan) {
    one(0, r.height, 0, r.slices);
    return dispatches;
  }
  if (span(r.height, 1) < kSpan) {
    // Whole slices per dispatch.
    const uint32_t per = static_cast<uint32_t>(1 + (kSpan - 1 - span(r.height, 1)) / r.slice_pitch);
    for (uint32_t s = 0; s < r.slices; s += per) one(0, r.height, s, per < r.slices - s ? per : r.slices - s);
    return dispatches;
  }
  // A slice alone spans 4 GiB: rows per dispatch, slice by slice.
  const uint32_t per = static_cast<uint32_t>(1 + (kSpan - 1 - span(1, 1)) / r.row_pitch);
  for (uint32_t s = 0; s < r.slices; ++s) {
    for (uint32_t y = 0; y < r.height; y += per) one(y, per < r.height - y ? per : r.height - y, s, 1);
  }
  return dispatches;
}

}  // namespace bindery::transfer
