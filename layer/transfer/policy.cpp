#include "transfer/policy.h"

namespace bindery::transfer {

Policy ChoosePolicy(uint32_t vendor_id, VkDriverId driver_id, TransferStrategy strategy) {
  Policy p;
  switch (strategy) {
    case TransferStrategy::kNative:
      p.name = "native (setting)";
      return p;
    case TransferStrategy::kCompute:
      // Kernels for every middle of at least one 16-byte block.
      p.name = "compute (setting)";
      p.copy_kernel_min_aligned = 16;
      p.copy_kernel_min_unaligned = 16;
      p.fill_kernel_min = 16;
      return p;
    case TransferStrategy::kAuto:
      break;
  }
  // NVIDIA's proprietary driver: vkCmdCopyBuffer is far below memory bandwidth (H100,
  // 2026-11-21: 850 GB/s aligned, 53 GB/s with src+1/dst+3, vs ~2980 GB/s for a compute
  // copy), while vkCmdFillBuffer is already at bandwidth. Thresholds from bench/ on the
  // H100 (README "Transfers"): below them the dispatch and its two barriers cost more than
  // the native command.
  if (driver_id == VK_DRIVER_ID_NVIDIA_PROPRIETARY || (driver_id == 0 && vendor_id == 0x10DE)) {
    p.name = "nvidia: compute copies";
    p.copy_kernel_min_aligned = 1ull << 20;
    p.copy_kernel_min_unaligned = 64ull << 10;
    return p;
  }
  // lavapipe and every device not measured yet: native commands, which are the fastest
  // path on lavapipe (native fill ~19 GB/s vs 2.2 GB/s for a compute fill) and the safe
  // default elsewhere. Unaligned fills/updates still get the edge polyfill.
  p.name = "native (default)";
  return p;
}

}  // namespace bindery::transfer
