#include "transfer/policy.h"

#include <initializer_list>

namespace bindery::transfer {

namespace {

bool IsNvidiaProprietary(uint32_t vendor_id, VkDriverId driver_id) {
  return driver_id == VK_DRIVER_ID_NVIDIA_PROPRIETARY || (driver_id == 0 && vendor_id == 0x10DE);
}

void Prove(Policy& p, VkFilter filter, Encoding src, std::initializer_list<Encoding> dsts) {
  for (Encoding dst : dsts) {
    p.blit_proven[filter == VK_FILTER_LINEAR ? 1 : 0][static_cast<int>(src)] |=
        static_cast<uint16_t>(1u << static_cast<int>(dst));
  }
}

// The blit classes measured to give the driver's own bytes (TransferImageBlitProof: every
// case of the class, downscales by 2 and 3, a non-integer upscale, mirrored and offset
// regions, across layers and mips).
void ProvenBlits(uint32_t vendor_id, VkDriverId driver_id, Policy& p) {
  if (driver_id == VK_DRIVER_ID_MESA_LLVMPIPE) {
    // lavapipe (Mesa 22.3): linear filtering of 8-bit unsigned normalized sources, whose
    // weights llvmpipe quantizes alike in its blitter and in a kernel's sampler. Nearest
    // differs where a sample falls on a texel edge (the blitter interpolates coordinates
    // across a quad), and wider or float formats differ in their filter's arithmetic. Into
    // float16 the region's bytes match too, but lavapipe's blit also rewrites the texels
    // around the region that share its tiles, through float: a NaN there comes back quiet
    // (0x7da6 -> 0x7fa6; the API fuzzer's seed 390). The kernel leaves them alone, as the
    // spec says, which is not lavapipe's bytes: only UNORM8 destinations (exact round trip).
    Prove(p, VK_FILTER_LINEAR, Encoding::kUnorm8, {Encoding::kUnorm8});
  }
  if (IsNvidiaProprietary(vendor_id, driver_id)) {
    // H100, driver 580.159.04, 2026-12-07 (scripts/gpu-issue31-checks, docs/transfers.md):
    // every linear class of the proof gives the driver's bytes, 4 of 4 cases each. Nearest
    // differs in 2:1 downscales, whose samples fall exactly on texel edges (the driver picks
    // the other texel), so nearest stays native.
    Prove(p, VK_FILTER_LINEAR, Encoding::kUnorm8, {Encoding::kUnorm8, Encoding::kFloat16});
    Prove(p, VK_FILTER_LINEAR, Encoding::kSrgb8, {Encoding::kUnorm8});
    Prove(p, VK_FILTER_LINEAR, Encoding::kSnorm8, {Encoding::kSnorm8});
    Prove(p, VK_FILTER_LINEAR, Encoding::kUnorm16, {Encoding::kUnorm16});
    Prove(p, VK_FILTER_LINEAR, Encoding::kFloat16, {Encoding::kUnorm8, Encoding::kFloat16});
    Prove(p, VK_FILTER_LINEAR, Encoding::kFloat32, {Encoding::kFloat32});
  }
}

// The resolve classes measured to give the driver's own bytes
// (TransferImageResolveProof: every case of the class — whole images, offset and partial
// regions, layers, a destination mip — against the driver's resolve).
void ProvenResolves(uint32_t vendor_id, VkDriverId driver_id, Policy& p) {
  (void)vendor_id;
  if (driver_id == VK_DRIVER_ID_MESA_LLVMPIPE) {
    // lavapipe (Mesa 22.3), 4 samples (its only multisample count), 2026-12-07: its resolve
    // averages in float as the kernel does, and takes sample 0 of integer formats. float16
    // differs only around a region: like its blit, lavapipe's resolve rewrites the texels
    // sharing the region's tiles through float, quieting NaNs the kernel leaves alone (sRGB
    // has no storage view: native whatever the table says).
    for (Encoding e : {Encoding::kUnorm8, Encoding::kSnorm8, Encoding::kUnorm16, Encoding::kFloat32, Encoding::kUint,
                       Encoding::kSint}) {
      p.resolve_proven[1] |= static_cast<uint16_t>(1u << static_cast<int>(e));
    }
  }
  // NVIDIA (H100, driver 580.159.04, 2026-12-07, scripts/gpu-issue31-resolve): the kernel
  // gives the driver's bytes only for SNORM8 (2x, 4x, 8x) and the integer classes at 2x; UNORM8,
  // UNORM16, float16 and float32 round one unit apart at every count and integer 4x/8x take
  // another sample than 0 (docs/transfers.md). Those few classes are not entered: they would
  // also need the image/msaa rows measured on NVIDIA (multisampled_sampled_measured), so its
  // resolves stay the driver's.
}

// Whether rendering into a multisampled colour target measured no different with the SAMPLED
// usage a resolve kernel's source gets (bindery_probe image/msaa rows: a 4x R8G8B8A8 target
// as the application creates it and with SAMPLED, four full-screen draws and four load-op
// clears, native vs transfers=force, docs/transfers.md). Only then may a proven resolve class
// run as a kernel.
bool MultisampledSampledMeasured(uint32_t vendor_id, VkDriverId driver_id) {
  (void)vendor_id;
  // lavapipe (Mesa 22.3), 2026-12-07: no difference at 1024^2 and 2048^2.
  if (driver_id == VK_DRIVER_ID_MESA_LLVMPIPE) return true;
  // NVIDIA: not measured yet (scripts/gpu-issue31-resolve runs the rows on the H100). A
  // sampled multisampled target may lose colour compression there, so its resolve classes
  // are entered in ProvenResolves only if the proof matches and these rows show no
  // difference, and this answer turns true with them.
  return false;
}

}  // namespace

Policy ChoosePolicy(uint32_t vendor_id, VkDriverId driver_id, TransferStrategy strategy) {
  Policy p;
  // NVIDIA keeps push constants across a bind of the kernels' pipeline, as the spec says
  // (Policy::replay_pushes); every other driver has them replayed until shown to keep them.
  p.replay_pushes = !IsNvidiaProprietary(vendor_id, driver_id);
  p.multisampled_sampled_measured = MultisampledSampledMeasured(vendor_id, driver_id);
  switch (strategy) {
    case TransferStrategy::kNvidia: {
      // NVIDIA's row on this device (tests of the default mode NVIDIA users get, on
      // lavapipe); whether pushes are replayed stays this driver's answer (lavapipe loses them).
      Policy n = ChoosePolicy(0x10DE, VK_DRIVER_ID_NVIDIA_PROPRIETARY, TransferStrategy::kAuto);
      n.name = "nvidia (setting)";
      n.replay_pushes = p.replay_pushes;
      // And so are the blit classes proven to give this driver's bytes.
      for (auto& row : n.blit_proven) {
        for (uint16_t& classes : row) classes = 0;
      }
      ProvenBlits(vendor_id, driver_id, n);
      for (uint16_t& classes : n.resolve_proven) classes = 0;
      ProvenResolves(vendor_id, driver_id, n);
      // But whether SAMPLED may be added to multisampled images stays NVIDIA's answer (a cost
      // measured on its hardware, like its thresholds): no resolve kernels until it is.
      return n;
    }
    case TransferStrategy::kNative:
      p.name = "native (setting)";
      return p;
    case TransferStrategy::kCompute:
      // Kernels for every middle of at least one 16-byte block.
      p.name = "compute (setting)";
      p.copy_kernel_min_aligned = 16;
      p.copy_kernel_min_unaligned = 16;
      p.fill_kernel_min = 16;
      p.copy_batch_min_regions = 2;
      p.small_write_max = 4096;
      // Even a single queued write as a dispatch: what one tiny kernel per write costs
      // where each write is ordered by a barrier (bench row "fill 63 B at +1 + barrier").
      p.small_write_kernel_min = 1;
      p.fill_edge_kernel_min = 16;
      // Image kernels for every command they can stand in for, blits excepted: a blit's
      // filtering is the driver's, and the kernel runs only where it is proven to give the
      // native bytes (none yet).
      for (ImageCommand c : {ImageCommand::kBufferToImage, ImageCommand::kImageToBuffer, ImageCommand::kImageToImage,
                             ImageCommand::kClear}) {
        p.image_kernel_min[static_cast<int>(c)] = 1;
      }
      p.image_kernel_min[static_cast<int>(ImageCommand::kBlit)] = 1;
      ProvenBlits(vendor_id, driver_id, p);
      // Resolves likewise, where proven (ProvenResolves).
      p.image_kernel_min[static_cast<int>(ImageCommand::kResolve)] = 1;
      ProvenResolves(vendor_id, driver_id, p);
      p.image_extend_min = 1;
      return p;
    case TransferStrategy::kAuto:
      break;
  }
  // NVIDIA's proprietary driver: vkCmdCopyBuffer is far below memory bandwidth, while
  // vkCmdFillBuffer is at bandwidth from well-aligned offsets only. Measured with bench/
  // on an H200, driver 580.159.04, 2026-11-21 (docs/measured.md, "Transfers"; the H100 baseline
  // there shows the same shape): 1 GiB copy 850 GB/s aligned and 53 GB/s src+1/dst+3
  // natively, ~4000 GB/s as a kernel; at 1 MiB the kernel is ahead for aligned copies
  // (168 vs 149 GB/s) and far ahead for unaligned ones (165 vs 30 GB/s), at 64 KiB behind
  // (the dispatch and its two barriers cost more than the copy). A fill whose middle starts
  // 4-byte but not 256-byte aligned runs at ~1630 GB/s instead of ~4350 GB/s: realigning
  // the native middle to 256 bytes (edges from staging) restores full speed, and beats
  // the fill kernel (~4030 GB/s).
  if (IsNvidiaProprietary(vendor_id, driver_id)) {
    p.name = "nvidia: compute copies";
    p.copy_kernel_min_aligned = 1ull << 20;
    p.copy_kernel_min_unaligned = 64ull << 10;
    // Its copy engine also takes ~1.4 us per region (H100: 1000 regions of 63 B in one
    // vkCmdCopyBuffer, 1.37 ms), so small regions are batched into one dispatch.
    p.copy_batch_min_regions = 4;
    // A 63-byte unaligned fill or update from staging is one such copy (~2.7 us of GPU
    // time against ~14 ns for the driver's aligned 64-byte fill): small ones recorded back
    // to back are queued and written by one batched dispatch (transfer/coalesced_writes.h);
    // fewer than copy_batch_min_regions still go as copies.
    p.small_write_max = 4096;
    p.small_write_kernel_min = p.copy_batch_min_regions;
    p.fill_native_alignment = 256;
    p.fill_realign_min = 1ull << 20;
    // The byte edges of such a realigned fill (at most 255 bytes each side) were one copy of
    // two regions, ~2.8 us that the 64 MiB fill (~24.6 us) did not hide (1.11x its time):
    // one batched-regions dispatch beside the middle fill writes them instead.
    p.fill_edge_kernel_min = 1ull << 20;
    // The dispatch goes before the middle fill inside the bracket: after it costs 1.6 us
    // more, after it in a bracket of its own 2.5 us more (H100, scripts/gpu-fill-probe). What
    // is left over the aligned fill (~1.6 us of 24.6) is the bracket's leading TRANSFER ->
    // COMPUTE barrier (~1.2 us), which the driver drains the queue for.
    p.fill_edge_order = Policy::EdgeOrder::kKernelFirst;
    // No kernel runs on a buffer below the smallest copy threshold, so smaller buffers
    // need no address (which also keeps the usage and memory flag off the many small
    // buffers applications fill and copy; docs/measured.md, "Pass-through costs nothing"). Batches of small regions are
    // taken where both buffers are at least this large.
    p.address_min_buffer_size = 64ull << 10;
    // Image copies and clears: the driver's commands run at 189 GB/s (buffer -> image) down
    // to ~13 GB/s (clears) where a compute kernel through raw views reaches ~2 TB/s.
    // scripts/gpu-bench-images' sweep (H100, driver 580.159.04, 2026-12-07, docs/measured.md):
    // the kernel is faster at every size measured, from 512^2 R8G8B8A8 (1 MiB: upload and
    // readback 13.7 -> 7.5 us, image copy 24.3 -> 7.5, clear 21.4 -> 7.2) to 8192^2 (9x to
    // 31x); below 1 MiB nothing is measured, so kernels from 1 MiB written per command.
    // Images of 1 MiB and more are extended at creation: sampling them and rendering to them
    // measured no different with the added flags (the sample and render rows, 512^2..8192^2).
    for (ImageCommand c : {ImageCommand::kBufferToImage, ImageCommand::kImageToBuffer, ImageCommand::kImageToImage,
                           ImageCommand::kClear}) {
      p.image_kernel_min[static_cast<int>(c)] = 1ull << 20;
    }
    // Blits: linear ones of the classes proven byte-exact on this driver (ProvenBlits), from
    // 4 MiB written. The driver's linear blit runs at ~1.3 bytes/ns read (bench image rows:
    // 2048^2 -> 1024^2 80 us, 8192^2 -> 4096^2 1224 us); a compute blit on the same H100
    // took 141 us against 2260 us at 8192^2 -> 4096^2 (issue 31's probe, identical bytes).
    // This kernel's own blit row on the H100 is still to be measured (docs/transfers.md), so
    // the threshold sits where even a kernel at a quarter of the copies' bandwidth is ahead.
    p.image_kernel_min[static_cast<int>(ImageCommand::kBlit)] = 4ull << 20;
    ProvenBlits(vendor_id, driver_id, p);
    // Resolves: the driver's 4x resolve of a 4096^2 R8G8B8A8_UNORM image takes 1232 us
    // (~0.26 TB/s read, issue 31), where the copy kernels move ~1.3 TB/s. From 1 MiB written,
    // as copies, for the classes proven on this driver (ProvenResolves: none yet).
    p.image_kernel_min[static_cast<int>(ImageCommand::kResolve)] = 1ull << 20;
    ProvenResolves(vendor_id, driver_id, p);
    p.image_extend_min = 1ull << 20;
    return p;
  }
  // lavapipe and every device not measured yet: native commands, which are the fastest
  // path on lavapipe (native fill ~19 GB/s vs 2.2 GB/s for a compute fill) and the safe
  // default elsewhere. Unaligned fills/updates still get the edge polyfill.
  p.name = "native (default)";
  return p;
}

void ApplyImageBlits(ImageBlits blits, Policy& p) {
  switch (blits) {
    case ImageBlits::kAuto:
      return;
    case ImageBlits::kOff:
      p.image_kernel_min[static_cast<int>(ImageCommand::kBlit)] = UINT64_MAX;
      return;
    case ImageBlits::kAll:
      // Measurement and the proof tests: every blit a kernel can take, wherever the policy
      // runs blits (the compute strategy: all sizes).
      p.blits_unproven = true;
      return;
  }
}

void ApplyImageResolves(ImageBlits resolves, Policy& p) {
  switch (resolves) {
    case ImageBlits::kAuto:
      return;
    case ImageBlits::kOff:
      p.image_kernel_min[static_cast<int>(ImageCommand::kResolve)] = UINT64_MAX;
      return;
    case ImageBlits::kAll:
      // Measurement and the proof tests: every resolve a kernel can take, wherever the
      // policy runs resolves (its sources get SAMPLED: what the image/msaa rows measure).
      p.resolves_unproven = true;
      p.multisampled_sampled_measured = true;
      return;
  }
}

void ApplyFillEdges(FillEdges edges, Policy& p) {
  switch (edges) {
    case FillEdges::kAuto:
      return;
    case FillEdges::kCopy:
      p.fill_edge_kernel_min = UINT64_MAX;
      return;
    case FillEdges::kKernelFirst:
      p.fill_edge_order = Policy::EdgeOrder::kKernelFirst;
      break;
    case FillEdges::kKernelLast:
      p.fill_edge_order = Policy::EdgeOrder::kKernelLast;
      break;
    case FillEdges::kKernelAfter:
      p.fill_edge_order = Policy::EdgeOrder::kKernelAfter;
      break;
  }
  // A kernel order asks for NVIDIA's shape wherever kernels run, so the orders can be
  // compared (and tested) on any device: the middle realigned and filled natively, the
  // byte edges by the dispatch.
  p.fill_kernel_min = UINT64_MAX;
  p.fill_native_alignment = 256;
  p.fill_realign_min = 1ull << 20;
  p.fill_edge_kernel_min = 1ull << 20;
}

}  // namespace bindery::transfer
