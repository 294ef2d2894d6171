// Small unaligned fills and updates recorded back to back are coalesced where the policy
// says so (the compute strategy here; NVIDIA under auto): queued, then written by one
// batched dispatch at the next flush point (transfer/coalesced_writes.h). Whatever the
// strategy, the bytes must be exactly the model's:
//
// - ManyBackToBackThenBarrier: 600 fills and updates at every byte phase (disjoint: writes
//   to the same bytes without a barrier between them are a hazard validation reports),
//   then the host-read barrier.
// - FlushedAtEnd: no barrier after the writes, only vkEndCommandBuffer (which must flush).
// - FlushedBeforeOtherTransfers: a native copy reading bytes the queued writes produced,
//   after a barrier, and an aligned fill over part of them with no barrier (another
//   transfer command keeps its place after the queued writes).
// - WaitPastTransferBarriers: writes each behind a TRANSFER -> TRANSFER barrier (they wait
//   past those: transfer/transfer_only_barriers.h), overlapping writes ordered only by such a
//   barrier, then transfer commands of other kinds (buffer -> image -> buffer copies) that
//   read their bytes, in groups of 200 writes (one dispatch) and of 3 (fewer than NVIDIA's
//   small_write_kernel_min: copies from staging with the layer's stand-in barrier).
// - CrossedBarrierOrdersTheNextCommandBuffer: the barrier after the writes is the only
//   thing ordering them before a copy recorded in the next command buffer of the same
//   submission.
#include <cstring>
#include <random>

#include "integration/transfer_model.h"
#include "support/vk_objects.h"

namespace bindery::test::transfer {
namespace {

class TransferSmallWrites : public ::testing::TestWithParam<Config> {};

constexpr uint64_t kBytes = 96 * 1024;

// Transfer writes -> transfer reads/writes, as an application orders a copy after fills.
void TransferBarrier(VkCommandBuffer cb) {
  RecordMemoryBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                      VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
}

// Records `count` small unaligned fills and updates into cb and the model, back to back
// below `limit` (disjoint): sizes 1..201, offsets at every phase.
void RecordSmallWrites(VkCommandBuffer cb, VkBuffer dst, ByteModel& model, uint32_t count, uint32_t seed,
                       uint64_t limit) {
  std::mt19937 rng(seed);
  const std::vector<uint8_t> source = RandomBytes(256, seed + 1);
  uint64_t at = 1;
  for (uint32_t i = 0; i < count; ++i) {
    uint64_t size = 1 + rng() % 200;
    if (size % 4 == 0) ++size;  // never a native-aligned command
    const uint64_t offset = at;
    if (offset + size > limit) break;
    at = offset + size + rng() % 9;
    if (rng() % 2 == 0) {
      const uint32_t pattern = 0xA0B0C0D0u ^ static_cast<uint32_t>(i * 0x01010101u);
      vkCmdFillBuffer(cb, dst, offset, size, pattern);
      model.Fill(offset, size, pattern);
    } else {
      vkCmdUpdateBuffer(cb, dst, offset, size, source.data());
      model.Update(offset, source.data(), size);
    }
  }
}

TEST_P(TransferSmallWrites, ManyBackToBackThenBarrier) {
  Rig rig(GetParam());
  ASSERT_TRUE(rig.ok()) << rig.error();
  auto [dst, model] = rig.Canary(kBytes);
  VkCommandBuffer cb = rig.h().BeginCommands();
  RecordSmallWrites(cb, dst.buffer, model, 600, 7, kBytes - 256);
  rig.HostReadBarrier(cb);
  ASSERT_EQ(rig.h().SubmitAndWait(cb), VK_SUCCESS);
  EXPECT_TRUE(SameBytes(dst.mapped, model.data(), kBytes));
  const Summary summary = rig.Finish();
  if (GetParam().Is("force", "compute")) {
    // 600 writes, at most 512 per dispatch.
    EXPECT_GT(summary.kernels, 0u) << summary.text;
    EXPECT_LE(summary.kernels, 3u) << "small writes were not coalesced: " << summary.text;
  }
  EXPECT_VALIDATION_SILENT(rig.h());
}

TEST_P(TransferSmallWrites, FlushedAtEnd) {
  Rig rig(GetParam());
  ASSERT_TRUE(rig.ok()) << rig.error();
  auto [dst, model] = rig.Canary(kBytes);
  VkCommandBuffer cb = rig.Allocate();
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  ASSERT_EQ(vkBeginCommandBuffer(cb, &begin), VK_SUCCESS);
  RecordSmallWrites(cb, dst.buffer, model, 40, 11, kBytes - 256);
  // No barrier: the submission's fence orders the writes before the host reads them.
  ASSERT_EQ(rig.Submit(cb), VK_SUCCESS);
  EXPECT_TRUE(SameBytes(dst.mapped, model.data(), kBytes));
  rig.Finish();
  EXPECT_VALIDATION_SILENT(rig.h());
}

TEST_P(TransferSmallWrites, FlushedBeforeOtherTransfers) {
  Rig rig(GetParam());
  ASSERT_TRUE(rig.ok()) << rig.error();
  auto [dst, model] = rig.Canary(kBytes);
  VkCommandBuffer cb = rig.h().BeginCommands();
  RecordSmallWrites(cb, dst.buffer, model, 100, 13, 8192);
  TransferBarrier(cb);
  // Copy the first 8 KiB the writes produced to the second half of the buffer.
  const VkBufferCopy copy{0, kBytes / 2, 8192};
  vkCmdCopyBuffer(cb, dst.buffer, dst.buffer, 1, &copy);
  std::vector<uint8_t> produced(model.data(), model.data() + 8192);
  model.Copy(produced.data(), 0, kBytes / 2, 8192);
  TransferBarrier(cb);
  // More small writes, then the same region written by a native fill after a barrier.
  RecordSmallWrites(cb, dst.buffer, model, 50, 17, 4096);
  TransferBarrier(cb);
  vkCmdFillBuffer(cb, dst.buffer, 1024, 512, 0x11223344u);
  model.Fill(1024, 512, 0x11223344u);
  rig.HostReadBarrier(cb);
  ASSERT_EQ(rig.h().SubmitAndWait(cb), VK_SUCCESS);
  EXPECT_TRUE(SameBytes(dst.mapped, model.data(), kBytes));
  rig.Finish();
  EXPECT_VALIDATION_SILENT(rig.h());
}

// A 4096 x 1 R8_UINT image in TRANSFER_DST_OPTIMAL layout (transitioned by `cb`): what
// the copies through an image use.
struct ByteImage {
  VkImage image = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
};
constexpr uint32_t kImageBytes = 4096;

// A TRANSFER -> TRANSFER barrier that also changes the image's layout (so the layer
// flushes at it: small writes never wait past a layout transition).
void Relayout(VkCommandBuffer cb, VkImage image, VkImageLayout from, VkImageLayout to) {
  VkMemoryBarrier memory{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  memory.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  memory.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  b.srcAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  b.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  b.oldLayout = from;
  b.newLayout = to;
  b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.image = image;
  b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &memory, 0, nullptr, 1,
                       &b);
}

ByteImage CreateByteImage(VkHarness& h, VkCommandBuffer cb) {
  ByteImage out;
  VkImageCreateInfo ici{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  ici.imageType = VK_IMAGE_TYPE_2D;
  ici.format = VK_FORMAT_R8_UINT;
  ici.extent = {kImageBytes, 1, 1};
  ici.mipLevels = 1;
  ici.arrayLayers = 1;
  ici.samples = VK_SAMPLE_COUNT_1_BIT;
  ici.tiling = VK_IMAGE_TILING_OPTIMAL;
  ici.usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  if (vkCreateImage(h.device(), &ici, nullptr, &out.image) != VK_SUCCESS) return {};
  VkMemoryRequirements req;
  vkGetImageMemoryRequirements(h.device(), out.image, &req);
  VkPhysicalDeviceMemoryProperties props;
  vkGetPhysicalDeviceMemoryProperties(h.physical_device(), &props);
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = UINT32_MAX;
  for (uint32_t i = 0; i < props.memoryTypeCount && mai.memoryTypeIndex == UINT32_MAX; ++i) {
    if ((req.memoryTypeBits & (1u << i)) != 0 &&
        (props.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_PROTECTED_BIT) == 0) {
      mai.memoryTypeIndex = i;
    }
  }
  if (mai.memoryTypeIndex == UINT32_MAX || vkAllocateMemory(h.device(), &mai, nullptr, &out.memory) != VK_SUCCESS ||
      vkBindImageMemory(h.device(), out.image, out.memory, 0) != VK_SUCCESS) {
    return out;
  }
  Relayout(cb, out.image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
  return out;
}

void DestroyByteImage(VkHarness& h, ByteImage& image) {
  if (image.image != VK_NULL_HANDLE) vkDestroyImage(h.device(), image.image, nullptr);
  if (image.memory != VK_NULL_HANDLE) vkFreeMemory(h.device(), image.memory, nullptr);
  image = {};
}

// Records `count` unaligned fills and updates into [base, base + 4096), each followed by a
// TRANSFER -> TRANSFER barrier; every tenth one overwrites part of the previous one (only
// that barrier orders them; the layer then flushes before queueing it).
void RecordWritesBehindBarriers(VkCommandBuffer cb, VkBuffer dst, ByteModel& model, uint64_t base, uint32_t count,
                                uint32_t seed) {
  std::mt19937 rng(seed);
  const std::vector<uint8_t> source = RandomBytes(64, seed + 1);
  uint64_t previous = base + 1;
  for (uint32_t i = 0; i < count; ++i) {
    const uint64_t size = 1 + rng() % 62;
    const uint64_t offset = i % 10 == 9 ? previous + rng() % 3 : base + 1 + rng() % (kImageBytes - 130);
    previous = offset;
    if (size % 4 == 0 && offset % 4 == 0) continue;  // only the layer's writes
    if (rng() % 2 == 0) {
      const uint32_t pattern = 0x10203040u ^ static_cast<uint32_t>(i * 0x01030507u);
      vkCmdFillBuffer(cb, dst, offset, size, pattern);
      model.Fill(offset, size, pattern);
    } else {
      vkCmdUpdateBuffer(cb, dst, offset, size, source.data());
      model.Update(offset, source.data(), size);
    }
    TransferBarrier(cb);
  }
}

TEST_P(TransferSmallWrites, WaitPastTransferBarriers) {
  Rig rig(GetParam());
  ASSERT_TRUE(rig.ok()) << rig.error();
  auto [dst, model] = rig.Canary(kBytes);
  VkCommandBuffer cb = rig.h().BeginCommands();
  ByteImage image = CreateByteImage(rig.h(), cb);
  ASSERT_NE(image.memory, VK_NULL_HANDLE);
  uint32_t seed = 21;
  uint64_t out = kBytes / 2;
  for (uint32_t count : {200u, 3u, 1u, 200u}) {
    RecordWritesBehindBarriers(cb, dst.buffer, model, 0, count, seed++);
    // Buffer -> image -> buffer: transfer commands of other kinds read the written bytes.
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {kImageBytes, 1, 1};
    vkCmdCopyBufferToImage(cb, dst.buffer, image.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
    Relayout(cb, image.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    region.bufferOffset = out;
    vkCmdCopyImageToBuffer(cb, image.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, dst.buffer, 1, &region);
    std::vector<uint8_t> produced(model.data(), model.data() + kImageBytes);
    model.Copy(produced.data(), 0, out, kImageBytes);
    out += kImageBytes;
    Relayout(cb, image.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
  }
  rig.HostReadBarrier(cb);
  ASSERT_EQ(rig.h().SubmitAndWait(cb), VK_SUCCESS);
  EXPECT_TRUE(SameBytes(dst.mapped, model.data(), kBytes));
  DestroyByteImage(rig.h(), image);
  const Summary summary = rig.Finish();
  if (GetParam().Is("force", "compute")) {
    // A dispatch per group of writes (flushed by the buffer -> image copy) and per
    // overlap with a queued one (every tenth write, and random ones), not one per write: 55 for
    // the 380 writes on lavapipe.
    EXPECT_GT(summary.kernels, 0u) << summary.text;
    EXPECT_LE(summary.kernels, 100u) << "small writes did not wait past transfer barriers: " << summary.text;
  }
  EXPECT_VALIDATION_SILENT(rig.h());
}

TEST_P(TransferSmallWrites, CrossedBarrierOrdersTheNextCommandBuffer) {
  Rig rig(GetParam());
  ASSERT_TRUE(rig.ok()) << rig.error();
  auto [dst, model] = rig.Canary(kBytes);
  for (uint32_t count : {3u, 100u}) {
    VkCommandBuffer writes = rig.Allocate();
    VkCommandBuffer reads = rig.Allocate();
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    ASSERT_EQ(vkBeginCommandBuffer(writes, &begin), VK_SUCCESS);
    RecordWritesBehindBarriers(writes, dst.buffer, model, 0, count, 40 + count);
    ASSERT_EQ(vkEndCommandBuffer(writes), VK_SUCCESS);
    // Only the barrier recorded after the writes orders them before this copy.
    ASSERT_EQ(vkBeginCommandBuffer(reads, &begin), VK_SUCCESS);
    const VkBufferCopy copy{0, kBytes / 2, kImageBytes};
    vkCmdCopyBuffer(reads, dst.buffer, dst.buffer, 1, &copy);
    std::vector<uint8_t> produced(model.data(), model.data() + kImageBytes);
    model.Copy(produced.data(), 0, kBytes / 2, kImageBytes);
    rig.HostReadBarrier(reads);
    ASSERT_EQ(vkEndCommandBuffer(reads), VK_SUCCESS);
    ASSERT_EQ(SubmitAndWaitIdle(rig.h().queue(), {writes, reads}), VK_SUCCESS);
  }
  EXPECT_TRUE(SameBytes(dst.mapped, model.data(), kBytes));
  rig.Finish();
  EXPECT_VALIDATION_SILENT(rig.h());
}

// Unaligned commands are only valid with the layer's transfers on.
INSTANTIATE_TEST_SUITE_P(Transfer, TransferSmallWrites, ::testing::Values(kForceNative, kForceCompute, kAuto),
                         ConfigName);

}  // namespace
}  // namespace bindery::test::transfer
