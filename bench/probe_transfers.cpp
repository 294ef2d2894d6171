// transfer/* workloads of bindery_probe: GPU time (timestamps) of 1000 small fills or
// updates recorded back to back (each to its own 128-byte slot, aligned 64-byte and
// unaligned 63-byte at offset + 1), and of one 64 MiB fill, aligned and unaligned.
#include <cstring>

#include "probe_workloads.h"

namespace bindery::bench {
namespace {

constexpr uint32_t kSmall = 1000;
constexpr VkDeviceSize kSlot = 128;
constexpr int kSamples = 9;

// After one warm-up run (which also checks that timestamps work).
template <typename Fn>
double GpuNsOf(ProbeDevice& d, Fn&& body) {
  return MedianGpuNs(d, body, 1, kSamples);
}

}  // namespace

std::vector<ProbeResult> RunTransferProbes(ProbeDevice& d) {
  std::vector<ProbeResult> out;
  const ProbeFns& fn = d.fn();
  DeviceBuffer small = d.CreateBuffer(kSmall * kSlot + 256);
  const VkDeviceSize big_size = 64ull << 20;
  DeviceBuffer big = d.CreateBuffer(big_size + 256);
  if (small.buffer == VK_NULL_HANDLE || big.buffer == VK_NULL_HANDLE) return out;
  uint8_t bytes[64];
  for (uint32_t i = 0; i < sizeof(bytes); ++i) bytes[i] = static_cast<uint8_t>(i * 7 + 1);
  auto add = [&](const char* row, const char* unit, double value) {
    if (value >= 0) out.push_back({row, unit, value});
  };
  auto fills = [&](VkDeviceSize skew, VkDeviceSize size) {
    return [&fn, &small, skew, size](VkCommandBuffer cb) {
      for (uint32_t i = 0; i < kSmall; ++i) fn.CmdFillBuffer(cb, small.buffer, i * kSlot + skew, size, 0x01020304u);
      return true;
    };
  };
  auto updates = [&](VkDeviceSize skew, VkDeviceSize size) {
    return [&fn, &small, &bytes, skew, size](VkCommandBuffer cb) {
      for (uint32_t i = 0; i < kSmall; ++i) fn.CmdUpdateBuffer(cb, small.buffer, i * kSlot + skew, size, bytes);
      return true;
    };
  };
  add("transfer/fill 64 B aligned x1000 (GPU)", "ns/cmd", GpuNsOf(d, fills(0, 64)) / kSmall);
  // Unaligned commands are invalid without the layer: those rows compare with the
  // driver's aligned ones (scripts/bench-compare's baselines).
  if (d.bindery()) add("transfer/fill 63 B at +1 x1000 (GPU)", "ns/cmd", GpuNsOf(d, fills(1, 63)) / kSmall);
  add("transfer/update 64 B aligned x1000 (GPU)", "ns/cmd", GpuNsOf(d, updates(0, 64)) / kSmall);
  if (d.bindery()) add("transfer/update 63 B at +1 x1000 (GPU)", "ns/cmd", GpuNsOf(d, updates(1, 63)) / kSmall);
  // The same small writes each followed by a barrier (an application that orders every
  // write before the next command): nothing recorded back to back for the layer to batch.
  auto fills_ordered = [&](VkDeviceSize skew, VkDeviceSize size) {
    return [&fn, &small, skew, size](VkCommandBuffer cb) {
      VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
      barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
      barrier.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
      for (uint32_t i = 0; i < kSmall; ++i) {
        fn.CmdFillBuffer(cb, small.buffer, i * kSlot + skew, size, 0x01020304u);
        fn.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &barrier, 0,
                              nullptr, 0, nullptr);
      }
      return true;
    };
  };
  add("transfer/fill 64 B aligned + barrier x1000 (GPU)", "ns/cmd", GpuNsOf(d, fills_ordered(0, 64)) / kSmall);
  if (d.bindery()) {
    add("transfer/fill 63 B at +1 + barrier x1000 (GPU)", "ns/cmd", GpuNsOf(d, fills_ordered(1, 63)) / kSmall);
  }
  // The same for updates: NVIDIA's update waits for its barrier like a copy does, so the
  // driver's aligned reference is not the back-to-back figure.
  auto updates_ordered = [&](VkDeviceSize skew, VkDeviceSize size) {
    return [&fn, &small, &bytes, skew, size](VkCommandBuffer cb) {
      VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
      barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
      barrier.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
      for (uint32_t i = 0; i < kSmall; ++i) {
        fn.CmdUpdateBuffer(cb, small.buffer, i * kSlot + skew, size, bytes);
        fn.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &barrier, 0,
                              nullptr, 0, nullptr);
      }
      return true;
    };
  };
  add("transfer/update 64 B aligned + barrier x1000 (GPU)", "ns/cmd", GpuNsOf(d, updates_ordered(0, 64)) / kSmall);
  if (d.bindery()) {
    add("transfer/update 63 B at +1 + barrier x1000 (GPU)", "ns/cmd", GpuNsOf(d, updates_ordered(1, 63)) / kSmall);
  }
  add("transfer/fill 64 MiB aligned (GPU)", "us", GpuNsOf(d, [&](VkCommandBuffer cb) {
        fn.CmdFillBuffer(cb, big.buffer, 0, big_size, 0x01020304u);
        return true;
      }) / 1000);
  if (d.bindery()) {
    add("transfer/fill 64 MiB at +1, size - 2 (GPU)", "us", GpuNsOf(d, [&](VkCommandBuffer cb) {
          fn.CmdFillBuffer(cb, big.buffer, 1, big_size - 2, 0x01020304u);
          return true;
        }) / 1000);
  }
  d.Destroy(small);
  d.Destroy(big);
  return out;
}

}  // namespace bindery::bench
