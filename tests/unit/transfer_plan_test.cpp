#include "transfer/plan.h"
#include "transfer/policy.h"
#include "transfer/staging.h"
#include "transfer/transfer_device.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace bindery::transfer {
namespace {

TEST(TransferPlan, FillByteAtFollowsThePatternFromTheFillStart) {
  const uint32_t data = 0x44332211;
  EXPECT_EQ(FillByteAt(data, 5, 5), 0x11);
  EXPECT_EQ(FillByteAt(data, 5, 6), 0x22);
  EXPECT_EQ(FillByteAt(data, 5, 8), 0x44);
  EXPECT_EQ(FillByteAt(data, 5, 9), 0x11);
}

TEST(TransferPlan, RotatedPatternContinuesTheFillAtEveryPhase) {
  const uint32_t data = 0x44332211;
  for (uint64_t start = 0; start < 8; ++start) {
    for (uint64_t at = start; at < start + 8; ++at) {
      const uint32_t word = RotatedPattern(data, start, at);
      for (int k = 0; k < 4; ++k) {
        EXPECT_EQ(static_cast<uint8_t>(word >> (8 * k)), FillByteAt(data, start, at + k))
            << "start " << start << " at " << at << " byte " << k;
      }
    }
  }
}

TEST(TransferPlan, SplitAlignedCoversTheRangeExactlyOnce) {
  for (uint64_t alignment : {4u, 16u}) {
    for (uint64_t bias : {0u, 8u, 4096u}) {
      for (uint64_t offset = 0; offset < 40; ++offset) {
        for (uint64_t size = 0; size < 70; ++size) {
          const Split s = SplitAligned({offset, size}, alignment, bias);
          EXPECT_EQ(s.head.size + s.middle.size + s.tail.size, size);
          EXPECT_EQ(s.head.offset, offset);
          if (!s.middle.empty()) {
            EXPECT_EQ(s.head.end(), s.middle.offset);
            EXPECT_EQ(s.middle.end(), s.tail.offset);
            EXPECT_EQ((bias + s.middle.offset) % alignment, 0u);
            EXPECT_EQ(s.middle.size % alignment, 0u);
            EXPECT_LT(s.head.size, alignment);
            EXPECT_LT(s.tail.size, alignment);
          } else {
            EXPECT_TRUE(s.tail.empty());
          }
        }
      }
    }
  }
}

TEST(TransferPlan, NativeRulesMatchTheSpec) {
  EXPECT_TRUE(NativeFillAllowed(0, 4));
  EXPECT_FALSE(NativeFillAllowed(1, 4));
  EXPECT_FALSE(NativeFillAllowed(0, 6));
  EXPECT_FALSE(NativeFillAllowed(0, 0));
  EXPECT_TRUE(NativeUpdateAllowed(8, 65536));
  EXPECT_FALSE(NativeUpdateAllowed(8, 65540));
  EXPECT_FALSE(NativeUpdateAllowed(2, 8));
}

TEST(TransferPlan, WholeSizeReachesTheEndWithoutRounding) {
  EXPECT_EQ(ResolveFillSize(10, 3, ~0ull), 7u);
  EXPECT_EQ(ResolveFillSize(10, 10, ~0ull), 0u);
  EXPECT_EQ(ResolveFillSize(10, 12, ~0ull), 0u);
  EXPECT_EQ(ResolveFillSize(10, 3, 5), 5u);
}

// A CPU model of the shifting copy kernel (shaders/copy_shift.comp) over PlanKernelCopy's
// parameters: it must reproduce memcpy for every source phase.
TEST(TransferPlan, KernelCopyShiftModelMatchesMemcpy) {
  std::vector<uint8_t> src(256), dst(256), expected(256);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 37 + 11);
  for (uint64_t src_off = 0; src_off < 8; ++src_off) {
    const uint64_t dst_off = 32, bytes = 64;
    const KernelCopy k = PlanKernelCopy(src_off, dst_off, bytes);
    ASSERT_EQ(k.src_word_address % 4, 0u);
    EXPECT_EQ(k.src_vec4_aligned, src_off % 16 == 0);
    std::fill(dst.begin(), dst.end(), 0);
    auto word = [&](uint64_t w) {
      uint32_t v;
      std::memcpy(&v, &src[k.src_word_address + 4 * w], 4);
      return v;
    };
    for (uint64_t w = 0; w < bytes / 4; ++w) {
      const uint32_t out = k.shift_bits == 0 ? word(w) : (word(w) >> k.shift_bits) | (word(w + 1) << (32 - k.shift_bits));
      std::memcpy(&dst[dst_off + 4 * w], &out, 4);
    }
    std::fill(expected.begin(), expected.end(), 0);
    std::memcpy(&expected[dst_off], &src[src_off], bytes);
    EXPECT_EQ(dst, expected) << "source offset " << src_off;
  }
}

TEST(TransferPolicy, TableAndOverrides) {
  const Policy lavapipe = ChoosePolicy(0x10005, VK_DRIVER_ID_MESA_LLVMPIPE, TransferStrategy::kAuto);
  EXPECT_FALSE(lavapipe.UsesKernels()) << "native is fastest on lavapipe";
  const Policy nvidia = ChoosePolicy(0x10DE, VK_DRIVER_ID_NVIDIA_PROPRIETARY, TransferStrategy::kAuto);
  EXPECT_TRUE(nvidia.UsesKernels());
  EXPECT_EQ(nvidia.fill_kernel_min, UINT64_MAX) << "native fill is at bandwidth on the H100";
  EXPECT_LT(nvidia.CopyThreshold(false), UINT64_MAX);
  EXPECT_EQ(nvidia.fill_native_alignment, 256u) << "NVIDIA fills at full speed from 256-byte offsets";
  EXPECT_EQ(lavapipe.fill_native_alignment, 4u);
  EXPECT_EQ(lavapipe.fill_realign_min, UINT64_MAX) << "lavapipe takes any word-aligned fill at full speed";
  EXPECT_FALSE(ChoosePolicy(0x10DE, VK_DRIVER_ID_NVIDIA_PROPRIETARY, TransferStrategy::kNative).UsesKernels());
  const Policy compute = ChoosePolicy(0x10005, VK_DRIVER_ID_MESA_LLVMPIPE, TransferStrategy::kCompute);
  EXPECT_EQ(compute.CopyThreshold(true), 16u);
  EXPECT_EQ(compute.fill_kernel_min, 16u);
  EXPECT_EQ(compute.copy_batch_min_regions, 2u);
  EXPECT_EQ(nvidia.copy_batch_min_regions, 4u) << "NVIDIA's copy engine pays ~1.4 us per region";
  EXPECT_EQ(lavapipe.copy_batch_min_regions, UINT32_MAX);
  EXPECT_EQ(nvidia.fill_edge_kernel_min, nvidia.fill_realign_min)
      << "a realigned fill's byte edges go to one dispatch beside the native middle, not to a copy";
  EXPECT_EQ(compute.fill_edge_kernel_min, 16u);
  EXPECT_EQ(lavapipe.fill_edge_kernel_min, UINT64_MAX) << "no kernels on lavapipe";
}

// Image copies and clears as kernels on NVIDIA from 1 MiB written (the smallest size
// scripts/gpu-bench-images measured faster: 512^2 R8G8B8A8), linear blits of the classes
// proven there, nothing on lavapipe.
TEST(TransferPolicy, ImageKernelsWhereMeasuredFaster) {
  const Policy nvidia = ChoosePolicy(0x10DE, VK_DRIVER_ID_NVIDIA_PROPRIETARY, TransferStrategy::kAuto);
  const Policy lavapipe = ChoosePolicy(0x10005, VK_DRIVER_ID_MESA_LLVMPIPE, TransferStrategy::kAuto);
  for (ImageCommand c : {ImageCommand::kBufferToImage, ImageCommand::kImageToBuffer, ImageCommand::kImageToImage,
                         ImageCommand::kClear}) {
    EXPECT_EQ(nvidia.image_kernel_min[static_cast<int>(c)], 1ull << 20);
    EXPECT_EQ(lavapipe.image_kernel_min[static_cast<int>(c)], UINT64_MAX);
  }
  EXPECT_EQ(nvidia.image_extend_min, 1ull << 20);
  // Blits: the linear classes proven on the H100, from 4 MiB written; nearest stays native.
  EXPECT_EQ(nvidia.image_kernel_min[static_cast<int>(ImageCommand::kBlit)], 4ull << 20);
  EXPECT_TRUE(nvidia.BlitProven(Encoding::kUnorm8, Encoding::kUnorm8, VK_FILTER_LINEAR));
  EXPECT_TRUE(nvidia.BlitProven(Encoding::kFloat32, Encoding::kFloat32, VK_FILTER_LINEAR));
  EXPECT_FALSE(nvidia.BlitProven(Encoding::kUnorm8, Encoding::kUnorm8, VK_FILTER_NEAREST));
  EXPECT_FALSE(nvidia.BlitProven(Encoding::kUint, Encoding::kUint, VK_FILTER_NEAREST));
  EXPECT_FALSE(nvidia.BlitProven(Encoding::kFloat32, Encoding::kUnorm8, VK_FILTER_LINEAR)) << "not in the proof";
  EXPECT_EQ(lavapipe.image_kernel_min[static_cast<int>(ImageCommand::kBlit)], UINT64_MAX);
  // transfer_strategy=nvidia on lavapipe: NVIDIA's thresholds, lavapipe's own proven classes.
  const Policy row = ChoosePolicy(0x10005, VK_DRIVER_ID_MESA_LLVMPIPE, TransferStrategy::kNvidia);
  EXPECT_TRUE(row.BlitProven(Encoding::kUnorm8, Encoding::kUnorm8, VK_FILTER_LINEAR));
  EXPECT_FALSE(row.BlitProven(Encoding::kFloat32, Encoding::kFloat32, VK_FILTER_LINEAR))
      << "a class proven on NVIDIA's driver is not lavapipe's bytes";
}

// Resolves run as kernels only for the (encoding, sample count) classes proven on the driver
// (TransferImageResolveProof): lavapipe's six 4x classes under transfers=force (its own row
// keeps resolves native: the kernel is slower there), none on NVIDIA until its proof runs;
// image_resolves=all takes every class, off none.
TEST(TransferPolicy, ResolvesOnlyWhereProven) {
  const Policy nvidia = ChoosePolicy(0x10DE, VK_DRIVER_ID_NVIDIA_PROPRIETARY, TransferStrategy::kAuto);
  const Policy lavapipe = ChoosePolicy(0x10005, VK_DRIVER_ID_MESA_LLVMPIPE, TransferStrategy::kAuto);
  Policy forced = ChoosePolicy(0x10005, VK_DRIVER_ID_MESA_LLVMPIPE, TransferStrategy::kCompute);
  EXPECT_EQ(nvidia.image_kernel_min[static_cast<int>(ImageCommand::kResolve)], 1ull << 20);
  EXPECT_FALSE(nvidia.UsesResolveKernels()) << "no class proven on NVIDIA yet";
  EXPECT_FALSE(nvidia.ResolveProven(Encoding::kUnorm8, VK_SAMPLE_COUNT_4_BIT));
  EXPECT_EQ(lavapipe.image_kernel_min[static_cast<int>(ImageCommand::kResolve)], UINT64_MAX);
  EXPECT_FALSE(lavapipe.UsesResolveKernels());
  EXPECT_TRUE(forced.UsesResolveKernels());
  for (Encoding e : {Encoding::kUnorm8, Encoding::kSnorm8, Encoding::kUnorm16, Encoding::kFloat32, Encoding::kUint,
                     Encoding::kSint}) {
    EXPECT_TRUE(forced.ResolveProven(e, VK_SAMPLE_COUNT_4_BIT)) << ToString(e);
    EXPECT_FALSE(forced.ResolveProven(e, VK_SAMPLE_COUNT_2_BIT)) << "lavapipe has 4x only: " << ToString(e);
  }
  EXPECT_FALSE(forced.ResolveProven(Encoding::kFloat16, VK_SAMPLE_COUNT_4_BIT)) << "lavapipe rewrites tiles";
  EXPECT_FALSE(forced.ResolveProven(Encoding::kSrgb8, VK_SAMPLE_COUNT_4_BIT));
  EXPECT_FALSE(forced.ResolveProven(Encoding::kUnorm8, VK_SAMPLE_COUNT_1_BIT));
  Policy all = forced;
  ApplyImageResolves(ImageBlits::kAll, all);
  EXPECT_TRUE(all.ResolveProven(Encoding::kFloat16, VK_SAMPLE_COUNT_8_BIT));
  ApplyImageResolves(ImageBlits::kOff, forced);
  EXPECT_FALSE(forced.UsesResolveKernels());
}

// A resolve kernel's source needs the SAMPLED usage the layer adds at creation, and that is
// added only where rendering into a multisampled target measured no slower with it (the
// bindery_probe image/msaa rows): lavapipe measured, NVIDIA not yet — so even a class entered
// for NVIDIA would not extend its images; NVIDIA's row on lavapipe keeps NVIDIA's answer;
// image_resolves=all (measurement) extends them.
TEST(TransferPolicy, MultisampledImagesExtendedOnlyWhereTheSampledCostIsMeasured) {
  Policy nvidia = ChoosePolicy(0x10DE, VK_DRIVER_ID_NVIDIA_PROPRIETARY, TransferStrategy::kAuto);
  EXPECT_FALSE(nvidia.multisampled_sampled_measured);
  nvidia.resolve_proven[1] |= static_cast<uint16_t>(1u << static_cast<int>(Encoding::kUnorm8));
  EXPECT_TRUE(nvidia.ResolveProven(Encoding::kUnorm8, VK_SAMPLE_COUNT_4_BIT));
  EXPECT_FALSE(nvidia.ExtendsMultisampled(Encoding::kUnorm8, VK_SAMPLE_COUNT_4_BIT)) << "proven but not measured";
  const Policy forced = ChoosePolicy(0x10005, VK_DRIVER_ID_MESA_LLVMPIPE, TransferStrategy::kCompute);
  EXPECT_TRUE(forced.ExtendsMultisampled(Encoding::kUnorm8, VK_SAMPLE_COUNT_4_BIT));
  EXPECT_FALSE(forced.ExtendsMultisampled(Encoding::kFloat16, VK_SAMPLE_COUNT_4_BIT)) << "measured but not proven";
  const Policy nvidia_row = ChoosePolicy(0x10005, VK_DRIVER_ID_MESA_LLVMPIPE, TransferStrategy::kNvidia);
  EXPECT_TRUE(nvidia_row.ResolveProven(Encoding::kUnorm8, VK_SAMPLE_COUNT_4_BIT)) << "this driver's proof";
  EXPECT_FALSE(nvidia_row.ExtendsMultisampled(Encoding::kUnorm8, VK_SAMPLE_COUNT_4_BIT)) << "NVIDIA's measurement";
  Policy measuring = ChoosePolicy(0x10DE, VK_DRIVER_ID_NVIDIA_PROPRIETARY, TransferStrategy::kAuto);
  ApplyImageResolves(ImageBlits::kAll, measuring);
  EXPECT_TRUE(measuring.ExtendsMultisampled(Encoding::kFloat16, VK_SAMPLE_COUNT_8_BIT));
}

// transfer_strategy=nvidia: the NVIDIA row on any device (how tests on lavapipe run what the
// default mode does on NVIDIA), with the device's own answer on replaying pushes.
TEST(TransferPolicy, NvidiaStrategyIsTheNvidiaRowAnywhere) {
  const Policy nvidia = ChoosePolicy(0x10DE, VK_DRIVER_ID_NVIDIA_PROPRIETARY, TransferStrategy::kAuto);
  const Policy forced = ChoosePolicy(0x10005, VK_DRIVER_ID_MESA_LLVMPIPE, TransferStrategy::kNvidia);
  EXPECT_EQ(forced.copy_kernel_min_aligned, nvidia.copy_kernel_min_aligned);
  EXPECT_EQ(forced.copy_kernel_min_unaligned, nvidia.copy_kernel_min_unaligned);
  EXPECT_EQ(forced.copy_batch_min_regions, nvidia.copy_batch_min_regions);
  EXPECT_EQ(forced.small_write_max, nvidia.small_write_max);
  EXPECT_EQ(forced.small_write_kernel_min, nvidia.small_write_kernel_min);
  EXPECT_EQ(forced.fill_native_alignment, nvidia.fill_native_alignment);
  EXPECT_EQ(forced.fill_realign_min, nvidia.fill_realign_min);
  EXPECT_EQ(forced.fill_edge_kernel_min, nvidia.fill_edge_kernel_min);
  EXPECT_EQ(forced.address_min_buffer_size, nvidia.address_min_buffer_size);
  EXPECT_TRUE(forced.replay_pushes) << "lavapipe still loses pushes across binds";
  EXPECT_FALSE(ChoosePolicy(0x10DE, VK_DRIVER_ID_NVIDIA_PROPRIETARY, TransferStrategy::kNvidia).replay_pushes);
}

// bindery.fill_edges: a kernel order gives any policy NVIDIA's fill shape (native middle
// realigned to 256 bytes, byte edges by one dispatch) in that order; copy takes the kernel away.
TEST(TransferPolicy, FillEdgesSettingPicksTheEdgeOrder) {
  Policy nvidia = ChoosePolicy(0x10DE, VK_DRIVER_ID_NVIDIA_PROPRIETARY, TransferStrategy::kAuto);
  EXPECT_EQ(nvidia.fill_edge_order, Policy::EdgeOrder::kKernelFirst);
  const Policy unchanged = nvidia;
  ApplyFillEdges(FillEdges::kAuto, nvidia);
  EXPECT_EQ(nvidia.fill_edge_kernel_min, unchanged.fill_edge_kernel_min);
  EXPECT_EQ(nvidia.fill_edge_order, unchanged.fill_edge_order);
  ApplyFillEdges(FillEdges::kCopy, nvidia);
  EXPECT_EQ(nvidia.fill_edge_kernel_min, UINT64_MAX) << "edges from staging";
  for (FillEdges order : {FillEdges::kKernelFirst, FillEdges::kKernelLast, FillEdges::kKernelAfter}) {
    Policy compute = ChoosePolicy(0x10005, VK_DRIVER_ID_MESA_LLVMPIPE, TransferStrategy::kCompute);
    ApplyFillEdges(order, compute);
    EXPECT_EQ(compute.fill_kernel_min, UINT64_MAX) << "the middle is a native fill";
    EXPECT_EQ(compute.fill_native_alignment, 256u);
    EXPECT_EQ(compute.fill_realign_min, 1ull << 20);
    EXPECT_EQ(compute.fill_edge_kernel_min, 1ull << 20);
    EXPECT_TRUE(compute.UsesKernels());
    Policy lavapipe = ChoosePolicy(0x10005, VK_DRIVER_ID_MESA_LLVMPIPE, TransferStrategy::kAuto);
    ApplyFillEdges(order, lavapipe);
    EXPECT_TRUE(lavapipe.UsesKernels()) << "the edge kernel needs the kernels built";
  }
  Policy last = ChoosePolicy(0x10DE, VK_DRIVER_ID_NVIDIA_PROPRIETARY, TransferStrategy::kAuto);
  ApplyFillEdges(FillEdges::kKernelLast, last);
  EXPECT_EQ(last.fill_edge_order, Policy::EdgeOrder::kKernelLast);
  ApplyFillEdges(FillEdges::kKernelAfter, last);
  EXPECT_EQ(last.fill_edge_order, Policy::EdgeOrder::kKernelAfter);
}

// The kernels push no constants; only drivers that lose the application's pushes across a
// bind of the kernels' pipeline (lavapipe 22.3) get them recorded and replayed, at the cost
// of a hook on every vkCmdPushConstants.
TEST(TransferPolicy, PushesAreReplayedOnlyWhereTheDriverLosesThem) {
  for (TransferStrategy s : {TransferStrategy::kAuto, TransferStrategy::kCompute, TransferStrategy::kNative}) {
    EXPECT_FALSE(ChoosePolicy(0x10DE, VK_DRIVER_ID_NVIDIA_PROPRIETARY, s).replay_pushes)
        << "NVIDIA keeps push constants across pipeline binds, as the spec says";
    EXPECT_FALSE(ChoosePolicy(0x10DE, static_cast<VkDriverId>(0), s).replay_pushes) << "NVIDIA without a driver id";
    EXPECT_TRUE(ChoosePolicy(0x10005, VK_DRIVER_ID_MESA_LLVMPIPE, s).replay_pushes)
        << "lavapipe 22.3 loses them (TransferPushFree on lavapipe)";
    EXPECT_TRUE(ChoosePolicy(0x1002, VK_DRIVER_ID_AMD_PROPRIETARY, s).replay_pushes) << "not shown yet";
  }
}

// A device made of several physical devices (a device group): kernels off (their addresses
// would need bufferDeviceAddressMultiDevice, their host-written records one memory instance),
// and staging never from a heap with an instance per physical device, which cannot be mapped.
TEST(TransferDeviceGroups, KernelsOffAndStagingFromAHeapWithOneInstance) {
  EXPECT_EQ(DeviceGroupKeepsKernelsOff(1), nullptr) << "a group of one is any device";
  EXPECT_NE(DeviceGroupKeepsKernelsOff(2), nullptr);
  VkPhysicalDeviceMemoryProperties props{};
  props.memoryHeapCount = 2;
  props.memoryHeaps[0] = {1ull << 30, VK_MEMORY_HEAP_DEVICE_LOCAL_BIT | VK_MEMORY_HEAP_MULTI_INSTANCE_BIT};
  props.memoryHeaps[1] = {1ull << 30, 0};
  const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  props.memoryTypeCount = 2;
  props.memoryTypes[0] = {host | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0};  // resizable BAR, one instance per GPU
  props.memoryTypes[1] = {host, 1};
  EXPECT_EQ(ChooseStagingMemoryType(props, ~0u), 0u) << "one physical device: the BAR heap is preferred";
  EXPECT_EQ(ChooseStagingMemoryType(props, ~0u, /*one_instance=*/true), 1u) << "a group: host memory";
  EXPECT_EQ(ChooseStagingMemoryType(props, 1u, true), UINT32_MAX) << "nothing mappable left";
}

}  // namespace
}  // namespace bindery::transfer
