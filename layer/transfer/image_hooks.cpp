// The image commands (vkCmdCopyBufferToImage, vkCmdCopyImageToBuffer, vkCmdCopyImage,
// vkCmdClearColorImage and their `2` forms): each flushes small writes that waited past a
// barrier (transfer/transfer_only_barriers.h), then runs as compute kernels where the policy
// says they pay and everything a kernel needs is there (transfer/images.h, image_kernels.h),
// or goes down as the application made it. A command that would pay but cannot run as
// kernels (depth/stencil, multi-planar or compressed formats, an image the layer could not
// extend, a layout other than GENERAL or the transfer one, ...) is counted under
// "image native" with its reason, and the reason logged once per device.
#include <algorithm>
#include <cstring>

#include "chassis/state.h"
#include "chassis/trackers.h"
#include "transfer/image_hooks.h"
#include "transfer/image_plan.h"
#include "transfer/transfer_capability.h"
#include "transfer/transfer_device.h"

namespace bindery::transfer {
namespace {

// Why a command that would pay as kernels goes down natively (literals: the tally and the
// once-per-device log key on them).
const char* const kWhyDepth = "depth/stencil aspects";
const char* const kWhyPlanar = "multi-planar, YCbCr or unknown format";
const char* const kWhyCompressed = "compressed format";
const char* const kWhyNoRaw = "no raw storage view for the texel size";
const char* const kWhyUnreachable = "image without the usage or view format a kernel needs";
const char* const kWhyLayout = "layout other than GENERAL or the transfer layout";
const char* const kWhyState = "no kernel can run in this command buffer now";
const char* const kWhySets = "compute descriptor sets the layer cannot bind again";
const char* const kWhyBuffer = "buffer without a device address";
const char* const kWhyView = "a view could not be made";
const char* const kWhyClear = "clear colour not converted exactly for this format";
const char* const kWhyShape = "region shape the kernels do not take";
const char* const kWhyBlitClass = "blit class (formats, filter) not proven on this driver";
const char* const kWhyPipeline = "the kernel's pipeline could not be built";
const char* const kWhyBlitFormat = "blit format without the sampling or storage features a kernel needs";
const char* const kWhyResolveClass = "resolve class (format, sample count) not proven on this driver";
const char* const kWhyResolveFormat = "resolve format without the sampling or storage features a kernel needs";

// Collects one command's dispatches and layout transitions, recording them in brackets
// (ImageKernels::Record) when full and at the end. Fixed arrays: no allocation.
class ImageRecorder {
 public:
  ImageRecorder(DeviceTransfers& t, VkCommandBuffer cb, CommandState& state) : t_(t), cb_(cb), state_(state) {}

  // Makes room for a region of at most `dispatches` dispatches and `transitions` new
  // transitions, flushing what is collected when it would not fit.
  void Reserve(uint32_t dispatches, uint32_t transitions) {
    if (count_ + dispatches > kMaxDispatches ||
        transitions_.count() + transitions > LayoutTransitions::kCapacity) {
      Flush();
    }
  }
  bool Transition(VkImage image, VkImageLayout layout, uint32_t mip, uint32_t base, uint32_t layers) {
    if (layout == VK_IMAGE_LAYOUT_GENERAL) return true;
    return transitions_.Add(image, layout, mip, base, layers);
  }
  bool Add(const ImageDispatch& dispatch) {
    if (count_ == kMaxDispatches) return false;
    dispatches_[count_++] = dispatch;
    return true;
  }
  void Flush() {
    if (count_ != 0) t_.image_kernels.Record(cb_, state_, dispatches_, count_, transitions_.barriers(), transitions_.count());
    count_ = 0;
    transitions_.Clear();
  }

  static constexpr uint32_t kMaxDispatches = 32;

 private:
  DeviceTransfers& t_;
  VkCommandBuffer cb_;
  CommandState& state_;
  ImageDispatch dispatches_[kMaxDispatches];
  uint32_t count_ = 0;
  LayoutTransitions transitions_;
};

DeviceTransfers* FindTransfers(VkDevice device) {
  return StateRegistry::Get().FindDevice(device)->State<DeviceTransfers>(TransferCapability().slot());
}

const VkLayerDispatchTable& NextOf(VkDevice device) {
  return StateRegistry::Get().FindDevice(device)->Next(TransferCapability().slot());
}

void CopyRegionNatively(DeviceTransfers& t, VkCommandBuffer cb, bool to_image, VkBuffer buffer, VkImage image,
                        VkImageLayout layout, const VkBufferImageCopy& region) {
  if (to_image) {
    t.next.CmdCopyBufferToImage(cb, buffer, image, layout, 1, &region);
  } else {
    t.next.CmdCopyImageToBuffer(cb, image, layout, buffer, 1, &region);
  }
}

uint32_t DimOf(VkImageType type) { return type == VK_IMAGE_TYPE_1D ? 1u : type == VK_IMAGE_TYPE_3D ? 3u : 2u; }

// Why `info`'s format keeps a kernel away; nullptr when its bits can go through a raw view.
const char* FormatWhyNot(const ImageInfo& info) {
  switch (info.described.kind) {
    case FormatKind::kColor: return info.raw_format == VK_FORMAT_UNDEFINED && RawFormatOf(info.format) == VK_FORMAT_UNDEFINED
                                        ? kWhyNoRaw
                                        : nullptr;
    case FormatKind::kDepthStencil: return kWhyDepth;
    case FormatKind::kCompressed: return info.raw_format == VK_FORMAT_UNDEFINED ? kWhyCompressed : nullptr;
    case FormatKind::kOther: return kWhyPlanar;
  }
  return kWhyPlanar;
}

bool TransferLayout(VkImageLayout layout, bool write) {
  return layout == VK_IMAGE_LAYOUT_GENERAL ||
         layout == (write ? VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL : VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
}

// Why `image` in `layout` cannot be read (write: written) by a kernel; nullptr when it can.
const char* ImageWhyNot(const ImageInfo& info, VkImageLayout layout, bool write) {
  if (const char* why = FormatWhyNot(info)) return why;
  if (info.raw_format == VK_FORMAT_UNDEFINED || !(write ? info.kernel_writes : info.kernel_reads)) {
    return info.why_not != nullptr ? info.why_not : kWhyUnreachable;
  }
  if (!TransferLayout(layout, write)) return kWhyLayout;
  return nullptr;
}

// Layers of a subresource (VK_REMAINING_ARRAY_LAYERS resolved); 3D images have one.
uint32_t LayerCount(const ImageInfo& info, uint32_t base, uint32_t count) {
  return count == VK_REMAINING_ARRAY_LAYERS ? info.array_layers - base : count;
}

uint32_t MipExtent(uint32_t extent, uint32_t mip) { return std::max(1u, extent >> mip); }
uint32_t DivUp(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

// The fallback path: count, log once, and go down natively.
template <typename Forward>
void Native(DeviceTransfers& t, const char* why, Forward&& forward) {
  t.NoteImageFallback(why);
  forward();
}

// The command's state where a kernel may run now, with everything an image kernel needs;
// otherwise why not.
CommandState* KernelState(DeviceTransfers& t, VkCommandBuffer cb, const char** why) {
  CommandState* state = t.trackers().FindCommand(cb);
  if (!KernelMayRun(t, state)) {
    *why = kWhyState;
    return nullptr;
  }
  if (!state->ComputeDescriptorSetsRestorable()) {
    *why = kWhySets;
    return nullptr;
  }
  return state;
}

// ---- buffer <-> image ---------------------------------------------------------------------

// vkCmdCopyBufferToImage (to_image) and vkCmdCopyImageToBuffer, any form: `region(i)`
// yields a VkBufferImageCopy, `forward()` sends the call down as it was made. True when it
// ran as kernels.
template <typename RegionFn, typename Forward>
void BufferImageCommon(DeviceTransfers& t, VkCommandBuffer cb, bool to_image, VkBuffer buffer, VkImage image,
                       VkImageLayout layout, uint32_t count, RegionFn&& region, Forward&& forward) {
  FlushIfCrossed(t, cb);
  const ImageCommand command = to_image ? ImageCommand::kBufferToImage : ImageCommand::kImageToBuffer;
  ImageInfo* info = t.ImageKernelsPossible() ? t.images.images.Find(image) : nullptr;
  if (info == nullptr) return forward();
  const uint32_t texel = info->described.texel_bytes;
  uint64_t bytes = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const VkBufferImageCopy r = region(i);
    const uint32_t layers = info->type == VK_IMAGE_TYPE_3D ? 1 : LayerCount(*info, r.imageSubresource.baseArrayLayer,
                                                                             r.imageSubresource.layerCount);
    bytes += uint64_t{r.imageExtent.width} * r.imageExtent.height * r.imageExtent.depth * layers * std::max(texel, 1u);
  }
  if (bytes < t.policy.ImageKernelMin(command)) return forward();  // the driver's command pays here
  const char* why = ImageWhyNot(*info, layout, to_image);
  const VkDeviceAddress address = why == nullptr ? t.trackers().AddressOf(buffer) : 0;
  if (why == nullptr && address == 0) why = kWhyBuffer;
  CommandState* state = why == nullptr ? KernelState(t, cb, &why) : nullptr;
  for (uint32_t i = 0; i < count && why == nullptr; ++i) {
    if (region(i).imageSubresource.aspectMask != VK_IMAGE_ASPECT_COLOR_BIT) why = kWhyShape;
  }
  const uint32_t dim = DimOf(info->type);
  const uint32_t pipeline = ImagePipelineIndex(
      to_image ? ImageKernelKind::kBufferToImage : ImageKernelKind::kImageToBuffer, dim, dim);
  if (why == nullptr && !t.image_kernels.Ensure(pipeline)) why = kWhyPipeline;
  if (why != nullptr) return Native(t, why, forward);

  ImageRecorder rec(t, cb, *state);
  // Compressed images are reached through block-texel views (one block per texel, one layer
  // per view): regions and the buffer's pitches are counted in blocks.
  const bool blocks = info->described.kind == FormatKind::kCompressed;
  const uint32_t bw = info->described.block_w, bh = info->described.block_h;
  for (uint32_t i = 0; i < count; ++i) {
    const VkBufferImageCopy r = region(i);
    const VkImageSubresourceLayers& sub = r.imageSubresource;
    const bool is3d = info->type == VK_IMAGE_TYPE_3D;
    const uint32_t base = is3d ? 0 : sub.baseArrayLayer;
    const uint32_t layers = is3d ? 1 : LayerCount(*info, sub.baseArrayLayer, sub.layerCount);
    const uint32_t view_layers = blocks ? 1 : layers;
    ImageRegion plan;
    int32_t* origin = to_image ? plan.dst : plan.src;
    origin[0] = r.imageOffset.x / static_cast<int32_t>(bw);
    origin[1] = r.imageOffset.y / static_cast<int32_t>(bh);
    origin[2] = is3d ? r.imageOffset.z : 0;
    plan.width = DivUp(r.imageExtent.width, bw);
    plan.height = DivUp(r.imageExtent.height, bh);
    plan.slices = is3d ? r.imageExtent.depth : view_layers;
    plan.texel_bytes = texel;
    plan.row_pitch = uint64_t{DivUp(r.bufferRowLength != 0 ? r.bufferRowLength : r.imageExtent.width, bw)} * texel;
    plan.slice_pitch =
        plan.row_pitch * DivUp(r.bufferImageHeight != 0 ? r.bufferImageHeight : r.imageExtent.height, bh);
    plan.buffer_words = !to_image && texel < 4;
    if (plan.width == 0 || plan.height == 0 || plan.slices == 0) continue;
    for (uint32_t l = 0; l < layers; l += view_layers) {
      plan.buffer_address = address + r.bufferOffset + l * plan.slice_pitch;
      const VkImageView view = t.images.View(
          t, image, *info,
          {to_image ? VkImageUsageFlags{VK_IMAGE_USAGE_STORAGE_BIT} : VkImageUsageFlags{VK_IMAGE_USAGE_SAMPLED_BIT},
           sub.mipLevel, base + l, view_layers});
      if (view == VK_NULL_HANDLE) {
        // What the earlier regions (and layers) recorded stays: the rest natively after it,
        // region by region (this region's earlier layers again: the same bytes again).
        rec.Flush();
        t.NoteImageFallback(kWhyView);
        for (uint32_t j = i; j < count; ++j) CopyRegionNatively(t, cb, to_image, buffer, image, layout, region(j));
        t.counters.image_kernels->Add();
        return;
      }
      rec.Reserve(8, 1);
      rec.Transition(image, layout, sub.mipLevel, base + l, view_layers);
      PlanImageDispatches(plan, [&](const ImageParams& params, uint32_t groups) {
        ImageDispatch d{pipeline};
        (to_image ? d.dst_view : d.src_view) = view;
        d.params = params;
        d.groups = groups;
        if (!rec.Add(d)) {
          rec.Flush();
          rec.Transition(image, layout, sub.mipLevel, base + l, view_layers);
          rec.Add(d);
        }
      });
    }
  }
  rec.Flush();
  t.counters.image_kernels->Add();
}

VkBufferImageCopy FromCopy2(const VkBufferImageCopy2& r) {
  return {r.bufferOffset, r.bufferRowLength, r.bufferImageHeight, r.imageSubresource, r.imageOffset, r.imageExtent};
}

// A VkBufferImageCopy2 with a pNext (VkCopyCommandTransformInfoQCOM) is not ours to take.
template <typename Info>
bool PlainRegions(const Info* info) {
  for (uint32_t i = 0; i < info->regionCount; ++i) {
    if (info->pRegions[i].pNext != nullptr) return false;
  }
  return info->pNext == nullptr;
}

// ---- image -> image ---------------------------------------------------------------------

template <typename RegionFn, typename Forward>
void CopyImageCommon(DeviceTransfers& t, VkCommandBuffer cb, VkImage src, VkImageLayout src_layout, VkImage dst,
                     VkImageLayout dst_layout, uint32_t count, RegionFn&& region, Forward&& forward) {
  FlushIfCrossed(t, cb);
  ImageInfo* s = t.ImageKernelsPossible() ? t.images.images.Find(src) : nullptr;
  ImageInfo* d = s != nullptr ? t.images.images.Find(dst) : nullptr;
  if (d == nullptr) return forward();
  const uint32_t texel = std::max(s->described.texel_bytes, 1u);
  uint64_t bytes = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const VkImageCopy r = region(i);
    const uint32_t slices = s->type == VK_IMAGE_TYPE_3D
                                ? r.extent.depth
                                : LayerCount(*s, r.srcSubresource.baseArrayLayer, r.srcSubresource.layerCount);
    bytes += uint64_t{r.extent.width} * r.extent.height * slices * texel;
  }
  if (bytes < t.policy.ImageKernelMin(ImageCommand::kImageToImage)) return forward();
  const char* why = ImageWhyNot(*s, src_layout, false);
  if (why == nullptr) why = ImageWhyNot(*d, dst_layout, true);
  // Compressed to compressed of one block shape, or uncompressed to uncompressed (a copy
  // between a compressed and an uncompressed format counts extents in source texels: native).
  if (why == nullptr && (s->described.texel_bytes != d->described.texel_bytes ||
                         s->described.block_w != d->described.block_w ||
                         s->described.block_h != d->described.block_h ||
                         (s->described.kind == FormatKind::kCompressed) != (d->described.kind == FormatKind::kCompressed))) {
    why = kWhyShape;
  }
  CommandState* state = why == nullptr ? KernelState(t, cb, &why) : nullptr;
  for (uint32_t i = 0; i < count && why == nullptr; ++i) {
    const VkImageCopy r = region(i);
    if (r.srcSubresource.aspectMask != VK_IMAGE_ASPECT_COLOR_BIT ||
        r.dstSubresource.aspectMask != VK_IMAGE_ASPECT_COLOR_BIT) {
      why = kWhyShape;
    }
  }
  const uint32_t src_dim = DimOf(s->type), dst_dim = DimOf(d->type);
  const uint32_t pipeline = ImagePipelineIndex(ImageKernelKind::kImageToImage, src_dim, dst_dim);
  if (why == nullptr && !t.image_kernels.Ensure(pipeline)) why = kWhyPipeline;
  if (why != nullptr) return Native(t, why, forward);

  ImageRecorder rec(t, cb, *state);
  const bool blocks = s->described.kind == FormatKind::kCompressed;
  const uint32_t bw = s->described.block_w, bh = s->described.block_h;
  for (uint32_t i = 0; i < count; ++i) {
    const VkImageCopy r = region(i);
    const bool src3d = s->type == VK_IMAGE_TYPE_3D, dst3d = d->type == VK_IMAGE_TYPE_3D;
    const uint32_t src_base = src3d ? 0 : r.srcSubresource.baseArrayLayer;
    const uint32_t dst_base = dst3d ? 0 : r.dstSubresource.baseArrayLayer;
    const uint32_t src_layers = src3d ? 1 : LayerCount(*s, src_base, r.srcSubresource.layerCount);
    const uint32_t dst_layers = dst3d ? 1 : LayerCount(*d, dst_base, r.dstSubresource.layerCount);
    // Block-texel views hold one layer: compressed regions go layer by layer.
    const uint32_t src_step = blocks && !src3d ? 1 : src_layers, dst_step = blocks && !dst3d ? 1 : dst_layers;
    const uint32_t steps = blocks ? std::max(src_layers / src_step, dst_layers / dst_step) : 1;
    ImageRegion plan;
    plan.src[0] = r.srcOffset.x / static_cast<int32_t>(bw);
    plan.src[1] = r.srcOffset.y / static_cast<int32_t>(bh);
    plan.src[2] = src3d ? r.srcOffset.z : 0;
    plan.dst[0] = r.dstOffset.x / static_cast<int32_t>(bw);
    plan.dst[1] = r.dstOffset.y / static_cast<int32_t>(bh);
    plan.dst[2] = dst3d ? r.dstOffset.z : 0;
    plan.width = DivUp(r.extent.width, bw);
    plan.height = DivUp(r.extent.height, bh);
    plan.slices = src3d ? r.extent.depth : src_layers / steps;
    plan.texel_bytes = texel;
    if (plan.width == 0 || plan.height == 0 || plan.slices == 0) continue;
    for (uint32_t k = 0; k < steps; ++k) {
      // With several steps (compressed layers), the 3D side's slice moves instead of a layer.
      const uint32_t src_layer = src3d ? 0 : src_base + k * (src_layers / steps);
      const uint32_t dst_layer = dst3d ? 0 : dst_base + k * (dst_layers / steps);
      ImageRegion part = plan;
      if (steps > 1 && src3d) part.src[2] += static_cast<int32_t>(k);
      if (steps > 1 && dst3d) part.dst[2] += static_cast<int32_t>(k);
      const uint32_t src_count = src3d ? 1 : src_layers / steps, dst_count = dst3d ? 1 : dst_layers / steps;
      const VkImageView src_view =
          t.images.View(t, src, *s, {VK_IMAGE_USAGE_SAMPLED_BIT, r.srcSubresource.mipLevel, src_layer, src_count});
      const VkImageView dst_view =
          t.images.View(t, dst, *d, {VK_IMAGE_USAGE_STORAGE_BIT, r.dstSubresource.mipLevel, dst_layer, dst_count});
      if (src_view == VK_NULL_HANDLE || dst_view == VK_NULL_HANDLE) {
        rec.Flush();
        t.NoteImageFallback(kWhyView);
        for (uint32_t j = i; j < count; ++j) {
          const VkImageCopy rest = region(j);
          t.next.CmdCopyImage(cb, src, src_layout, dst, dst_layout, 1, &rest);
        }
        t.counters.image_kernels->Add();
        return;
      }
      rec.Reserve(1, 2);
      rec.Transition(src, src_layout, r.srcSubresource.mipLevel, src_layer, src_count);
      rec.Transition(dst, dst_layout, r.dstSubresource.mipLevel, dst_layer, dst_count);
      if (steps > 1) part.slices = 1;
      PlanImageDispatches(part, [&](const ImageParams& params, uint32_t groups) {
        ImageDispatch job{pipeline, src_view, dst_view, params, groups};
        rec.Add(job);
      });
    }
  }
  rec.Flush();
  t.counters.image_kernels->Add();
}

// ---- clears -----------------------------------------------------------------------------

template <typename Forward>
void ClearColorCommon(DeviceTransfers& t, VkCommandBuffer cb, VkImage image, VkImageLayout layout,
                      const VkClearColorValue* color, uint32_t count, const VkImageSubresourceRange* ranges,
                      Forward&& forward) {
  FlushIfCrossed(t, cb);
  ImageInfo* info = t.ImageKernelsPossible() ? t.images.images.Find(image) : nullptr;
  if (info == nullptr) return forward();
  const uint32_t texel = std::max(info->described.texel_bytes, 1u);
  const bool is3d = info->type == VK_IMAGE_TYPE_3D;
  uint64_t bytes = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const VkImageSubresourceRange& r = ranges[i];
    const uint32_t levels = r.levelCount == VK_REMAINING_MIP_LEVELS ? info->mip_levels - r.baseMipLevel : r.levelCount;
    const uint32_t layers = LayerCount(*info, r.baseArrayLayer, r.layerCount);
    for (uint32_t m = r.baseMipLevel; m < r.baseMipLevel + levels; ++m) {
      bytes += uint64_t{MipExtent(info->extent.width, m)} * MipExtent(info->extent.height, m) *
               (is3d ? MipExtent(info->extent.depth, m) : layers) * texel;
    }
  }
  if (bytes < t.policy.ImageKernelMin(ImageCommand::kClear)) return forward();
  const char* why = ImageWhyNot(*info, layout, true);
  ImageRegion plan;
  if (why == nullptr && !ClearColorBits(info->format, *color, plan.value)) why = kWhyClear;
  CommandState* state = why == nullptr ? KernelState(t, cb, &why) : nullptr;
  for (uint32_t i = 0; i < count && why == nullptr; ++i) {
    if (ranges[i].aspectMask != VK_IMAGE_ASPECT_COLOR_BIT) why = kWhyShape;
  }
  const uint32_t pipeline = ImagePipelineIndex(ImageKernelKind::kClear, 0, DimOf(info->type));
  if (why == nullptr && !t.image_kernels.Ensure(pipeline)) why = kWhyPipeline;
  if (why != nullptr) return Native(t, why, forward);

  ImageRecorder rec(t, cb, *state);
  plan.texel_bytes = texel;
  for (uint32_t i = 0; i < count; ++i) {
    const VkImageSubresourceRange& r = ranges[i];
    const uint32_t levels = r.levelCount == VK_REMAINING_MIP_LEVELS ? info->mip_levels - r.baseMipLevel : r.levelCount;
    const uint32_t base = is3d ? 0 : r.baseArrayLayer;
    const uint32_t layers = is3d ? 1 : LayerCount(*info, r.baseArrayLayer, r.layerCount);
    for (uint32_t m = r.baseMipLevel; m < r.baseMipLevel + levels; ++m) {
      plan.width = MipExtent(info->extent.width, m);
      plan.height = MipExtent(info->extent.height, m);
      plan.slices = is3d ? MipExtent(info->extent.depth, m) : layers;
      const VkImageView view = t.images.View(t, image, *info, {VK_IMAGE_USAGE_STORAGE_BIT, m, base, layers});
      if (view == VK_NULL_HANDLE) {
        // What was recorded stays; the rest of this range and the later ranges natively.
        rec.Flush();
        t.NoteImageFallback(kWhyView);
        VkImageSubresourceRange rest = r;
        rest.baseMipLevel = m;
        rest.levelCount = r.baseMipLevel + levels - m;
        t.next.CmdClearColorImage(cb, image, layout, color, 1, &rest);
        if (i + 1 < count) t.next.CmdClearColorImage(cb, image, layout, color, count - i - 1, ranges + i + 1);
        t.counters.image_kernels->Add();
        return;
      }
      rec.Reserve(1, 1);
      rec.Transition(image, layout, m, base, layers);
      PlanImageDispatches(plan, [&](const ImageParams& params, uint32_t groups) {
        ImageDispatch job{pipeline, VK_NULL_HANDLE, view, params, groups};
        rec.Add(job);
      });
    }
  }
  rec.Flush();
  t.counters.image_kernels->Add();
}

// ---- blits ------------------------------------------------------------------------------

// Why a blit from `s` to `d` with `filter` cannot run as a kernel; nullptr when it can: both
// formats plain colour, the source sampled and the destination stored in their own formats
// (the kernel's views), in transfer layouts, the class proven on this driver.
const char* BlitWhyNot(DeviceTransfers& t, const ImageInfo& s, VkImageLayout src_layout, const ImageInfo& d,
                       VkImageLayout dst_layout, VkFilter filter) {
  if (const char* why = FormatWhyNot(s)) return why;
  if (const char* why = FormatWhyNot(d)) return why;
  if (filter != VK_FILTER_NEAREST && filter != VK_FILTER_LINEAR) return kWhyShape;
  if (s.type != d.type || s.samples != VK_SAMPLE_COUNT_1_BIT || d.samples != VK_SAMPLE_COUNT_1_BIT) return kWhyShape;
  if (!TransferLayout(src_layout, false) || !TransferLayout(dst_layout, true)) return kWhyLayout;
  if (!t.policy.BlitProven(EncodingOf(s.format), EncodingOf(d.format), filter)) return kWhyBlitClass;
  if ((s.usage & VK_IMAGE_USAGE_SAMPLED_BIT) == 0 || (d.usage & VK_IMAGE_USAGE_STORAGE_BIT) == 0) {
    return s.why_not != nullptr ? s.why_not : d.why_not != nullptr ? d.why_not : kWhyUnreachable;
  }
  const VkFormatFeatureFlags src_features = t.OptimalFeatures(s.format);
  const VkFormatFeatureFlags dst_features = t.OptimalFeatures(d.format);
  if ((src_features & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT) == 0 ||
      (filter == VK_FILTER_LINEAR && (src_features & VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT) == 0) ||
      (dst_features & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT) == 0) {
    return kWhyBlitFormat;
  }
  return nullptr;
}

uint32_t BlitKind(VkFormat format) {
  const Numeric n = DescribeFormat(format).numeric;
  return n == Numeric::kUint ? 1u : n == Numeric::kSint ? 2u : 0u;
}

template <typename RegionFn, typename Forward>
void BlitCommon(DeviceTransfers& t, VkCommandBuffer cb, VkImage src, VkImageLayout src_layout, VkImage dst,
                VkImageLayout dst_layout, uint32_t count, RegionFn&& region, VkFilter filter, Forward&& forward) {
  FlushIfCrossed(t, cb);
  ImageInfo* s = t.ImageKernelsPossible() ? t.images.images.Find(src) : nullptr;
  ImageInfo* d = s != nullptr ? t.images.images.Find(dst) : nullptr;
  if (d == nullptr) return forward();
  const bool is3d = d->type == VK_IMAGE_TYPE_3D;
  auto span = [](int32_t a, int32_t b) { return static_cast<uint32_t>(a < b ? b - a : a - b); };
  uint64_t bytes = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const VkImageBlit r = region(i);
    const uint32_t layers = is3d ? 1 : LayerCount(*d, r.dstSubresource.baseArrayLayer, r.dstSubresource.layerCount);
    bytes += uint64_t{span(r.dstOffsets[0].x, r.dstOffsets[1].x)} * span(r.dstOffsets[0].y, r.dstOffsets[1].y) *
             span(r.dstOffsets[0].z, r.dstOffsets[1].z) * layers * std::max(d->described.texel_bytes, 1u);
  }
  if (bytes < t.policy.ImageKernelMin(ImageCommand::kBlit)) return forward();
  const char* why = BlitWhyNot(t, *s, src_layout, *d, dst_layout, filter);
  CommandState* state = why == nullptr ? KernelState(t, cb, &why) : nullptr;
  for (uint32_t i = 0; i < count && why == nullptr; ++i) {
    const VkImageBlit r = region(i);
    if (r.srcSubresource.aspectMask != VK_IMAGE_ASPECT_COLOR_BIT ||
        r.dstSubresource.aspectMask != VK_IMAGE_ASPECT_COLOR_BIT) {
      why = kWhyShape;
    }
  }
  const uint32_t dim = DimOf(d->type);
  const uint32_t pipeline = ImagePipelineIndex(ImageKernelKind::kBlit, dim, BlitKind(d->format));
  if (why == nullptr && !t.image_kernels.Ensure(pipeline)) why = kWhyPipeline;
  if (why != nullptr) return Native(t, why, forward);

  ImageRecorder rec(t, cb, *state);
  for (uint32_t i = 0; i < count; ++i) {
    const VkImageBlit r = region(i);
    const uint32_t src_base = is3d ? 0 : r.srcSubresource.baseArrayLayer;
    const uint32_t dst_base = is3d ? 0 : r.dstSubresource.baseArrayLayer;
    const uint32_t layers = is3d ? 1 : LayerCount(*s, src_base, r.srcSubresource.layerCount);
    const VkOffset3D s0 = r.srcOffsets[0], s1 = r.srcOffsets[1], d0 = r.dstOffsets[0], d1 = r.dstOffsets[1];
    BlitParams p{};
    const int32_t src_from[3] = {s0.x, s0.y, s0.z}, src_to[3] = {s1.x, s1.y, s1.z};
    const int32_t dst_from[3] = {d0.x, d0.y, d0.z}, dst_to[3] = {d1.x, d1.y, d1.z};
    const uint32_t src_extent[3] = {MipExtent(s->extent.width, r.srcSubresource.mipLevel),
                                    MipExtent(s->extent.height, r.srcSubresource.mipLevel),
                                    MipExtent(s->extent.depth, r.srcSubresource.mipLevel)};
    bool empty = false;
    for (int a = 0; a < 3; ++a) {
      // The spec's scale: source texels per destination texel, negative where one of the
      // two regions is mirrored.
      p.src0[a] = static_cast<float>(src_from[a]);
      p.scale[a] = dst_to[a] == dst_from[a] ? 0.0f
                                            : static_cast<float>(src_to[a] - src_from[a]) /
                                                  static_cast<float>(dst_to[a] - dst_from[a]);
      p.inv_size[a] = 1.0f / static_cast<float>(src_extent[a]);
      p.dst0[a] = dst_from[a];
      p.dst_min[a] = std::min(dst_from[a], dst_to[a]);
      p.extent[a] = span(dst_from[a], dst_to[a]);
      empty = empty || p.extent[a] == 0;
    }
    if (empty || layers == 0) continue;
    if (!is3d) p.extent[2] = layers;  // slices are layers (z spans one texel)
    p.src_layer = 0;  // the views start at the regions' first layers
    p.dst_layer = 0;
    p.units_x = p.extent[0];
    p.tile_shift = TileShift(p.extent[1]);
    const VkImageView src_view =
        t.images.View(t, src, *s, {VK_IMAGE_USAGE_SAMPLED_BIT, r.srcSubresource.mipLevel, src_base, layers, true});
    const VkImageView dst_view =
        t.images.View(t, dst, *d, {VK_IMAGE_USAGE_STORAGE_BIT, r.dstSubresource.mipLevel, dst_base, layers, true});
    if (src_view == VK_NULL_HANDLE || dst_view == VK_NULL_HANDLE) {
      rec.Flush();
      t.NoteImageFallback(kWhyView);
      for (uint32_t j = i; j < count; ++j) {
        const VkImageBlit rest = region(j);
        t.next.CmdBlitImage(cb, src, src_layout, dst, dst_layout, 1, &rest, filter);
      }
      t.counters.image_kernels->Add();
      return;
    }
    rec.Reserve(1, 2);
    rec.Transition(src, src_layout, r.srcSubresource.mipLevel, src_base, layers);
    rec.Transition(dst, dst_layout, r.dstSubresource.mipLevel, dst_base, layers);
    ImageDispatch job{pipeline, src_view, dst_view};
    job.blit = true;
    job.filter = filter;
    job.blit_params = p;
    job.groups = ImageGroups(p.units_x, p.extent[1], p.extent[2]);
    rec.Add(job);
  }
  rec.Flush();
  t.counters.image_kernels->Add();
}

// ---- resolves ---------------------------------------------------------------------------

// Why a resolve from `s` to `d` cannot run as a kernel; nullptr when it can: one plain colour
// format, a 2D multisampled source the kernel can sample (its own format, SAMPLED usage) and a
// single-sample destination it can store to (its own format, STORAGE usage), transfer
// layouts, the class proven on this driver.
const char* ResolveWhyNot(DeviceTransfers& t, const ImageInfo& s, VkImageLayout src_layout, const ImageInfo& d,
                          VkImageLayout dst_layout) {
  if (const char* why = FormatWhyNot(s)) return why;
  if (const char* why = FormatWhyNot(d)) return why;
  if (s.type != VK_IMAGE_TYPE_2D || d.type != VK_IMAGE_TYPE_2D || s.samples == VK_SAMPLE_COUNT_1_BIT ||
      d.samples != VK_SAMPLE_COUNT_1_BIT || s.format != d.format) {
    return kWhyShape;
  }
  if (!TransferLayout(src_layout, false) || !TransferLayout(dst_layout, true)) return kWhyLayout;
  if (!t.policy.ResolveProven(EncodingOf(s.format), s.samples)) return kWhyResolveClass;
  if (!s.resolve_reads || (d.usage & VK_IMAGE_USAGE_STORAGE_BIT) == 0) {
    return s.why_not != nullptr ? s.why_not : d.why_not != nullptr ? d.why_not : kWhyUnreachable;
  }
  const VkFormatFeatureFlags features = t.OptimalFeatures(s.format);
  if ((features & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT) == 0 || (features & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT) == 0) {
    return kWhyResolveFormat;
  }
  return nullptr;
}

// vkCmdResolveImage, any form: `region(i)` yields a VkImageResolve, `forward()` sends the
// call down as it was made.
template <typename RegionFn, typename Forward>
void ResolveCommon(DeviceTransfers& t, VkCommandBuffer cb, VkImage src, VkImageLayout src_layout, VkImage dst,
                   VkImageLayout dst_layout, uint32_t count, RegionFn&& region, Forward&& forward) {
  FlushIfCrossed(t, cb);
  ImageInfo* s = t.ImageKernelsPossible() ? t.images.images.Find(src) : nullptr;
  ImageInfo* d = s != nullptr ? t.images.images.Find(dst) : nullptr;
  if (d == nullptr) return forward();
  uint64_t bytes = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const VkImageResolve r = region(i);
    bytes += uint64_t{r.extent.width} * r.extent.height * LayerCount(*d, r.dstSubresource.baseArrayLayer, r.dstSubresource.layerCount) *
             std::max(d->described.texel_bytes, 1u);
  }
  if (bytes < t.policy.ImageKernelMin(ImageCommand::kResolve)) return forward();
  const char* why = ResolveWhyNot(t, *s, src_layout, *d, dst_layout);
  CommandState* state = why == nullptr ? KernelState(t, cb, &why) : nullptr;
  for (uint32_t i = 0; i < count && why == nullptr; ++i) {
    const VkImageResolve r = region(i);
    if (r.srcSubresource.aspectMask != VK_IMAGE_ASPECT_COLOR_BIT ||
        r.dstSubresource.aspectMask != VK_IMAGE_ASPECT_COLOR_BIT) {
      why = kWhyShape;
    }
  }
  const uint32_t pipeline = ImagePipelineIndex(ImageKernelKind::kResolve, 2, BlitKind(d->format));
  if (why == nullptr && !t.image_kernels.Ensure(pipeline)) why = kWhyPipeline;
  if (why != nullptr) return Native(t, why, forward);

  ImageRecorder rec(t, cb, *state);
  for (uint32_t i = 0; i < count; ++i) {
    const VkImageResolve r = region(i);
    const uint32_t src_base = r.srcSubresource.baseArrayLayer, dst_base = r.dstSubresource.baseArrayLayer;
    const uint32_t layers = LayerCount(*s, src_base, r.srcSubresource.layerCount);
    ImageRegion plan;
    plan.src[0] = r.srcOffset.x;
    plan.src[1] = r.srcOffset.y;
    plan.dst[0] = r.dstOffset.x;
    plan.dst[1] = r.dstOffset.y;
    plan.width = r.extent.width;
    plan.height = r.extent.height;
    plan.slices = layers;
    plan.texel_bytes = std::max(s->described.texel_bytes, 1u);
    plan.value[0] = static_cast<uint32_t>(s->samples);
    if (plan.width == 0 || plan.height == 0 || plan.slices == 0) continue;
    const VkImageView src_view = t.images.View(t, src, *s, {VK_IMAGE_USAGE_SAMPLED_BIT, 0, src_base, layers, true});
    const VkImageView dst_view =
        t.images.View(t, dst, *d, {VK_IMAGE_USAGE_STORAGE_BIT, r.dstSubresource.mipLevel, dst_base, layers, true});
    if (src_view == VK_NULL_HANDLE || dst_view == VK_NULL_HANDLE) {
      rec.Flush();
      t.NoteImageFallback(kWhyView);
      for (uint32_t j = i; j < count; ++j) {
        const VkImageResolve rest = region(j);
        t.next.CmdResolveImage(cb, src, src_layout, dst, dst_layout, 1, &rest);
      }
      t.counters.image_kernels->Add();
      return;
    }
    rec.Reserve(1, 2);
    rec.Transition(src, src_layout, 0, src_base, layers);
    rec.Transition(dst, dst_layout, r.dstSubresource.mipLevel, dst_base, layers);
    PlanImageDispatches(plan, [&](const ImageParams& params, uint32_t groups) {
      ImageDispatch job{pipeline, src_view, dst_view, params, groups};
      if (!rec.Add(job)) {
        rec.Flush();
        rec.Transition(src, src_layout, 0, src_base, layers);
        rec.Transition(dst, dst_layout, r.dstSubresource.mipLevel, dst_base, layers);
        rec.Add(job);
      }
    });
  }
  rec.Flush();
  t.counters.image_kernels->Add();
}

}  // namespace

// ---- the hooks ----------------------------------------------------------------------------

VKAPI_ATTR void VKAPI_CALL CmdResolveImage(VkCommandBuffer cb, VkImage src, VkImageLayout src_layout, VkImage dst,
                                           VkImageLayout dst_layout, uint32_t count, const VkImageResolve* regions) {
  DeviceTransfers* t = FindTransfers(cb);
  if (t == nullptr) return NextOf(cb).CmdResolveImage(cb, src, src_layout, dst, dst_layout, count, regions);
  ResolveCommon(
      *t, cb, src, src_layout, dst, dst_layout, count, [&](uint32_t i) { return regions[i]; },
      [&] { t->next.CmdResolveImage(cb, src, src_layout, dst, dst_layout, count, regions); });
}

template <typename Forward>
static void Resolve2Common(DeviceTransfers& t, VkCommandBuffer cb, const VkResolveImageInfo2* info,
                           Forward&& forward) {
  if (!PlainRegions(info)) {
    FlushIfCrossed(t, cb);
    return forward();
  }
  ResolveCommon(
      t, cb, info->srcImage, info->srcImageLayout, info->dstImage, info->dstImageLayout, info->regionCount,
      [&](uint32_t i) {
        const VkImageResolve2& r = info->pRegions[i];
        return VkImageResolve{r.srcSubresource, r.srcOffset, r.dstSubresource, r.dstOffset, r.extent};
      },
      forward);
}

VKAPI_ATTR void VKAPI_CALL CmdResolveImage2(VkCommandBuffer cb, const VkResolveImageInfo2* info) {
  DeviceTransfers* t = FindTransfers(cb);
  if (t == nullptr) return NextOf(cb).CmdResolveImage2(cb, info);
  Resolve2Common(*t, cb, info, [&] { t->next.CmdResolveImage2(cb, info); });
}

VKAPI_ATTR void VKAPI_CALL CmdResolveImage2KHR(VkCommandBuffer cb, const VkResolveImageInfo2* info) {
  DeviceTransfers* t = FindTransfers(cb);
  if (t == nullptr) return NextOf(cb).CmdResolveImage2KHR(cb, info);
  Resolve2Common(*t, cb, info, [&] { t->next.CmdResolveImage2KHR(cb, info); });
}

VKAPI_ATTR void VKAPI_CALL CmdBlitImage(VkCommandBuffer cb, VkImage src, VkImageLayout src_layout, VkImage dst,
                                        VkImageLayout dst_layout, uint32_t count, const VkImageBlit* regions,
                                        VkFilter filter) {
  DeviceTransfers* t = FindTransfers(cb);
  if (t == nullptr) return NextOf(cb).CmdBlitImage(cb, src, src_layout, dst, dst_layout, count, regions, filter);
  BlitCommon(
      *t, cb, src, src_layout, dst, dst_layout, count, [&](uint32_t i) { return regions[i]; }, filter,
      [&] { t->next.CmdBlitImage(cb, src, src_layout, dst, dst_layout, count, regions, filter); });
}

template <typename Forward>
static void Blit2Common(DeviceTransfers& t, VkCommandBuffer cb, const VkBlitImageInfo2* info, Forward&& forward) {
  if (!PlainRegions(info)) {
    FlushIfCrossed(t, cb);
    return forward();
  }
  BlitCommon(
      t, cb, info->srcImage, info->srcImageLayout, info->dstImage, info->dstImageLayout, info->regionCount,
      [&](uint32_t i) {
        const VkImageBlit2& r = info->pRegions[i];
        VkImageBlit b{};
        b.srcSubresource = r.srcSubresource;
        b.srcOffsets[0] = r.srcOffsets[0];
        b.srcOffsets[1] = r.srcOffsets[1];
        b.dstSubresource = r.dstSubresource;
        b.dstOffsets[0] = r.dstOffsets[0];
        b.dstOffsets[1] = r.dstOffsets[1];
        return b;
      },
      info->filter, forward);
}

VKAPI_ATTR void VKAPI_CALL CmdBlitImage2(VkCommandBuffer cb, const VkBlitImageInfo2* info) {
  DeviceTransfers* t = FindTransfers(cb);
  if (t == nullptr) return NextOf(cb).CmdBlitImage2(cb, info);
  Blit2Common(*t, cb, info, [&] { t->next.CmdBlitImage2(cb, info); });
}

VKAPI_ATTR void VKAPI_CALL CmdBlitImage2KHR(VkCommandBuffer cb, const VkBlitImageInfo2* info) {
  DeviceTransfers* t = FindTransfers(cb);
  if (t == nullptr) return NextOf(cb).CmdBlitImage2KHR(cb, info);
  Blit2Common(*t, cb, info, [&] { t->next.CmdBlitImage2KHR(cb, info); });
}

VKAPI_ATTR void VKAPI_CALL CmdCopyBufferToImage(VkCommandBuffer cb, VkBuffer src, VkImage dst, VkImageLayout layout,
                                                uint32_t count, const VkBufferImageCopy* regions) {
  DeviceTransfers* t = FindTransfers(cb);
  if (t == nullptr) return NextOf(cb).CmdCopyBufferToImage(cb, src, dst, layout, count, regions);
  BufferImageCommon(
      *t, cb, true, src, dst, layout, count, [&](uint32_t i) { return regions[i]; },
      [&] { t->next.CmdCopyBufferToImage(cb, src, dst, layout, count, regions); });
}

VKAPI_ATTR void VKAPI_CALL CmdCopyImageToBuffer(VkCommandBuffer cb, VkImage src, VkImageLayout layout, VkBuffer dst,
                                                uint32_t count, const VkBufferImageCopy* regions) {
  DeviceTransfers* t = FindTransfers(cb);
  if (t == nullptr) return NextOf(cb).CmdCopyImageToBuffer(cb, src, layout, dst, count, regions);
  BufferImageCommon(
      *t, cb, false, dst, src, layout, count, [&](uint32_t i) { return regions[i]; },
      [&] { t->next.CmdCopyImageToBuffer(cb, src, layout, dst, count, regions); });
}

template <typename Forward>
static void CopyBufferToImage2Common(DeviceTransfers& t, VkCommandBuffer cb, const VkCopyBufferToImageInfo2* info,
                                     Forward&& forward) {
  if (!PlainRegions(info)) {
    FlushIfCrossed(t, cb);
    return forward();
  }
  BufferImageCommon(
      t, cb, true, info->srcBuffer, info->dstImage, info->dstImageLayout, info->regionCount,
      [&](uint32_t i) { return FromCopy2(info->pRegions[i]); }, forward);
}

template <typename Forward>
static void CopyImageToBuffer2Common(DeviceTransfers& t, VkCommandBuffer cb, const VkCopyImageToBufferInfo2* info,
                                     Forward&& forward) {
  if (!PlainRegions(info)) {
    FlushIfCrossed(t, cb);
    return forward();
  }
  BufferImageCommon(
      t, cb, false, info->dstBuffer, info->srcImage, info->srcImageLayout, info->regionCount,
      [&](uint32_t i) { return FromCopy2(info->pRegions[i]); }, forward);
}

VKAPI_ATTR void VKAPI_CALL CmdCopyBufferToImage2(VkCommandBuffer cb, const VkCopyBufferToImageInfo2* info) {
  DeviceTransfers* t = FindTransfers(cb);
  if (t == nullptr) return NextOf(cb).CmdCopyBufferToImage2(cb, info);
  CopyBufferToImage2Common(*t, cb, info, [&] { t->next.CmdCopyBufferToImage2(cb, info); });
}

VKAPI_ATTR void VKAPI_CALL CmdCopyBufferToImage2KHR(VkCommandBuffer cb, const VkCopyBufferToImageInfo2* info) {
  DeviceTransfers* t = FindTransfers(cb);
  if (t == nullptr) return NextOf(cb).CmdCopyBufferToImage2KHR(cb, info);
  CopyBufferToImage2Common(*t, cb, info, [&] { t->next.CmdCopyBufferToImage2KHR(cb, info); });
}

VKAPI_ATTR void VKAPI_CALL CmdCopyImageToBuffer2(VkCommandBuffer cb, const VkCopyImageToBufferInfo2* info) {
  DeviceTransfers* t = FindTransfers(cb);
  if (t == nullptr) return NextOf(cb).CmdCopyImageToBuffer2(cb, info);
  CopyImageToBuffer2Common(*t, cb, info, [&] { t->next.CmdCopyImageToBuffer2(cb, info); });
}

VKAPI_ATTR void VKAPI_CALL CmdCopyImageToBuffer2KHR(VkCommandBuffer cb, const VkCopyImageToBufferInfo2* info) {
  DeviceTransfers* t = FindTransfers(cb);
  if (t == nullptr) return NextOf(cb).CmdCopyImageToBuffer2KHR(cb, info);
  CopyImageToBuffer2Common(*t, cb, info, [&] { t->next.CmdCopyImageToBuffer2KHR(cb, info); });
}

VKAPI_ATTR void VKAPI_CALL CmdCopyImage(VkCommandBuffer cb, VkImage src, VkImageLayout src_layout, VkImage dst,
                                        VkImageLayout dst_layout, uint32_t count, const VkImageCopy* regions) {
  DeviceTransfers* t = FindTransfers(cb);
  if (t == nullptr) return NextOf(cb).CmdCopyImage(cb, src, src_layout, dst, dst_layout, count, regions);
  CopyImageCommon(
      *t, cb, src, src_layout, dst, dst_layout, count, [&](uint32_t i) { return regions[i]; },
      [&] { t->next.CmdCopyImage(cb, src, src_layout, dst, dst_layout, count, regions); });
}

template <typename Forward>
static void CopyImage2Common(DeviceTransfers& t, VkCommandBuffer cb, const VkCopyImageInfo2* info,
                             Forward&& forward) {
  if (!PlainRegions(info)) {
    FlushIfCrossed(t, cb);
    return forward();
  }
  CopyImageCommon(
      t, cb, info->srcImage, info->srcImageLayout, info->dstImage, info->dstImageLayout, info->regionCount,
      [&](uint32_t i) {
        const VkImageCopy2& r = info->pRegions[i];
        return VkImageCopy{r.srcSubresource, r.srcOffset, r.dstSubresource, r.dstOffset, r.extent};
      },
      forward);
}

VKAPI_ATTR void VKAPI_CALL CmdCopyImage2(VkCommandBuffer cb, const VkCopyImageInfo2* info) {
  DeviceTransfers* t = FindTransfers(cb);
  if (t == nullptr) return NextOf(cb).CmdCopyImage2(cb, info);
  CopyImage2Common(*t, cb, info, [&] { t->next.CmdCopyImage2(cb, info); });
}

VKAPI_ATTR void VKAPI_CALL CmdCopyImage2KHR(VkCommandBuffer cb, const VkCopyImageInfo2* info) {
  DeviceTransfers* t = FindTransfers(cb);
  if (t == nullptr) return NextOf(cb).CmdCopyImage2KHR(cb, info);
  CopyImage2Common(*t, cb, info, [&] { t->next.CmdCopyImage2KHR(cb, info); });
}

VKAPI_ATTR void VKAPI_CALL CmdClearColorImage(VkCommandBuffer cb, VkImage image, VkImageLayout layout,
                                              const VkClearColorValue* color, uint32_t count,
                                              const VkImageSubresourceRange* ranges) {
  DeviceTransfers* t = FindTransfers(cb);
  if (t == nullptr) return NextOf(cb).CmdClearColorImage(cb, image, layout, color, count, ranges);
  ClearColorCommon(*t, cb, image, layout, color, count, ranges,
                   [&] { t->next.CmdClearColorImage(cb, image, layout, color, count, ranges); });
}

// ---- image creation ---------------------------------------------------------------------

VKAPI_ATTR VkResult VKAPI_CALL CreateImage(VkDevice device, const VkImageCreateInfo* info,
                                           const VkAllocationCallbacks* allocator, VkImage* image) {
  DeviceTransfers* t = FindTransfers(device);
  if (t == nullptr) return NextOf(device).CreateImage(device, info, allocator, image);
  ImageExtension extension;
  ExtendImage(*t, *info, extension);
  VkResult result = t->next.CreateImage(device, &extension.info, allocator, image);
  if (result != VK_SUCCESS && extension.changed) {
    // The driver refused what its format query allowed: the application's image, untouched.
    BINDERY_LOG(t->device.log(), kWarn, "transfer-images",
                "vkCreateImage refused the usage and flags image kernels need (format %d, result %d); the image is "
                "created as the application asked and takes the native paths",
                static_cast<int>(info->format), static_cast<int>(result));
    extension.changed = false;
    extension.why_not = "the driver refused the usage and flags kernels need";
    extension.info = *info;
    result = t->next.CreateImage(device, info, allocator, image);
  }
  if (result == VK_SUCCESS) t->images.Add(*image, extension.info, extension.changed, extension.why_not);
  return result;
}

VKAPI_ATTR void VKAPI_CALL DestroyImage(VkDevice device, VkImage image, const VkAllocationCallbacks* allocator) {
  DeviceTransfers* t = FindTransfers(device);
  if (t == nullptr) return NextOf(device).DestroyImage(device, image, allocator);
  if (image != VK_NULL_HANDLE) t->images.Remove(*t, image);
  t->next.DestroyImage(device, image, allocator);
}

// Requirements asked without an image must be those of the image the layer would create.
template <typename Next>
static void DeviceImageRequirements(VkDevice device, const VkDeviceImageMemoryRequirements* asked,
                                    VkMemoryRequirements2* requirements, Next&& next) {
  DeviceTransfers* t = FindTransfers(device);
  if (t == nullptr || asked == nullptr || asked->pCreateInfo == nullptr) return next(asked);
  ImageExtension extension;
  ExtendImage(*t, *asked->pCreateInfo, extension);
  if (!extension.changed) return next(asked);
  VkDeviceImageMemoryRequirements edited = *asked;
  edited.pCreateInfo = &extension.info;
  (void)requirements;
  next(&edited);
}

VKAPI_ATTR void VKAPI_CALL GetDeviceImageMemoryRequirements(VkDevice device,
                                                            const VkDeviceImageMemoryRequirements* info,
                                                            VkMemoryRequirements2* requirements) {
  DeviceImageRequirements(device, info, requirements, [&](const VkDeviceImageMemoryRequirements* i) {
    NextOf(device).GetDeviceImageMemoryRequirements(device, i, requirements);
  });
}

VKAPI_ATTR void VKAPI_CALL GetDeviceImageMemoryRequirementsKHR(VkDevice device,
                                                               const VkDeviceImageMemoryRequirements* info,
                                                               VkMemoryRequirements2* requirements) {
  DeviceImageRequirements(device, info, requirements, [&](const VkDeviceImageMemoryRequirements* i) {
    NextOf(device).GetDeviceImageMemoryRequirementsKHR(device, i, requirements);
  });
}

}  // namespace bindery::transfer
