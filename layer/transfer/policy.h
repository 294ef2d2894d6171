// Which path each transfer takes on a device: native commands, or compute kernels.
//
// The table in policy.cpp is keyed by driver and comes from measurements (bench/,
// docs/measured.md). `bindery.transfer_strategy` overrides it.
#pragma once

#include <cstdint>

#include <vulkan/vulkan.h>

#include "core/settings.h"
#include "transfer/image_formats.h"

namespace bindery::transfer {

// The image commands a kernel can stand in for (transfer/image_hooks.cpp).
enum class ImageCommand { kBufferToImage, kImageToBuffer, kImageToImage, kClear, kBlit, kResolve, kCount };
inline constexpr int kImageCommandCount = static_cast<int>(ImageCommand::kCount);

struct Policy {
  const char* name = "native";
  // Copies whose kernel-eligible middle is at least this many bytes go to a kernel;
  // UINT64_MAX means never. Separate thresholds for copies the driver handles in its
  // fast path (source, destination and size 4-byte aligned) and the rest.
  uint64_t copy_kernel_min_aligned = UINT64_MAX;
  uint64_t copy_kernel_min_unaligned = UINT64_MAX;
  // A copy with at least this many regions of at most copy_batch_max_region bytes copies
  // them in one dispatch (shaders/copy_regions.comp) instead of region by region.
  uint32_t copy_batch_min_regions = UINT32_MAX;
  uint64_t copy_batch_max_region = 64 * 1024;
  // Unaligned fills and updates of at most this many bytes are queued and written
  // together by one batched dispatch at the command buffer's next flush point
  // (transfer/coalesced_writes.h); 0: never.
  uint64_t small_write_max = 0;
  // A flush of at least this many queued writes uses the batched dispatch; fewer are copied
  // from staging. On NVIDIA a dispatch with its barriers costs more than one or two copies.
  uint32_t small_write_kernel_min = UINT32_MAX;
  // Fills whose middle is at least this many bytes use the fill kernel.
  uint64_t fill_kernel_min = UINT64_MAX;
  // The native fill's middle starts and ends at multiples of this (the rest comes from
  // staging): some drivers fill at full speed only from well-aligned offsets.
  uint64_t fill_native_alignment = 4;
  // Fills at least this large whose offset or size is not a multiple of
  // fill_native_alignment are split that way even when the driver would take them.
  uint64_t fill_realign_min = UINT64_MAX;

  // Unaligned fills at least this large write their byte-granular edges with one
  // batched-regions dispatch (from staging) recorded beside the middle, instead of a copy
  // from staging: NVIDIA's copy engine takes ~1.4 us per region, which a long fill's middle
  // does not hide, while the dispatch runs beside the middle fill. UINT64_MAX: never.
  uint64_t fill_edge_kernel_min = UINT64_MAX;
  // Where that dispatch goes relative to the native middle fill: before it or after it in
  // one barrier bracket, or after it in a bracket of its own (`bindery.fill_edges`).
  enum class EdgeOrder { kKernelFirst, kKernelLast, kKernelAfter };
  EdgeOrder fill_edge_order = EdgeOrder::kKernelFirst;

  // Buffers at least this large get a device address (the chassis adds the usage and the
  // memory flag) so kernels can reach them; smaller ones stay exactly as the application
  // made them and always take the native paths. Only meaningful when UsesKernels().
  uint64_t address_min_buffer_size = 0;

  // Whether the layer must record the application's push constants and push them again
  // after its kernels. The kernels take no push constants, and Vulkan says binding a
  // pipeline whose layout is not push-constant compatible "does not disturb the push
  // constant values", so a conformant driver needs nothing; lavapipe in Mesa 22.3 does
  // not keep them (it folds push constants into the shader at the next dispatch, and a
  // dispatch of another pipeline in between consumes the update: the application's next
  // dispatch reads zeros). Replaying costs a hook on every vkCmdPushConstants, so only
  // drivers shown to keep the values (TransferPushFree tests) go without it.
  bool replay_pushes = true;

  // Image transfers (transfer/image_hooks.cpp): a command whose regions write at least this
  // many texel bytes in all runs as kernels (raw views of the images); UINT64_MAX: never.
  uint64_t image_kernel_min[kImageCommandCount] = {UINT64_MAX, UINT64_MAX, UINT64_MAX,
                                                  UINT64_MAX, UINT64_MAX, UINT64_MAX};
  // Images of at least this many bytes (all layers of mip 0) get, at vkCreateImage, the
  // usage and flags a kernel needs to reach them (transfer/images.h); smaller ones stay as
  // the application made them. Derived from image_kernel_min (the smallest of them) unless
  // set lower.
  uint64_t image_extend_min = UINT64_MAX;

  // Blits run as kernels only for the (source encoding, destination encoding, filter)
  // classes proven on this driver to give the native command's bytes (bit d of
  // blit_proven[filter][source] for destination encoding d; tests/integration's
  // TransferImageBlitProof finds them), or for every class under `image_blits=all`.
  uint16_t blit_proven[2][kEncodingCount] = {};
  bool blits_unproven = false;
  bool BlitProven(Encoding src, Encoding dst, VkFilter filter) const {
    if (blits_unproven) return true;
    const int f = filter == VK_FILTER_LINEAR ? 1 : filter == VK_FILTER_NEAREST ? 0 : -1;
    return f >= 0 && (blit_proven[f][static_cast<int>(src)] >> static_cast<int>(dst) & 1u) != 0;
  }

  // Resolves likewise: a resolve's averaging and rounding are the implementation's, so one
  // runs as a kernel only for the (format encoding, sample count) classes proven on this
  // driver to give the native bytes (bit e of resolve_proven[log2(samples) - 1] for
  // encoding e; TransferImageResolveProof finds them), or for every class under
  // `image_resolves=all`.
  uint16_t resolve_proven[4] = {};  // 2, 4, 8, 16 samples
  bool resolves_unproven = false;
  // A resolve kernel reads its multisampled source through a sampled view, so the source
  // needs the SAMPLED usage the layer adds at vkCreateImage. A driver may store a sampled
  // multisampled colour target differently (its colour compression), so the usage is added
  // only where rendering into a 4x target (draws and load-op clears) measured no different
  // with it (bindery_probe image/msaa rows), or under `image_resolves=all` (measurement).
  // Without it no multisampled image is extended and every resolve stays the driver's,
  // whatever the proven classes.
  bool multisampled_sampled_measured = false;
  bool ExtendsMultisampled(Encoding encoding, VkSampleCountFlagBits samples) const {
    return multisampled_sampled_measured && ResolveProven(encoding, samples);
  }
  bool ResolveProven(Encoding encoding, VkSampleCountFlagBits samples) const {
    if (resolves_unproven) return true;
    const int row = samples == VK_SAMPLE_COUNT_2_BIT   ? 0
                    : samples == VK_SAMPLE_COUNT_4_BIT ? 1
                    : samples == VK_SAMPLE_COUNT_8_BIT ? 2
                    : samples == VK_SAMPLE_COUNT_16_BIT ? 3
                                                        : -1;
    return row >= 0 && (resolve_proven[row] >> static_cast<int>(encoding) & 1u) != 0;
  }
  // Whether any resolve may run as a kernel (multisampled images then get SAMPLED usage at
  // creation where they may be extended).
  bool UsesResolveKernels() const {
    if (image_kernel_min[static_cast<int>(ImageCommand::kResolve)] == UINT64_MAX) return false;
    if (resolves_unproven) return true;
    for (uint16_t row : resolve_proven) {
      if (row != 0) return true;
    }
    return false;
  }

  bool UsesImageKernels() const {
    for (uint64_t m : image_kernel_min) {
      if (m != UINT64_MAX) return true;
    }
    return false;
  }
  uint64_t ImageKernelMin(ImageCommand command) const { return image_kernel_min[static_cast<int>(command)]; }

  bool UsesKernels() const {
    return copy_kernel_min_aligned != UINT64_MAX || copy_kernel_min_unaligned != UINT64_MAX ||
           fill_kernel_min != UINT64_MAX || copy_batch_min_regions != UINT32_MAX ||
           fill_edge_kernel_min != UINT64_MAX || UsesImageKernels();
  }
  uint64_t CopyThreshold(bool aligned) const { return aligned ? copy_kernel_min_aligned : copy_kernel_min_unaligned; }
};

// vendor_id / driver_id from VkPhysicalDeviceProperties / VkPhysicalDeviceDriverProperties
// (driver_id 0 when unknown).
Policy ChoosePolicy(uint32_t vendor_id, VkDriverId driver_id, TransferStrategy strategy);

// Applies `bindery.image_blits` (anything but auto) to a chosen policy.
void ApplyImageBlits(ImageBlits blits, Policy& policy);

// Applies `bindery.image_resolves` (anything but auto) to a chosen policy.
void ApplyImageResolves(ImageBlits resolves, Policy& policy);

// Applies `bindery.fill_edges` (anything but auto) to a chosen policy.
void ApplyFillEdges(FillEdges edges, Policy& policy);

}  // namespace bindery::transfer
