// What the image transfer kernels need to know of a VkFormat: its texel block size (which
// raw unsigned-integer format views its bits unchanged), whether it is plain colour (depth,
// stencil, multi-planar, YCbCr and compressed formats take the native path), and, for
// vkCmdClearColorImage, how a VkClearColorValue becomes the texel's bits under the spec's
// conversion rules. Pure functions: unit-tested without a GPU (tests/unit).
#pragma once

#include <cstdint>

#include <vulkan/vulkan.h>

namespace bindery::transfer {

enum class FormatKind : uint8_t {
  kColor,        // uncompressed, single-plane colour: its bits can be moved through a raw view
  kDepthStencil,  // depth and/or stencil aspects: native
  kCompressed,   // block-compressed: copies move whole blocks through block-texel views
  kOther,        // multi-planar, YCbCr, unknown: native
};

// How one component's value is stored and converted.
enum class Numeric : uint8_t { kUnorm, kSnorm, kUscaled, kSscaled, kUint, kSint, kUfloat, kSfloat, kSrgb };

struct FormatComponent {
  uint8_t channel;  // 0 R, 1 G, 2 B, 3 A
  uint8_t offset;   // first bit in the texel, counted from bit 0 of its first byte (little-endian)
  uint8_t bits;
};

struct FormatInfo {
  FormatKind kind = FormatKind::kOther;
  uint32_t texel_bytes = 0;  // bytes per texel block (kColor: per texel)
  uint32_t block_w = 1, block_h = 1;  // texels per block (compressed formats)
  Numeric numeric = Numeric::kUnorm;
  uint8_t component_count = 0;
  FormatComponent components[4] = {};
  bool shared_exponent = false;  // E5B9G9R9
};

FormatInfo DescribeFormat(VkFormat format);

// The unsigned-integer format whose texels have `texel_bytes` bytes (R8_UINT, R16_UINT,
// R32_UINT, R32G32_UINT, R32G32B32A32_UINT); VK_FORMAT_UNDEFINED for other sizes (3, 6, 12
// bytes...: no raw storage format exists, those take the native path).
VkFormat RawFormatForTexelBytes(uint32_t texel_bytes);

// The raw view format of `format`, or VK_FORMAT_UNDEFINED when its bits cannot be moved
// through one (depth/stencil, multi-planar, a texel size without a raw format). For a
// compressed format it is the format of its blocks' size (R32G32 or R32G32B32A32_UINT): a
// block-texel view sees one block per texel.
VkFormat RawFormatOf(VkFormat format);

// The bits vkCmdClearColorImage writes into one texel of `format` for `color`, as words
// (little-endian, texel_bytes of them meaningful). False where the layer does not convert
// that format exactly (it then clears natively): packed floats (B10G11R11, E5B9G9R9),
// scaled formats, 64-bit components, integer values outside the component's range (the
// spec leaves those to the implementation), NaNs, and values whose conversion the spec lets
// drivers round either way (near a tie between two integers; sRGB within a tenth of a step
// of one; a half-float value that is not a half exactly; float32 subnormals).
bool ClearColorBits(VkFormat format, const VkClearColorValue& color, uint32_t (&out)[4]);

// How a format's components are encoded, for the classes of blits the policy proves per
// driver (transfer/policy.h): a blit decodes its source and encodes its destination, and
// whether a kernel does both exactly as the driver's command does is a property of the
// pair of encodings and the filter.
enum class Encoding : uint8_t {
  kUnorm8, kSrgb8, kSnorm8, kUnorm16, kSnorm16, kFloat16, kFloat32, kUint, kSint, kOther, kCount
};
inline constexpr int kEncodingCount = static_cast<int>(Encoding::kCount);
Encoding EncodingOf(VkFormat format);
const char* ToString(Encoding encoding);

// IEEE half from float, rounding to nearest even (NaN stays a quiet NaN, overflow goes to
// infinity).
uint16_t FloatToHalf(float value);

}  // namespace bindery::transfer
