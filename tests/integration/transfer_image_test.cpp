// Image transfers as compute kernels (docs/transfers.md, "Images"): the differential test.
// Every format x command x region form x layout below runs twice — the layer off, and
// forced (`transfers=force`: image kernels wherever they are allowed) — and every image and
// buffer the commands wrote is read back and compared byte for byte. The bytes around the
// regions are checked too: each image is filled with random bytes first and read back
// whole (all mips and layers), each buffer starts as a canary pattern and is read whole.
// Uploads and downloads go through buffers with exportable memory, which the layer never
// addresses, so they are always the driver's own commands: a kernel's mistake cannot be
// undone by another kernel. The forced run must have run exactly the expected commands as
// kernels (the summary's `image kernels`), and validation (synchronization validation on)
// stays silent in both runs.
#include <cstring>
#include <random>

#include "integration/transfer_image_rig.h"

namespace bindery::test::transfer {
namespace {

enum class ClearKind { kFloat, kUint, kSint };

struct FormatCase {
  const char* name;
  VkFormat format;
  ClearKind clear;
  bool clear_native;  // the layer does not convert this format's clear colour (it clears natively)
};

void PrintTo(const FormatCase& c, std::ostream* os) { *os << c.name; }

// Colour formats of every texel size the kernels take (1, 2, 4, 8, 16 bytes), packed and
// sRGB ones among them.
const FormatCase kFormats[] = {
    {"R8G8B8A8_UNORM", VK_FORMAT_R8G8B8A8_UNORM, ClearKind::kFloat, false},
    {"R8G8B8A8_SRGB", VK_FORMAT_R8G8B8A8_SRGB, ClearKind::kFloat, false},
    {"B8G8R8A8_UNORM", VK_FORMAT_B8G8R8A8_UNORM, ClearKind::kFloat, false},
    {"R8G8B8A8_SNORM", VK_FORMAT_R8G8B8A8_SNORM, ClearKind::kFloat, false},
    {"R8G8B8A8_SINT", VK_FORMAT_R8G8B8A8_SINT, ClearKind::kSint, false},
    {"R8_UNORM", VK_FORMAT_R8_UNORM, ClearKind::kFloat, false},
    {"R8G8_UNORM", VK_FORMAT_R8G8_UNORM, ClearKind::kFloat, false},
    {"R16_SFLOAT", VK_FORMAT_R16_SFLOAT, ClearKind::kFloat, false},
    {"R5G6B5_UNORM_PACK16", VK_FORMAT_R5G6B5_UNORM_PACK16, ClearKind::kFloat, false},
    {"A2B10G10R10_UNORM_PACK32", VK_FORMAT_A2B10G10R10_UNORM_PACK32, ClearKind::kFloat, false},
    {"B10G11R11_UFLOAT_PACK32", VK_FORMAT_B10G11R11_UFLOAT_PACK32, ClearKind::kFloat, true},
    {"R32_SFLOAT", VK_FORMAT_R32_SFLOAT, ClearKind::kFloat, false},
    {"R32_UINT", VK_FORMAT_R32_UINT, ClearKind::kUint, false},
    {"R16G16B16A16_SFLOAT", VK_FORMAT_R16G16B16A16_SFLOAT, ClearKind::kFloat, false},
    {"R16G16B16A16_UNORM", VK_FORMAT_R16G16B16A16_UNORM, ClearKind::kFloat, false},
    {"R32G32_UINT", VK_FORMAT_R32G32_UINT, ClearKind::kUint, false},
    {"R32G32B32A32_SFLOAT", VK_FORMAT_R32G32B32A32_SFLOAT, ClearKind::kFloat, false},
};

VkClearColorValue ClearValue(ClearKind kind, uint32_t which) {
  VkClearColorValue v{};
  switch (kind) {
    case ClearKind::kFloat: {
      // In range and out of range, none near a tie between two values of any format here
      // (ties go down natively: ClearColorBits, unit test ImageFormats.ClearColourBits; -0.5
      // was one for SNORM: -63.5, which the H100 rounds to -63).
      const float values[2][4] = {{0.25f, 1.0f, 0.0625f, 1.5f}, {0.0f, 0.375f, -0.25f, 0.75f}};
      std::memcpy(v.float32, values[which % 2], sizeof(v.float32));
      break;
    }
    case ClearKind::kUint: {
      const uint32_t values[2][4] = {{1, 200, 7, 3}, {0xFFu, 0x12u, 0x7Fu, 0}};
      std::memcpy(v.uint32, values[which % 2], sizeof(v.uint32));
      break;
    }
    case ClearKind::kSint: {
      const int32_t values[2][4] = {{-1, 2, -128, 127}, {5, -6, 0, -7}};
      std::memcpy(v.int32, values[which % 2], sizeof(v.int32));
      break;
    }
  }
  return v;
}

std::vector<uint8_t> Random(uint64_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> out(size);
  for (uint8_t& b : out) b = static_cast<uint8_t>(rng());
  return out;
}

VkBufferImageCopy Region(uint64_t offset, uint32_t row_length, uint32_t image_height, uint32_t mip, uint32_t layer,
                         uint32_t layers, VkOffset3D at, VkExtent3D extent) {
  return {offset, row_length, image_height, {VK_IMAGE_ASPECT_COLOR_BIT, mip, layer, layers}, at, extent};
}

// One command under test with the images it needs: what it is called, whether the forced
// run must take it as kernels, and how to record it (uploads, the command, downloads).
struct Step {
  std::string name;
  bool kernel;
  std::function<void(ImageRun&, VkCommandBuffer, uint32_t seed)> record;
};

// Shapes: a 2D array with mips, a 3D image with mips, a 1D array.
VkImageCreateInfo Shape2D(VkFormat f) { return ImageInfo(f, VK_IMAGE_TYPE_2D, {37, 23, 1}, 3, 3); }
VkImageCreateInfo Shape3D(VkFormat f) { return ImageInfo(f, VK_IMAGE_TYPE_3D, {13, 11, 7}, 2, 1); }
VkImageCreateInfo Shape1D(VkFormat f) { return ImageInfo(f, VK_IMAGE_TYPE_1D, {61, 1, 1}, 2, 4); }

// Buffer -> image: the image is filled with random bytes, then the command writes `regions`
// from a buffer of random bytes, in `layout`; the image is read back whole.
Step BufferToImage(std::string name, VkImageCreateInfo info, VkImageLayout layout,
                   std::vector<VkBufferImageCopy> regions, bool copy2 = false) {
  return {std::move(name), true, [=](ImageRun& run, VkCommandBuffer cb, uint32_t seed) {
            const TestImage image = run.Image(info);
            run.Upload(cb, image, Random(image.bytes, seed), layout);
            const uint64_t size = image.bytes * 2 + 4096;
            HostBuffer src = run.Buffer(size);
            const std::vector<uint8_t> bytes = Random(size, seed + 1);
            std::memcpy(src.mapped, bytes.data(), size);
            if (copy2) {
              std::vector<VkBufferImageCopy2> r2;
              for (const VkBufferImageCopy& r : regions) {
                r2.push_back({VK_STRUCTURE_TYPE_BUFFER_IMAGE_COPY_2, nullptr, r.bufferOffset, r.bufferRowLength,
                              r.bufferImageHeight, r.imageSubresource, r.imageOffset, r.imageExtent});
              }
              VkCopyBufferToImageInfo2 ci{VK_STRUCTURE_TYPE_COPY_BUFFER_TO_IMAGE_INFO_2};
              ci.srcBuffer = src.buffer;
              ci.dstImage = image.image;
              ci.dstImageLayout = layout;
              ci.regionCount = static_cast<uint32_t>(r2.size());
              ci.pRegions = r2.data();
              vkCmdCopyBufferToImage2(cb, &ci);
            } else {
              vkCmdCopyBufferToImage(cb, src.buffer, image.image, layout, static_cast<uint32_t>(regions.size()),
                                     regions.data());
            }
            run.Download(cb, image, layout);
          }};
}

// Image -> buffer: a random image, a canary buffer, the command; the buffer is read whole.
Step ImageToBuffer(std::string name, VkImageCreateInfo info, VkImageLayout layout,
                   std::vector<VkBufferImageCopy> regions, bool copy2 = false) {
  return {std::move(name), true, [=](ImageRun& run, VkCommandBuffer cb, uint32_t seed) {
            const TestImage image = run.Image(info);
            run.Upload(cb, image, Random(image.bytes, seed), layout);
            const uint64_t size = image.bytes * 2 + 4096;
            HostBuffer dst = run.Buffer(size);
            WriteCanary(dst.mapped, size);
            if (copy2) {
              std::vector<VkBufferImageCopy2> r2;
              for (const VkBufferImageCopy& r : regions) {
                r2.push_back({VK_STRUCTURE_TYPE_BUFFER_IMAGE_COPY_2, nullptr, r.bufferOffset, r.bufferRowLength,
                              r.bufferImageHeight, r.imageSubresource, r.imageOffset, r.imageExtent});
              }
              VkCopyImageToBufferInfo2 ci{VK_STRUCTURE_TYPE_COPY_IMAGE_TO_BUFFER_INFO_2};
              ci.srcImage = image.image;
              ci.srcImageLayout = layout;
              ci.dstBuffer = dst.buffer;
              ci.regionCount = static_cast<uint32_t>(r2.size());
              ci.pRegions = r2.data();
              vkCmdCopyImageToBuffer2(cb, &ci);
            } else {
              vkCmdCopyImageToBuffer(cb, image.image, layout, dst.buffer, static_cast<uint32_t>(regions.size()),
                                     regions.data());
            }
            Rig::TransferHostReadBarrier(cb);
            run.Keep(dst);
          }};
}

// Image -> image: two random images (or one: `same`), the command; the destination is read
// back whole.
Step ImageToImage(std::string name, VkImageCreateInfo src_info, VkImageCreateInfo dst_info, VkImageLayout src_layout,
                  VkImageLayout dst_layout, std::vector<VkImageCopy> regions, bool copy2 = false, bool same = false) {
  return {std::move(name), true, [=](ImageRun& run, VkCommandBuffer cb, uint32_t seed) {
            const TestImage src = run.Image(src_info);
            run.Upload(cb, src, Random(src.bytes, seed), src_layout);
            const TestImage dst = same ? src : run.Image(dst_info);
            if (!same) run.Upload(cb, dst, Random(dst.bytes, seed + 7), dst_layout);
            if (copy2) {
              std::vector<VkImageCopy2> r2;
              for (const VkImageCopy& r : regions) {
                r2.push_back({VK_STRUCTURE_TYPE_IMAGE_COPY_2, nullptr, r.srcSubresource, r.srcOffset, r.dstSubresource,
                              r.dstOffset, r.extent});
              }
              VkCopyImageInfo2 ci{VK_STRUCTURE_TYPE_COPY_IMAGE_INFO_2};
              ci.srcImage = src.image;
              ci.srcImageLayout = src_layout;
              ci.dstImage = dst.image;
              ci.dstImageLayout = dst_layout;
              ci.regionCount = static_cast<uint32_t>(r2.size());
              ci.pRegions = r2.data();
              vkCmdCopyImage2(cb, &ci);
            } else {
              vkCmdCopyImage(cb, src.image, src_layout, dst.image, dst_layout, static_cast<uint32_t>(regions.size()),
                             regions.data());
            }
            run.Download(cb, dst, dst_layout);
          }};
}

Step Clear(std::string name, VkImageCreateInfo info, VkImageLayout layout, VkClearColorValue color,
           std::vector<VkImageSubresourceRange> ranges, bool kernel) {
  return {std::move(name), kernel, [=](ImageRun& run, VkCommandBuffer cb, uint32_t seed) {
            const TestImage image = run.Image(info);
            run.Upload(cb, image, Random(image.bytes, seed), layout);
            vkCmdClearColorImage(cb, image.image, layout, &color, static_cast<uint32_t>(ranges.size()),
                                 ranges.data());
            run.Download(cb, image, layout);
          }};
}

constexpr VkImageLayout kDst = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
constexpr VkImageLayout kSrc = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
constexpr VkImageLayout kGeneral = VK_IMAGE_LAYOUT_GENERAL;
constexpr VkImageAspectFlags kColor = VK_IMAGE_ASPECT_COLOR_BIT;

std::vector<Step> StepsFor(const FormatCase& f) {
  const VkFormat fmt = f.format;
  const uint32_t t = TexelBytes(fmt);
  const VkImageCreateInfo a = Shape2D(fmt), c = Shape3D(fmt), d = Shape1D(fmt);
  std::vector<Step> steps;
  // ---- buffer -> image
  steps.push_back(BufferToImage("b2i whole mip 0, all layers, TRANSFER_DST", a, kDst,
                                {Region(0, 0, 0, 0, 0, 3, {0, 0, 0}, {37, 23, 1})}));
  steps.push_back(BufferToImage("b2i row length and image height, offset, mip 1 layers 1-2, GENERAL", a, kGeneral,
                                {Region(3 * t, 25, 13, 1, 1, 2, {3, 2, 0}, {11, 7, 1})}));
  steps.push_back(BufferToImage("b2i2 two regions (mip 0 layer 0 rect, mip 2 layer 2 whole)", a, kDst,
                                {Region(t, 0, 0, 0, 0, 1, {5, 9, 0}, {31, 13, 1}),
                                 Region(4096, 0, 0, 2, 2, 1, {0, 0, 0}, {9, 5, 1})},
                                true));
  steps.push_back(BufferToImage("b2i 3D slices 2-5 of mip 0, offset, GENERAL", c, kGeneral,
                                {Region(t * 7, 14, 12, 0, 0, 1, {1, 2, 2}, {12, 9, 4})}));
  steps.push_back(BufferToImage("b2i 3D mip 1 whole", c, kDst, {Region(0, 0, 0, 1, 0, 1, {0, 0, 0}, {6, 5, 3})}));
  steps.push_back(BufferToImage("b2i 1D layers 1-3, offset", d, kDst,
                                {Region(t * 2, 0, 0, 0, 1, 3, {4, 0, 0}, {50, 1, 1})}));
  // ---- image -> buffer
  steps.push_back(ImageToBuffer("i2b whole mip 0, all layers, TRANSFER_SRC", a, kSrc,
                                {Region(0, 0, 0, 0, 0, 3, {0, 0, 0}, {37, 23, 1})}));
  steps.push_back(ImageToBuffer("i2b row length and image height, offset, mip 1 layers 1-2, GENERAL", a, kGeneral,
                                {Region(5 * t, 23, 9, 1, 1, 2, {2, 1, 0}, {13, 8, 1})}));
  steps.push_back(ImageToBuffer("i2b2 two regions", a, kSrc,
                                {Region(t, 0, 0, 0, 2, 1, {1, 3, 0}, {35, 19, 1}),
                                 Region(8192 + 3 * t, 17, 0, 2, 0, 3, {0, 0, 0}, {9, 5, 1})},
                                true));
  steps.push_back(ImageToBuffer("i2b 3D slices 1-6, offset", c, kSrc,
                                {Region(t * 3, 0, 0, 0, 0, 1, {2, 1, 1}, {10, 9, 5})}));
  steps.push_back(ImageToBuffer("i2b 1D mip 1 layers 0-1", d, kGeneral,
                                {Region(t, 0, 0, 1, 0, 2, {3, 0, 0}, {27, 1, 1})}));
  // ---- image -> image
  auto copy = [](uint32_t smip, uint32_t slayer, uint32_t dmip, uint32_t dlayer, uint32_t layers, VkOffset3D so,
                 VkOffset3D dO, VkExtent3D e) {
    return VkImageCopy{{kColor, smip, slayer, layers}, so, {kColor, dmip, dlayer, layers}, dO, e};
  };
  steps.push_back(ImageToImage("i2i whole mip 0, all layers", a, a, kSrc, kDst,
                               {copy(0, 0, 0, 0, 3, {0, 0, 0}, {0, 0, 0}, {37, 23, 1})}));
  steps.push_back(ImageToImage("i2i offsets, mip 1 layer 2 to mip 0 layer 0, GENERAL", a, a, kGeneral, kGeneral,
                               {copy(1, 2, 0, 0, 1, {3, 2, 0}, {20, 11, 0}, {14, 9, 1})}));
  steps.push_back(ImageToImage("i2i2 two regions", a, a, kSrc, kDst,
                               {copy(0, 0, 1, 1, 2, {1, 1, 0}, {0, 0, 0}, {18, 11, 1}),
                                copy(2, 0, 2, 0, 3, {0, 0, 0}, {0, 0, 0}, {9, 5, 1})},
                               true));
  steps.push_back(ImageToImage("i2i within one image, layer 0 to layer 2, GENERAL", a, a, kGeneral, kGeneral,
                               {copy(0, 0, 0, 2, 1, {0, 0, 0}, {4, 4, 0}, {30, 17, 1})}, false, true));
  steps.push_back(ImageToImage("i2i 3D to 3D, slices", c, c, kSrc, kDst,
                               {copy(0, 0, 0, 0, 1, {1, 1, 1}, {2, 0, 3}, {10, 10, 4})}));
  steps.push_back(ImageToImage("i2i 2D layers to 3D slices", a, c, kSrc, kDst,
                               {VkImageCopy{{kColor, 0, 0, 3}, {0, 0, 0}, {kColor, 0, 0, 1}, {1, 1, 2}, {12, 10, 3}}}));
  steps.push_back(ImageToImage("i2i 3D slices to 2D layers", c, a, kSrc, kDst,
                               {VkImageCopy{{kColor, 0, 0, 1}, {0, 0, 4}, {kColor, 1, 0, 3}, {2, 2, 0}, {13, 9, 3}}}));
  steps.push_back(ImageToImage("i2i 1D layers", d, d, kGeneral, kDst,
                               {copy(0, 1, 1, 0, 3, {5, 0, 0}, {1, 0, 0}, {29, 1, 1})}));
  // ---- clears
  const bool clear_kernel = !f.clear_native;
  steps.push_back(Clear("clear whole image, TRANSFER_DST", a, kDst, ClearValue(f.clear, 0),
                        {{kColor, 0, VK_REMAINING_MIP_LEVELS, 0, VK_REMAINING_ARRAY_LAYERS}}, clear_kernel));
  steps.push_back(Clear("clear mips 1+ layers 1+ and mip 0 layer 0, GENERAL", a, kGeneral, ClearValue(f.clear, 1),
                        {{kColor, 1, VK_REMAINING_MIP_LEVELS, 1, VK_REMAINING_ARRAY_LAYERS}, {kColor, 0, 1, 0, 1}},
                        clear_kernel));
  steps.push_back(Clear("clear 3D mip 1", c, kDst, ClearValue(f.clear, 1), {{kColor, 1, 1, 0, 1}}, clear_kernel));
  steps.push_back(Clear("clear 1D layers 2-3", d, kGeneral, ClearValue(f.clear, 0), {{kColor, 0, 2, 2, 2}},
                        clear_kernel));
  return steps;
}

class TransferImageDifferential : public ::testing::TestWithParam<FormatCase> {};

TEST_P(TransferImageDifferential, ForcedKernelsGiveTheNativeBytes) {
  const FormatCase& f = GetParam();
  {
    HarnessOptions probe_options;
    probe_options.bindery = false;
    probe_options.validation = false;
    VkHarness probe(probe_options);
    ASSERT_TRUE(probe.ok()) << probe.error();
    for (const VkImageCreateInfo& info : {Shape2D(f.format), Shape3D(f.format), Shape1D(f.format)}) {
      if (!ImageSupported(probe, info)) GTEST_SKIP() << f.name << ": the device lacks optimal images of this shape";
    }
  }
  const std::vector<Step> steps = StepsFor(f);
  std::vector<std::string> names;
  uint64_t kernels = 0;
  for (const Step& s : steps) {
    names.push_back(s.name);
    kernels += s.kernel ? 1 : 0;
  }
  auto program = [&](ImageRun& run, VkCommandBuffer cb) {
    for (uint32_t i = 0; i < steps.size(); ++i) {
      steps[i].record(run, cb, 100 * i + 1);
      TransferBarrier(cb);
    }
    return true;
  };
  const ImageRunResult native = RunImageProgram(kLayerOff, program);
  const ImageRunResult forced = RunImageProgram(kForceCompute, program);
  ASSERT_BOTH_RAN_SILENTLY(native, forced);
  EXPECT_TRUE(SameDownloads(native, forced, names));
  EXPECT_EQ(forced.Counter("image kernels"), kernels + forced.staging) << forced.summary;
}

INSTANTIATE_TEST_SUITE_P(Transfer, TransferImageDifferential, ::testing::ValuesIn(kFormats),
                         [](const ::testing::TestParamInfo<FormatCase>& p) { return std::string(p.param.name); });

}  // namespace
}  // namespace bindery::test::transfer

namespace bindery::test::transfer {
namespace {

// Compressed images: copies move whole blocks through block-texel views (one block per texel,
// one layer per view). Regions at block multiples and at the partial blocks of odd mip edges,
// row length and image height in texels (multiples of the block), layers, several regions.
struct CompressedCase {
  const char* name;
  VkFormat format;
  VkFormat other;  // a second format of the same block size and shape (image -> image)
};
void PrintTo(const CompressedCase& c, std::ostream* os) { *os << c.name; }

const CompressedCase kCompressed[] = {
    {"BC1_RGBA_UNORM", VK_FORMAT_BC1_RGBA_UNORM_BLOCK, VK_FORMAT_BC4_UNORM_BLOCK},
    {"BC7_SRGB", VK_FORMAT_BC7_SRGB_BLOCK, VK_FORMAT_BC3_UNORM_BLOCK},
};

class TransferImageCompressed : public ::testing::TestWithParam<CompressedCase> {};

TEST_P(TransferImageCompressed, ForcedKernelsGiveTheNativeBytes) {
  const CompressedCase& f = GetParam();
  const uint32_t block = f.format == VK_FORMAT_BC1_RGBA_UNORM_BLOCK ? 8 : 16;
  // 37 x 23 with 3 mips (10 x 6, 5 x 3, 3 x 2 blocks: partial blocks at every edge), 2 layers.
  auto info = [&](VkFormat format) {
    VkImageCreateInfo i = ImageInfo(format, VK_IMAGE_TYPE_2D, {37, 23, 1}, 3, 2);
    return i;
  };
  {
    HarnessOptions probe_options;
    probe_options.bindery = false;
    probe_options.validation = false;
    VkHarness probe(probe_options);
    ASSERT_TRUE(probe.ok()) << probe.error();
    if (!ImageSupported(probe, info(f.format)) || !ImageSupported(probe, info(f.other))) {
      GTEST_SKIP() << f.name << ": the device lacks optimal images of these compressed formats";
    }
  }
  const VkImageAspectFlags color = VK_IMAGE_ASPECT_COLOR_BIT;
  // Bytes of a whole image of `info`, for TestImage's read-back (mips: 10x6, 5x3, 3x2 blocks).
  std::vector<Step> steps;
  auto region = [&](uint64_t offset, uint32_t row, uint32_t height, uint32_t mip, uint32_t layer, uint32_t layers,
                    VkOffset3D at, VkExtent3D extent) {
    return VkBufferImageCopy{offset, row, height, {color, mip, layer, layers}, at, extent};
  };
  steps.push_back(BufferToImage("b2i whole mip 0, both layers", info(f.format), kDst,
                                {region(0, 0, 0, 0, 0, 2, {0, 0, 0}, {37, 23, 1})}));
  steps.push_back(BufferToImage("b2i row length and image height, offsets, mip 1 edge blocks, layer 1, GENERAL",
                                info(f.format), kGeneral,
                                {region(3 * block, 24, 12, 1, 1, 1, {8, 0, 0}, {10, 11, 1})}));
  steps.push_back(BufferToImage("b2i2 two regions (mip 0 rect, mip 2 whole)", info(f.format), kDst,
                                {region(block, 0, 0, 0, 0, 2, {4, 8, 0}, {28, 12, 1}),
                                 region(4096, 0, 0, 2, 0, 2, {0, 0, 0}, {9, 5, 1})},
                                true));
  steps.push_back(ImageToBuffer("i2b whole mip 0, both layers", info(f.format), kSrc,
                                {region(0, 0, 0, 0, 0, 2, {0, 0, 0}, {37, 23, 1})}));
  steps.push_back(ImageToBuffer("i2b row length, mip 1 edge blocks, GENERAL", info(f.format), kGeneral,
                                {region(5 * block, 20, 0, 1, 0, 2, {4, 4, 0}, {14, 7, 1})}, true));
  auto copy = [&](uint32_t smip, uint32_t slayer, uint32_t dmip, uint32_t dlayer, uint32_t layers, VkOffset3D so,
                  VkOffset3D dO, VkExtent3D e) {
    return VkImageCopy{{color, smip, slayer, layers}, so, {color, dmip, dlayer, layers}, dO, e};
  };
  steps.push_back(ImageToImage("i2i whole mip 0, both layers", info(f.format), info(f.format), kSrc, kDst,
                               {copy(0, 0, 0, 0, 2, {0, 0, 0}, {0, 0, 0}, {37, 23, 1})}));
  steps.push_back(ImageToImage("i2i to another format of the block size, mip 1 edge blocks, GENERAL",
                               info(f.format), info(f.other), kGeneral, kGeneral,
                               {copy(1, 1, 1, 0, 1, {12, 8, 0}, {12, 8, 0}, {6, 3, 1})}));
  steps.push_back(ImageToImage("i2i2 two regions", info(f.format), info(f.format), kSrc, kDst,
                               {copy(0, 0, 1, 0, 2, {4, 4, 0}, {0, 0, 0}, {16, 8, 1}),
                                copy(2, 1, 2, 0, 1, {0, 0, 0}, {0, 0, 0}, {9, 5, 1})},
                               true));
  std::vector<std::string> names;
  for (const Step& s : steps) names.push_back(s.name);
  auto program = [&](ImageRun& run, VkCommandBuffer cb) {
    for (uint32_t i = 0; i < steps.size(); ++i) {
      steps[i].record(run, cb, 100 * i + 7);
      TransferBarrier(cb);
    }
    return true;
  };
  const ImageRunResult native = RunImageProgram(kLayerOff, program);
  const ImageRunResult forced = RunImageProgram(kForceCompute, program);
  ASSERT_BOTH_RAN_SILENTLY(native, forced);
  EXPECT_TRUE(SameDownloads(native, forced, names));
  EXPECT_EQ(forced.Counter("image kernels"), steps.size() + forced.staging) << forced.summary;
}

INSTANTIATE_TEST_SUITE_P(Transfer, TransferImageCompressed, ::testing::ValuesIn(kCompressed),
                         [](const ::testing::TestParamInfo<CompressedCase>& p) { return std::string(p.param.name); });

}  // namespace
}  // namespace bindery::test::transfer
