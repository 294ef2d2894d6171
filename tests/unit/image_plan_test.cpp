// The pure parts of the image kernels (layer/transfer/image_formats.h, image_plan.h): the
// clear colour's bits under the spec's conversion rules, the raw view format of each texel
// size, how a region becomes dispatches (4 GiB buffer spans split), and how subresources
// merge into layout transitions. The embedded image kernels validate as SPIR-V.
#include <gtest/gtest.h>
#include <spirv-tools/libspirv.hpp>

#include <cmath>
#include <cstring>
#include <vector>

#include "image_b2i_2_comp.h"
#include "image_clear_3_comp.h"
#include "image_i2b_1_comp.h"
#include "image_i2i_2_3_comp.h"
#include "transfer/image_formats.h"
#include "transfer/image_plan.h"

namespace bindery::transfer {
namespace {

VkClearColorValue Floats(float r, float g, float b, float a) {
  VkClearColorValue v{};
  v.float32[0] = r;
  v.float32[1] = g;
  v.float32[2] = b;
  v.float32[3] = a;
  return v;
}

TEST(ImageFormats, RawFormatsByTexelSize) {
  EXPECT_EQ(RawFormatOf(VK_FORMAT_R8G8B8A8_SRGB), VK_FORMAT_R32_UINT);
  EXPECT_EQ(RawFormatOf(VK_FORMAT_R8_UNORM), VK_FORMAT_R8_UINT);
  EXPECT_EQ(RawFormatOf(VK_FORMAT_R5G6B5_UNORM_PACK16), VK_FORMAT_R16_UINT);
  EXPECT_EQ(RawFormatOf(VK_FORMAT_R16G16B16A16_SFLOAT), VK_FORMAT_R32G32_UINT);
  EXPECT_EQ(RawFormatOf(VK_FORMAT_R64_UINT), VK_FORMAT_R32G32_UINT);
  EXPECT_EQ(RawFormatOf(VK_FORMAT_R32G32B32A32_SFLOAT), VK_FORMAT_R32G32B32A32_UINT);
  EXPECT_EQ(RawFormatOf(VK_FORMAT_E5B9G9R9_UFLOAT_PACK32), VK_FORMAT_R32_UINT);
  // No raw format: 3, 6, 12, 24, 32 bytes; depth/stencil, compressed, planar.
  EXPECT_EQ(RawFormatOf(VK_FORMAT_R8G8B8_UNORM), VK_FORMAT_UNDEFINED);
  EXPECT_EQ(RawFormatOf(VK_FORMAT_R16G16B16_SFLOAT), VK_FORMAT_UNDEFINED);
  EXPECT_EQ(RawFormatOf(VK_FORMAT_R32G32B32_SFLOAT), VK_FORMAT_UNDEFINED);
  EXPECT_EQ(RawFormatOf(VK_FORMAT_R64G64B64A64_SFLOAT), VK_FORMAT_UNDEFINED);
  EXPECT_EQ(RawFormatOf(VK_FORMAT_D32_SFLOAT), VK_FORMAT_UNDEFINED);
  EXPECT_EQ(RawFormatOf(VK_FORMAT_D24_UNORM_S8_UINT), VK_FORMAT_UNDEFINED);
  // Compressed: the raw format of the block's size (block-texel views), block shapes.
  EXPECT_EQ(RawFormatOf(VK_FORMAT_BC1_RGB_UNORM_BLOCK), VK_FORMAT_R32G32_UINT);
  EXPECT_EQ(RawFormatOf(VK_FORMAT_BC7_SRGB_BLOCK), VK_FORMAT_R32G32B32A32_UINT);
  EXPECT_EQ(RawFormatOf(VK_FORMAT_EAC_R11_UNORM_BLOCK), VK_FORMAT_R32G32_UINT);
  const FormatInfo astc = DescribeFormat(VK_FORMAT_ASTC_10x6_SRGB_BLOCK);
  EXPECT_EQ(astc.texel_bytes, 16u);
  EXPECT_EQ(astc.block_w, 10u);
  EXPECT_EQ(astc.block_h, 6u);
  EXPECT_EQ(RawFormatOf(VK_FORMAT_PVRTC1_2BPP_UNORM_BLOCK_IMG), VK_FORMAT_UNDEFINED);
  EXPECT_EQ(RawFormatOf(VK_FORMAT_G8_B8R8_2PLANE_420_UNORM), VK_FORMAT_UNDEFINED);
  EXPECT_EQ(DescribeFormat(VK_FORMAT_S8_UINT).kind, FormatKind::kDepthStencil);
  EXPECT_EQ(DescribeFormat(VK_FORMAT_ASTC_4x4_SRGB_BLOCK).kind, FormatKind::kCompressed);
}

TEST(ImageFormats, HalfFloatRoundsToNearestEven) {
  EXPECT_EQ(FloatToHalf(1.0f), 0x3C00u);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xC000u);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7BFFu);
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7C00u);  // rounds up to infinity
  EXPECT_EQ(FloatToHalf(1e-8f), 0x0000u);
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -24)), 0x0001u);  // smallest subnormal
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -25)), 0x0000u);  // half of it: tie to even (0)
  EXPECT_EQ(FloatToHalf(std::ldexp(3.0f, -25)), 0x0002u);  // 1.5 subnormal steps: tie to even (2)
  EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3C00u);  // tie: even mantissa stays
  EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(3.0f, -11)), 0x3C02u);  // tie: odd mantissa rounds up
  EXPECT_EQ(FloatToHalf(INFINITY), 0x7C00u);
  EXPECT_EQ(FloatToHalf(NAN) & 0x7C00u, 0x7C00u);
  EXPECT_NE(FloatToHalf(NAN) & 0x03FFu, 0u);
}

TEST(ImageFormats, ClearColourBits) {
  uint32_t bits[4];
  ASSERT_TRUE(ClearColorBits(VK_FORMAT_R8G8B8A8_UNORM, Floats(1.0f, 0.0f, 0.5f, 2.0f), bits));
  EXPECT_EQ(bits[0], 0xFF8000FFu);  // 0.5 * 255 = 127.5: nearest even is 128; 2.0 clamps to 255
  ASSERT_TRUE(ClearColorBits(VK_FORMAT_B8G8R8A8_UNORM, Floats(1.0f, 0.0f, 0.0f, 0.0f), bits));
  EXPECT_EQ(bits[0], 0x00FF0000u);  // red is the third byte
  ASSERT_TRUE(ClearColorBits(VK_FORMAT_R8G8B8A8_SNORM, Floats(-1.0f, 1.0f, -2.0f, 0.0f), bits));
  EXPECT_EQ(bits[0], 0x00817F81u);  // -127, 127, clamped -127, 0
  // 0.5 x 127 = 63.5 rounds to 64 by nearest even and half up alike; -63.5 gives -64 rounding
  // the magnitude but -63 on NVIDIA (half up): negative ties go down natively.
  ASSERT_TRUE(ClearColorBits(VK_FORMAT_R8G8B8A8_SNORM, Floats(0.5f, 0.0f, 0.0f, 0.0f), bits));
  EXPECT_EQ(bits[0], 0x40u);
  EXPECT_FALSE(ClearColorBits(VK_FORMAT_R8G8B8A8_SNORM, Floats(-0.5f, 0.0f, 0.0f, 0.0f), bits));
  ASSERT_TRUE(ClearColorBits(VK_FORMAT_R8G8B8A8_SRGB, Floats(0.25f, 0.0f, 1.0f, 0.5f), bits));
  EXPECT_EQ(bits[0], 0x80FF0089u);  // sRGB(0.25) = 0.5371 -> 136.96 -> 137; alpha stays linear
  // sRGB(0.5) x 255 = 187.52: within a tenth of a step of the tie, where drivers' encoders differ.
  EXPECT_FALSE(ClearColorBits(VK_FORMAT_R8G8B8A8_SRGB, Floats(0.5f, 0.0f, 1.0f, 0.5f), bits));
  ASSERT_TRUE(ClearColorBits(VK_FORMAT_R5G6B5_UNORM_PACK16, Floats(1.0f, 0.0f, 1.0f, 0.0f), bits));
  EXPECT_EQ(bits[0], 0xF81Fu);
  ASSERT_TRUE(ClearColorBits(VK_FORMAT_A2B10G10R10_UNORM_PACK32, Floats(1.0f, 0.0f, 0.0f, 1.0f), bits));
  EXPECT_EQ(bits[0], 0xC00003FFu);
  ASSERT_TRUE(ClearColorBits(VK_FORMAT_R16G16B16A16_SFLOAT, Floats(1.0f, -2.0f, 0.0f, 0.5f), bits));
  EXPECT_EQ(bits[0], 0xC0003C00u);
  EXPECT_EQ(bits[1], 0x38000000u);
  ASSERT_TRUE(ClearColorBits(VK_FORMAT_R32G32B32A32_SFLOAT, Floats(1.5f, 0, 0, -0.0f), bits));
  EXPECT_EQ(bits[0], 0x3FC00000u);
  EXPECT_EQ(bits[3], 0x80000000u);
  VkClearColorValue u{};
  u.uint32[0] = 200;
  u.uint32[1] = 7;
  ASSERT_TRUE(ClearColorBits(VK_FORMAT_R8G8_UINT, u, bits));
  EXPECT_EQ(bits[0], 0x07C8u);
  u.uint32[0] = 300;  // out of range for 8 bits: left to the driver
  EXPECT_FALSE(ClearColorBits(VK_FORMAT_R8G8_UINT, u, bits));
  VkClearColorValue s{};
  s.int32[0] = -128;
  ASSERT_TRUE(ClearColorBits(VK_FORMAT_R8_SINT, s, bits));
  EXPECT_EQ(bits[0], 0x80u);
  s.int32[0] = -129;
  EXPECT_FALSE(ClearColorBits(VK_FORMAT_R8_SINT, s, bits));
  // Near a tie, where conformant drivers may round either way (lavapipe computes 0.9 x 255 in
  // float32: 229.4999939 becomes 230 there, the nearest integer being 229).
  EXPECT_FALSE(ClearColorBits(VK_FORMAT_R8_UNORM, Floats(0.9f, 0, 0, 0), bits));
  EXPECT_FALSE(ClearColorBits(VK_FORMAT_A1R5G5B5_UNORM_PACK16, Floats(0, 0, 0, 0.5f), bits));  // 0.5: 0 or 1
  EXPECT_FALSE(ClearColorBits(VK_FORMAT_R8_UNORM, Floats(0.3f, 0, 0, 0), bits));  // 76.500003
  EXPECT_FALSE(ClearColorBits(VK_FORMAT_R16_UNORM, Floats(0.9f, 0, 0, 0), bits));  // 58981.4984: 58981.5 in float32
  EXPECT_FALSE(ClearColorBits(VK_FORMAT_R16_SFLOAT, Floats(0.3137f, 0, 0, 0), bits));  // not a half: rounding is free
  ASSERT_TRUE(ClearColorBits(VK_FORMAT_R8_UNORM, Floats(0.25f, 0, 0, 0), bits));  // 63.75
  EXPECT_EQ(bits[0], 64u);
  // Not converted by the layer: packed floats, scaled, 64-bit, depth, NaN into UNORM.
  EXPECT_FALSE(ClearColorBits(VK_FORMAT_B10G11R11_UFLOAT_PACK32, Floats(1, 1, 1, 1), bits));
  EXPECT_FALSE(ClearColorBits(VK_FORMAT_E5B9G9R9_UFLOAT_PACK32, Floats(1, 1, 1, 1), bits));
  EXPECT_FALSE(ClearColorBits(VK_FORMAT_R8G8B8A8_USCALED, Floats(1, 1, 1, 1), bits));
  EXPECT_FALSE(ClearColorBits(VK_FORMAT_R64_UINT, u, bits));
  EXPECT_FALSE(ClearColorBits(VK_FORMAT_D32_SFLOAT, Floats(1, 1, 1, 1), bits));
  EXPECT_FALSE(ClearColorBits(VK_FORMAT_R8_UNORM, Floats(NAN, 0, 0, 0), bits));
}

TEST(ImagePlan, OneDispatchForAnOrdinaryRegion) {
  ImageRegion r;
  r.width = 4096;
  r.height = 4096;
  r.slices = 1;
  r.texel_bytes = 4;
  r.buffer_address = 0x10000;
  r.row_pitch = 4096 * 4;
  r.slice_pitch = r.row_pitch * 4096;
  std::vector<std::pair<ImageParams, uint32_t>> out;
  EXPECT_EQ(PlanImageDispatches(r, [&](const ImageParams& p, uint32_t g) { out.push_back({p, g}); }), 1u);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].first.units_x, 4096u);
  EXPECT_EQ(out[0].first.tile_shift, 5u);
  EXPECT_EQ(out[0].second, 65535u);  // 128 x 512 tiles: capped, the kernel loops
  r.height = 1;
  PlanImageDispatches(r, [&](const ImageParams& p, uint32_t g) {
    EXPECT_EQ(p.tile_shift, 8u);
    EXPECT_EQ(g, 16u);
  });
  // Image -> buffer with 1-byte texels: units are buffer words, one more for the phase.
  r.texel_bytes = 1;
  r.buffer_words = true;
  r.width = 37;
  PlanImageDispatches(r, [&](const ImageParams& p, uint32_t) { EXPECT_EQ(p.units_x, 11u); });
}

TEST(ImagePlan, BufferSpansOf4GiBSplit) {
  // 4096 x 4096 x 16 bytes = 256 MiB a layer, 20 layers: 5 GiB of buffer.
  ImageRegion r;
  r.width = 4096;
  r.height = 4096;
  r.slices = 20;
  r.texel_bytes = 16;
  r.buffer_address = 1ull << 40;
  r.row_pitch = 4096 * 16;
  r.slice_pitch = r.row_pitch * 4096;
  r.dst[2] = 3;
  uint32_t slices = 0;
  std::vector<ImageParams> out;
  PlanImageDispatches(r, [&](const ImageParams& p, uint32_t) { out.push_back(p); });
  ASSERT_GE(out.size(), 2u);
  for (const ImageParams& p : out) {
    const uint64_t address = p.buffer[0] | uint64_t{p.buffer[1]} << 32;
    EXPECT_EQ(address, r.buffer_address + uint64_t(p.dst[2] - 3) * r.slice_pitch);
    EXPECT_EQ(p.dst[2], 3 + static_cast<int32_t>(slices));
    EXPECT_LT((p.extent[2] - 1) * r.slice_pitch + (p.extent[1] - 1) * r.row_pitch + r.width * r.texel_bytes,
              1ull << 32);
    slices += p.extent[2];
  }
  EXPECT_EQ(slices, 20u);
  // One slice of 32768 x 32768 x 16 bytes (16 GiB): rows per dispatch.
  r.width = r.height = 32768;
  r.slices = 1;
  r.row_pitch = 32768 * 16;
  r.slice_pitch = r.row_pitch * 32768;
  uint32_t rows = 0;
  PlanImageDispatches(r, [&](const ImageParams& p, uint32_t) {
    EXPECT_EQ(p.dst[1], static_cast<int32_t>(rows));
    rows += p.extent[1];
  });
  EXPECT_EQ(rows, 32768u);
}

TEST(ImagePlan, TransitionsMergePerImageMipAndLayout) {
  LayoutTransitions t;
  const VkImage a = reinterpret_cast<VkImage>(uintptr_t{0x10}), b = reinterpret_cast<VkImage>(uintptr_t{0x20});
  ASSERT_TRUE(t.Add(a, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, 0, 2));
  ASSERT_TRUE(t.Add(a, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, 4, 2));
  EXPECT_EQ(t.count(), 2u);
  ASSERT_TRUE(t.Add(a, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, 1, 3));  // joins both: layers 0-5
  ASSERT_EQ(t.count(), 1u);
  EXPECT_EQ(t.barriers()[0].subresourceRange.baseArrayLayer, 0u);
  EXPECT_EQ(t.barriers()[0].subresourceRange.layerCount, 6u);
  ASSERT_TRUE(t.Add(a, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, 0, 6));  // another mip
  ASSERT_TRUE(t.Add(b, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, 0, 6));  // another image
  ASSERT_TRUE(t.Add(a, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, 0, 7, 1));  // another layout
  EXPECT_EQ(t.count(), 4u);
  for (uint32_t i = 0; i < t.count(); ++i) EXPECT_EQ(t.barriers()[i].newLayout, VK_IMAGE_LAYOUT_GENERAL);
}

void ExpectValid(const uint32_t* words, size_t bytes, const char* name) {
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_2);
  std::string messages;
  tools.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t&, const char* m) {
    messages += m;
    messages += "\n";
  });
  EXPECT_TRUE(tools.Validate(words, bytes / 4)) << name << ":\n" << messages;
}

TEST(ImageKernelsSpirv, EmbeddedSpirvValidates) {
  ExpectValid(image_b2i_2_comp, sizeof(image_b2i_2_comp), "image_buffer_to_image (2D)");
  ExpectValid(image_i2b_1_comp, sizeof(image_i2b_1_comp), "image_to_buffer (1D)");
  ExpectValid(image_i2i_2_3_comp, sizeof(image_i2i_2_3_comp), "image_to_image (2D to 3D)");
  ExpectValid(image_clear_3_comp, sizeof(image_clear_3_comp), "image_clear (3D)");
}

}  // namespace
}  // namespace bindery::transfer
