// Image kernels in the situations around the commands (docs/transfers.md, "Images"): the
// application's compute state (pipeline, descriptor sets, push constants) is what its next
// dispatch uses; a copy inside a conditional-rendering block still happens; secondaries;
// images the layer must not extend or cannot reach go native and say why; a format list is
// honoured; memory requirements asked without an image match the image created. Each
// compares the forced run with the run without the layer, byte for byte, with validation
// (synchronization validation on) silent.
#include <cstring>
#include <random>

#include "integration/scale_add_kernel.h"
#include "integration/transfer_image_rig.h"
#include "support/vk_objects.h"

namespace bindery::test::transfer {
namespace {

std::vector<uint8_t> Bytes(uint64_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> out(size);
  for (uint8_t& b : out) b = static_cast<uint8_t>(rng());
  return out;
}

constexpr VkImageLayout kDst = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
constexpr VkImageLayout kSrc = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
constexpr VkImageLayout kGeneral = VK_IMAGE_LAYOUT_GENERAL;

VkBufferImageCopy Whole(const TestImage& image, uint64_t offset = 0) {
  return {offset, 0, 0, {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, image.info.arrayLayers}, {0, 0, 0}, image.info.extent};
}

// A buffer -> image copy, a clear, an image -> image copy and an image -> buffer copy
// between the application's binds (pipeline, two descriptor sets bound one after the other
// at set 0, push constants) and its dispatch: the dispatch must use the second set (out2),
// the pipeline and the pushes, exactly as without the layer.
TEST(TransferImageState, DispatchAfterImageKernelsUsesTheAppsPipelineSetsAndPushes) {
  constexpr uint32_t kCount = 4096 + 7;
  auto program = [&](ImageRun& run, VkCommandBuffer cb) {
    VkHarness& h = run.h();
    HostBuffer in = h.CreateHostBuffer(kCount * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer out = h.CreateHostBuffer(kCount * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer out2 = h.CreateHostBuffer(kCount * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    for (uint32_t i = 0; i < kCount; ++i) std::memcpy(static_cast<uint8_t*>(in.mapped) + 4 * i, &i, 4);
    std::memset(out.mapped, 0xAB, kCount * 4);
    std::memset(out2.mapped, 0xCD, kCount * 4);
    ScaleAddKernel k = CreateScaleAdd(h, in.buffer, out.buffer);
    const VkDescriptorSet second = h.AllocateStorageSet(k.kernel, {in.buffer, out2.buffer});
    if (k.set == VK_NULL_HANDLE || second == VK_NULL_HANDLE) return false;
    const uint32_t params[3] = {3, 0x5a5a, kCount};
    BindScaleAdd(cb, k, params);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.kernel.layout, 0, 1, &second, 0, nullptr);

    const TestImage a = run.Image(ImageInfo(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, {64, 32, 1}, 1, 2));
    const TestImage b = run.Image(ImageInfo(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, {64, 32, 1}, 1, 2));
    run.Upload(cb, a, Bytes(a.bytes, 1), kGeneral);
    run.Upload(cb, b, Bytes(b.bytes, 2), kGeneral);
    HostBuffer src = run.Buffer(a.bytes);
    std::memcpy(src.mapped, Bytes(a.bytes, 3).data(), a.bytes);
    HostBuffer dst = run.Buffer(a.bytes);
    std::memset(dst.mapped, 0xEE, a.bytes);
    const VkBufferImageCopy whole = Whole(a);
    vkCmdCopyBufferToImage(cb, src.buffer, a.image, kGeneral, 1, &whole);
    VkClearColorValue red{};
    red.float32[0] = 1.0f;
    const VkImageSubresourceRange layer1{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 1, 1};
    vkCmdClearColorImage(cb, b.image, kGeneral, &red, 1, &layer1);
    TransferBarrier(cb);
    const VkImageCopy copy{{VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1}, {0, 0, 0}, {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                           {8, 4, 0}, {40, 20, 1}};
    vkCmdCopyImage(cb, a.image, kGeneral, b.image, kGeneral, 1, &copy);
    TransferBarrier(cb);
    vkCmdCopyImageToBuffer(cb, b.image, kGeneral, dst.buffer, 1, &whole);
    RecordMemoryBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
    vkCmdDispatch(cb, (kCount + 63) / 64, 1, 1);
    Rig::TransferHostReadBarrier(cb);
    VkMemoryBarrier to_host{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, VK_ACCESS_SHADER_WRITE_BIT,
                            VK_ACCESS_HOST_READ_BIT};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0,
                         nullptr, 0, nullptr);
    run.Download(cb, a, kGeneral);
    run.Download(cb, b, kGeneral);
    run.Keep(dst);
    run.Keep(out);
    run.Keep(out2);
    run.OnDestroy([&h, k, in, out, out2]() mutable {
      h.Destroy(in);
      h.Destroy(out);
      h.Destroy(out2);
      h.Destroy(k.kernel);
    });
    return true;
  };
  const ImageRunResult native = RunImageProgram(kLayerOff, program);
  const ImageRunResult forced = RunImageProgram(kForceCompute, program);
  ASSERT_BOTH_RAN_SILENTLY(native, forced);
  EXPECT_TRUE(SameDownloads(native, forced, {"a", "b", "image bytes", "out (first set)", "out2 (second set)"}));
  ASSERT_EQ(forced.downloads.size(), 5u);
  // The dispatch used the second set, its pipeline and pushes: out2 = in * 3 + (i ^ 0x5a5a).
  const auto& out2 = forced.downloads[4];
  for (uint32_t i = 0; i < kCount; i += 97) {
    uint32_t v;
    std::memcpy(&v, out2.data() + 4 * i, 4);
    ASSERT_EQ(v, i * 3 + (i ^ 0x5a5au)) << "element " << i;
  }
  EXPECT_EQ(forced.Counter("image kernels"), 4u + forced.staging) << forced.summary;
}

// A copy inside a conditional-rendering block whose predicate is zero still happens (copies
// ignore conditional rendering, dispatches do not: the layer suspends the block around its
// kernels) and the block is active again after it: the application's dispatch inside it is
// still discarded.
TEST(TransferImageState, CopyInsideConditionalRenderingHappensAndTheBlockResumes) {
  RigOptions options;
  options.device_extensions = {VK_EXT_CONDITIONAL_RENDERING_EXTENSION_NAME};
  constexpr uint32_t kCount = 256;
  auto program = [&](ImageRun& run, VkCommandBuffer cb) {
    VkHarness& h = run.h();
    HostBuffer predicate = h.CreateHostBuffer(4, VK_BUFFER_USAGE_CONDITIONAL_RENDERING_BIT_EXT);
    HostBuffer in = h.CreateHostBuffer(kCount * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer out = h.CreateHostBuffer(kCount * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    std::memset(predicate.mapped, 0, 4);
    std::memset(in.mapped, 1, kCount * 4);
    std::memset(out.mapped, 0xAB, kCount * 4);
    ScaleAddKernel k = CreateScaleAdd(h, in.buffer, out.buffer);
    auto begin = reinterpret_cast<PFN_vkCmdBeginConditionalRenderingEXT>(
        vkGetDeviceProcAddr(h.device(), "vkCmdBeginConditionalRenderingEXT"));
    auto end = reinterpret_cast<PFN_vkCmdEndConditionalRenderingEXT>(
        vkGetDeviceProcAddr(h.device(), "vkCmdEndConditionalRenderingEXT"));
    if (k.set == VK_NULL_HANDLE || begin == nullptr) return false;
    const TestImage image = run.Image(ImageInfo(VK_FORMAT_R32_UINT, VK_IMAGE_TYPE_2D, {48, 16, 1}, 1, 1));
    run.Upload(cb, image, Bytes(image.bytes, 5), kDst);
    HostBuffer src = run.Buffer(image.bytes);
    std::memcpy(src.mapped, Bytes(image.bytes, 6).data(), image.bytes);
    const uint32_t params[3] = {5, 9, kCount};
    BindScaleAdd(cb, k, params);
    VkConditionalRenderingBeginInfoEXT cond{VK_STRUCTURE_TYPE_CONDITIONAL_RENDERING_BEGIN_INFO_EXT};
    cond.buffer = predicate.buffer;
    begin(cb, &cond);
    const VkBufferImageCopy region{0, 0, 0, {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1}, {4, 2, 0}, {40, 12, 1}};
    vkCmdCopyBufferToImage(cb, src.buffer, image.image, kDst, 1, &region);
    vkCmdDispatch(cb, kCount / 64, 1, 1);  // discarded by the predicate
    end(cb);
    run.Download(cb, image, kDst);
    VkMemoryBarrier to_host{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, VK_ACCESS_SHADER_WRITE_BIT,
                            VK_ACCESS_HOST_READ_BIT};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0,
                         nullptr, 0, nullptr);
    run.Keep(out);
    run.OnDestroy([&h, k, predicate, in, out]() mutable {
      h.Destroy(k.kernel);
      h.Destroy(predicate);
      h.Destroy(in);
      h.Destroy(out);
    });
    return true;
  };
  const ImageRunResult native = RunImageProgram(kLayerOff, program, options);
  const ImageRunResult forced = RunImageProgram(kForceCompute, program, options);
  ASSERT_BOTH_RAN_SILENTLY(native, forced);
  EXPECT_TRUE(SameDownloads(native, forced, {"image", "out"}));
  ASSERT_EQ(forced.downloads.size(), 2u);
  for (uint8_t byte : forced.downloads[1]) ASSERT_EQ(byte, 0xAB) << "the dispatch inside the block ran";
  EXPECT_EQ(forced.Counter("image kernels"), 1u + forced.staging) << forced.summary;
}

// Image commands recorded in a secondary command buffer run as kernels there too.
TEST(TransferImageState, SecondaryCommandBuffers) {
  auto program = [&](ImageRun& run, VkCommandBuffer cb) {
    VkHarness& h = run.h();
    const TestImage a = run.Image(ImageInfo(VK_FORMAT_R16G16B16A16_SFLOAT, VK_IMAGE_TYPE_2D, {33, 17, 1}, 2, 1));
    const TestImage b = run.Image(ImageInfo(VK_FORMAT_R16G16B16A16_SFLOAT, VK_IMAGE_TYPE_2D, {33, 17, 1}, 2, 1));
    run.Upload(cb, a, Bytes(a.bytes, 7), kSrc);
    run.Upload(cb, b, Bytes(b.bytes, 8), kDst);
    VkCommandBufferAllocateInfo cbai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    cbai.commandPool = h.command_pool();
    cbai.level = VK_COMMAND_BUFFER_LEVEL_SECONDARY;
    cbai.commandBufferCount = 1;
    VkCommandBuffer secondary = VK_NULL_HANDLE;
    if (vkAllocateCommandBuffers(h.device(), &cbai, &secondary) != VK_SUCCESS) return false;
    VkCommandBufferInheritanceInfo inheritance{VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO};
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.pInheritanceInfo = &inheritance;
    vkBeginCommandBuffer(secondary, &begin);
    const VkImageCopy copy{{VK_IMAGE_ASPECT_COLOR_BIT, 1, 0, 1}, {1, 1, 0}, {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                           {5, 6, 0}, {15, 7, 1}};
    vkCmdCopyImage(secondary, a.image, kSrc, b.image, kDst, 1, &copy);
    VkClearColorValue blue{};
    blue.float32[2] = 1.0f;
    const VkImageSubresourceRange mip1{VK_IMAGE_ASPECT_COLOR_BIT, 1, 1, 0, 1};
    vkCmdClearColorImage(secondary, b.image, kDst, &blue, 1, &mip1);
    vkEndCommandBuffer(secondary);
    vkCmdExecuteCommands(cb, 1, &secondary);
    run.Download(cb, b, kDst);
    run.OnDestroy([&h, secondary]() { vkFreeCommandBuffers(h.device(), h.command_pool(), 1, &secondary); });
    return true;
  };
  const ImageRunResult native = RunImageProgram(kLayerOff, program);
  const ImageRunResult forced = RunImageProgram(kForceCompute, program);
  ASSERT_BOTH_RAN_SILENTLY(native, forced);
  EXPECT_TRUE(SameDownloads(native, forced, {"b"}));
  EXPECT_EQ(forced.Counter("image kernels"), 2u + forced.staging) << forced.summary;
}

// An application that gave a format list (MUTABLE_FORMAT over UNORM and SRGB views): the
// layer adds the raw format to a copy of the list (a view outside the list is invalid), and
// leaves the application's list as it was.
TEST(TransferImageCases, FormatListGetsTheRawFormatInACopy) {
  const VkFormat listed[2] = {VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_SRGB};
  auto program = [&](ImageRun& run, VkCommandBuffer cb) {
    VkImageFormatListCreateInfo list{VK_STRUCTURE_TYPE_IMAGE_FORMAT_LIST_CREATE_INFO};
    list.viewFormatCount = 2;
    list.pViewFormats = listed;
    VkImageCreateInfo info = ImageInfo(VK_FORMAT_R8G8B8A8_SRGB, VK_IMAGE_TYPE_2D, {31, 9, 1}, 1, 1);
    info.flags = VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT;
    info.pNext = &list;
    const TestImage image = run.Image(info);
    run.Upload(cb, image, Bytes(image.bytes, 9), kDst);
    HostBuffer src = run.Buffer(image.bytes);
    std::memcpy(src.mapped, Bytes(image.bytes, 10).data(), image.bytes);
    const VkBufferImageCopy region{0, 0, 0, {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1}, {2, 1, 0}, {20, 7, 1}};
    vkCmdCopyBufferToImage(cb, src.buffer, image.image, kDst, 1, &region);
    VkClearColorValue grey{};
    grey.float32[0] = grey.float32[1] = grey.float32[2] = 0.25f;
    TransferBarrier(cb);
    const VkImageSubresourceRange all{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    const TestImage other = run.Image(info);
    run.Upload(cb, other, Bytes(other.bytes, 11), kDst);
    vkCmdClearColorImage(cb, other.image, kDst, &grey, 1, &all);
    run.Download(cb, image, kDst);
    run.Download(cb, other, kDst);
    return true;
  };
  const ImageRunResult native = RunImageProgram(kLayerOff, program);
  const ImageRunResult forced = RunImageProgram(kForceCompute, program);
  ASSERT_BOTH_RAN_SILENTLY(native, forced);
  EXPECT_TRUE(SameDownloads(native, forced, {"copied", "cleared"}));
  EXPECT_EQ(forced.Counter("image kernels"), 2u + forced.staging) << forced.summary;
  EXPECT_EQ(listed[0], VK_FORMAT_R8G8B8A8_UNORM);
  EXPECT_EQ(listed[1], VK_FORMAT_R8G8B8A8_SRGB);
}

// What the layer must not or cannot take goes down natively, is counted under "image
// native" with its reason, and gives the driver's bytes: an image with external memory (the
// layer never extends it), a depth image, an ambiguous clear colour (0.9 x 255 = 229.4999:
// drivers may round either way), and a 3-byte format (no raw view).
TEST(TransferImageCases, WhatKernelsCannotTakeGoesNativeWithItsReason) {
  auto program = [&](ImageRun& run, VkCommandBuffer cb) {
    VkHarness& h = run.h();
    // External memory.
    VkExternalMemoryImageCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO};
    external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkImageCreateInfo external_info = ImageInfo(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, {16, 16, 1}, 1, 1);
    external_info.pNext = &external;
    const TestImage e = run.Image(external_info);
    run.Upload(cb, e, Bytes(e.bytes, 12), kDst);
    HostBuffer src = run.Buffer(4096);
    std::memcpy(src.mapped, Bytes(4096, 13).data(), 4096);
    const VkBufferImageCopy region{0, 0, 0, {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1}, {0, 0, 0}, {16, 16, 1}};
    vkCmdCopyBufferToImage(cb, src.buffer, e.image, kDst, 1, &region);
    run.Download(cb, e, kDst);
    // Depth.
    VkImageCreateInfo depth_info = ImageInfo(VK_FORMAT_D32_SFLOAT, VK_IMAGE_TYPE_2D, {16, 16, 1}, 1, 1,
                                             VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT);
    if (!ImageSupported(h, depth_info)) return false;
    const TestImage d = run.Image(depth_info);
    VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    b.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    b.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    b.newLayout = kGeneral;
    b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = d.image;
    b.subresourceRange = {VK_IMAGE_ASPECT_DEPTH_BIT, 0, 1, 0, 1};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0,
                         nullptr, 1, &b);
    std::vector<float> depths(256);
    for (uint32_t i = 0; i < 256; ++i) depths[i] = static_cast<float>(i) / 255.0f;
    HostBuffer depth_src = run.Buffer(1024);
    std::memcpy(depth_src.mapped, depths.data(), 1024);
    const VkBufferImageCopy depth_region{0, 0, 0, {VK_IMAGE_ASPECT_DEPTH_BIT, 0, 0, 1}, {0, 0, 0}, {16, 16, 1}};
    vkCmdCopyBufferToImage(cb, depth_src.buffer, d.image, kGeneral, 1, &depth_region);
    TransferBarrier(cb);
    HostBuffer depth_dst = run.Buffer(1024);
    vkCmdCopyImageToBuffer(cb, d.image, kGeneral, depth_dst.buffer, 1, &depth_region);
    Rig::TransferHostReadBarrier(cb);
    run.Keep(depth_dst);
    // An ambiguous clear colour.
    const TestImage c = run.Image(ImageInfo(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, {16, 16, 1}, 1, 1));
    run.Upload(cb, c, Bytes(c.bytes, 14), kDst);
    VkClearColorValue ambiguous{};
    ambiguous.float32[0] = 0.9f;
    const VkImageSubresourceRange all{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdClearColorImage(cb, c.image, kDst, &ambiguous, 1, &all);
    run.Download(cb, c, kDst);
    return true;
  };
  const ImageRunResult native = RunImageProgram(kLayerOff, program);
  if (native.error == "skipped") GTEST_SKIP() << "no optimal D32_SFLOAT transfer images here";
  const ImageRunResult forced = RunImageProgram(kForceCompute, program);
  ASSERT_BOTH_RAN_SILENTLY(native, forced);
  EXPECT_TRUE(SameDownloads(native, forced, {"external image", "depth", "ambiguous clear"}));
  // Only the ambiguous clear's image's upload and download run as kernels (the external
  // image's stay native with the rest).
  EXPECT_EQ(forced.Counter("image kernels"), forced.staging - 2) << forced.summary;
  for (const char* reason : {"external, swapchain, DRM-modifier or other extended image create info",
                             "depth/stencil aspects", "clear colour not converted exactly for this format"}) {
    EXPECT_NE(forced.summary.find(reason), std::string::npos) << reason << " in: " << forced.summary;
  }
}

// Memory requirements asked without an image (maintenance4, as VMA does) are those of the
// image the layer creates for the same create info (usage and flags added alike).
TEST(TransferImageCases, DeviceImageRequirementsMatchTheCreatedImage) {
  Rig rig(kForceCompute);
  ASSERT_TRUE(rig.ok()) << rig.error();
  VkDevice device = rig.h().device();
  for (VkFormat format : {VK_FORMAT_R8G8B8A8_SRGB, VK_FORMAT_R16G16B16A16_SFLOAT, VK_FORMAT_R8_UNORM}) {
    const VkImageCreateInfo info = ImageInfo(format, VK_IMAGE_TYPE_2D, {257, 129, 1}, 4, 3);
    VkImage image = VK_NULL_HANDLE;
    ASSERT_EQ(vkCreateImage(device, &info, nullptr, &image), VK_SUCCESS);
    VkMemoryRequirements created{};
    vkGetImageMemoryRequirements(device, image, &created);
    VkDeviceImageMemoryRequirements asked{VK_STRUCTURE_TYPE_DEVICE_IMAGE_MEMORY_REQUIREMENTS};
    asked.pCreateInfo = &info;
    VkMemoryRequirements2 answer{VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2};
    vkGetDeviceImageMemoryRequirements(device, &asked, &answer);
    EXPECT_EQ(answer.memoryRequirements.size, created.size) << format;
    EXPECT_EQ(answer.memoryRequirements.alignment, created.alignment) << format;
    EXPECT_EQ(answer.memoryRequirements.memoryTypeBits, created.memoryTypeBits) << format;
    vkDestroyImage(device, image, nullptr);
  }
  rig.Finish();
  EXPECT_VALIDATION_SILENT(rig.h());
}

}  // namespace
}  // namespace bindery::test::transfer
