#include "transfer/image_formats.h"

#include <cmath>
#include <cstring>
#include <initializer_list>

namespace bindery::transfer {
namespace {

constexpr Numeric kSeven[7] = {Numeric::kUnorm, Numeric::kSnorm, Numeric::kUscaled, Numeric::kSscaled,
                               Numeric::kUint,  Numeric::kSint,  Numeric::kSrgb};
constexpr Numeric kSixteen[7] = {Numeric::kUnorm, Numeric::kSnorm, Numeric::kUscaled, Numeric::kSscaled,
                                 Numeric::kUint,  Numeric::kSint,  Numeric::kSfloat};
constexpr Numeric kThirtyTwo[3] = {Numeric::kUint, Numeric::kSint, Numeric::kSfloat};

FormatInfo Color(uint32_t bytes, Numeric numeric, std::initializer_list<FormatComponent> components) {
  FormatInfo f;
  f.kind = FormatKind::kColor;
  f.texel_bytes = bytes;
  f.numeric = numeric;
  for (const FormatComponent& c : components) f.components[f.component_count++] = c;
  return f;
}

// `count` components of `bits` each, stored in order, channels as listed.
FormatInfo Array(Numeric numeric, uint8_t bits, std::initializer_list<uint8_t> channels) {
  FormatInfo f;
  f.kind = FormatKind::kColor;
  f.numeric = numeric;
  uint8_t offset = 0;
  for (uint8_t channel : channels) {
    f.components[f.component_count++] = {channel, offset, bits};
    offset = static_cast<uint8_t>(offset + bits);
  }
  f.texel_bytes = offset / 8u;
  return f;
}

FormatInfo Kind(FormatKind kind, uint32_t bytes) {
  FormatInfo f;
  f.kind = kind;
  f.texel_bytes = bytes;
  return f;
}

FormatInfo Compressed(uint32_t bytes, uint32_t w, uint32_t h) {
  FormatInfo f = Kind(FormatKind::kCompressed, bytes);
  f.block_w = w;
  f.block_h = h;
  return f;
}

// BC, ETC2/EAC and ASTC LDR block shapes (format enum order of the core headers).
FormatInfo CompressedInfo(int f) {
  if (f >= 131 && f <= 134) return Compressed(8, 4, 4);    // BC1
  if (f >= 135 && f <= 138) return Compressed(16, 4, 4);   // BC2, BC3
  if (f >= 139 && f <= 140) return Compressed(8, 4, 4);    // BC4
  if (f >= 141 && f <= 146) return Compressed(16, 4, 4);   // BC5, BC6H, BC7
  if (f >= 147 && f <= 150) return Compressed(8, 4, 4);    // ETC2 RGB, RGB A1
  if (f >= 151 && f <= 152) return Compressed(16, 4, 4);   // ETC2 RGBA
  if (f >= 153 && f <= 154) return Compressed(8, 4, 4);    // EAC R11
  if (f >= 155 && f <= 156) return Compressed(16, 4, 4);   // EAC R11G11
  if (f >= 157 && f <= 184) {                               // ASTC: 16-byte blocks, 14 shapes
    static const uint8_t kShapes[14][2] = {{4, 4}, {5, 4}, {5, 5}, {6, 5}, {6, 6}, {8, 5}, {8, 6},
                                           {8, 8}, {10, 5}, {10, 6}, {10, 8}, {10, 10}, {12, 10}, {12, 12}};
    const uint8_t* shape = kShapes[(f - 157) / 2];
    return Compressed(16, shape[0], shape[1]);
  }
  return Kind(FormatKind::kCompressed, 0);
}

constexpr uint8_t R = 0, G = 1, B = 2, A = 3;

// The spec converts a float to a b-bit normalized integer by returning "one of the two
// integers closest to r = f x (2^b - 1)" ("implementations should round to nearest"), so two
// conformant drivers may disagree where r is (nearly) halfway: exactly halfway, or so close
// that float32 arithmetic decides (lavapipe computes r in float32: 0.9 x 255 = 229.4999939
// becomes 230 there). The layer converts only where every driver that rounds to nearest
// agrees: r at least kTieMargin from a half-integer, or exactly halfway below an odd integer
// (then round-to-nearest-even and round-half-up both give the integer above it). Elsewhere
// the clear goes down natively. The margin grows with r: float32 carries r to within a few
// units in its last place (0.9 x 65535 = 58981.4984 is 58981.5 in float32: lavapipe gives
// 58982).
constexpr double kTieMargin = 1e-3;

bool Nearest(double r, double margin, uint32_t& out, bool ties_agree = true) {
  margin += std::fabs(r) * std::ldexp(1.0, -21);
  const double below = std::floor(r);
  const double distance = std::fabs(r - below - 0.5);
  if (distance < margin) {
    const bool exact_tie_above_odd = ties_agree && distance == 0.0 && std::fmod(below, 2.0) != 0.0;
    if (!exact_tie_above_odd) return false;
  }
  out = static_cast<uint32_t>(static_cast<int64_t>(std::nearbyint(r)));
  return true;
}

bool Unorm(float f, uint8_t bits, uint32_t& out) {
  if (std::isnan(f)) return false;
  const double c = f < 0.0f ? 0.0 : (f > 1.0f ? 1.0 : static_cast<double>(f));
  return Nearest(c * static_cast<double>((1ull << bits) - 1), kTieMargin, out);
}

bool Snorm(float f, uint8_t bits, uint32_t& out) {
  if (std::isnan(f)) return false;
  const double c = f < -1.0f ? -1.0 : (f > 1.0f ? 1.0 : static_cast<double>(f));
  uint32_t v = 0;
  // Symmetric around zero: round the magnitude, then negate. A negative value halfway
  // between two integers has no answer every driver agrees on: NVIDIA (580.159.04) rounds
  // -63.5 up to -63 where rounding the magnitude gives -64 (the H100's image differential
  // test, R8G8B8A8_SNORM clear): such clears go down natively.
  if (!Nearest(std::fabs(c) * static_cast<double>((1ull << (bits - 1)) - 1), kTieMargin, v, c >= 0)) return false;
  const int64_t signed_value = c < 0 ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  out = static_cast<uint32_t>(signed_value) & static_cast<uint32_t>((1ull << bits) - 1);
  return true;
}

// The sRGB transfer function (linear -> encoded), in double precision. Drivers encode with
// tables or approximations accurate to about 0.6 of an 8-bit step: values whose encoding is
// within kSrgbMargin of a half step go down natively.
double SrgbEncode(double c) { return c <= 0.0031308 ? 12.92 * c : 1.055 * std::pow(c, 1.0 / 2.4) - 0.055; }
constexpr double kSrgbMargin = 0.1;

// float -> half only where the value is a half exactly: the spec leaves the rounding of
// other values to the driver (lavapipe truncates: 0.3137 becomes 0x3504, not 0x3505), and a
// driver may flush subnormal halves.
bool Half(float f, uint32_t& out) {
  if (std::isnan(f)) return false;
  const uint16_t h = FloatToHalf(f);
  if ((h & 0x7C00u) == 0x7C00u || ((h & 0x7C00u) == 0 && (h & 0x03FFu) != 0)) return false;
  const int exponent = static_cast<int>((h >> 10) & 0x1F);
  const double magnitude =
      exponent == 0 ? 0.0 : std::ldexp(1.0 + static_cast<double>(h & 0x03FFu) / 1024.0, exponent - 15);
  if (magnitude != std::fabs(static_cast<double>(f))) return false;
  out = h;
  return true;
}

// A float32 component keeps its bits, unless it is a NaN or subnormal (a driver may
// canonicalize or flush them).
bool Float32(float f, uint32_t& out) {
  if (std::isnan(f) || std::fpclassify(f) == FP_SUBNORMAL) return false;
  std::memcpy(&out, &f, 4);
  return true;
}

}  // namespace

FormatInfo DescribeFormat(VkFormat format) {
  const int f = static_cast<int>(format);
  switch (format) {
    case VK_FORMAT_R4G4_UNORM_PACK8: return Color(1, Numeric::kUnorm, {{R, 4, 4}, {G, 0, 4}});
    case VK_FORMAT_R4G4B4A4_UNORM_PACK16: return Color(2, Numeric::kUnorm, {{R, 12, 4}, {G, 8, 4}, {B, 4, 4}, {A, 0, 4}});
    case VK_FORMAT_B4G4R4A4_UNORM_PACK16: return Color(2, Numeric::kUnorm, {{B, 12, 4}, {G, 8, 4}, {R, 4, 4}, {A, 0, 4}});
    case VK_FORMAT_R5G6B5_UNORM_PACK16: return Color(2, Numeric::kUnorm, {{R, 11, 5}, {G, 5, 6}, {B, 0, 5}});
    case VK_FORMAT_B5G6R5_UNORM_PACK16: return Color(2, Numeric::kUnorm, {{B, 11, 5}, {G, 5, 6}, {R, 0, 5}});
    case VK_FORMAT_R5G5B5A1_UNORM_PACK16: return Color(2, Numeric::kUnorm, {{R, 11, 5}, {G, 6, 5}, {B, 1, 5}, {A, 0, 1}});
    case VK_FORMAT_B5G5R5A1_UNORM_PACK16: return Color(2, Numeric::kUnorm, {{B, 11, 5}, {G, 6, 5}, {R, 1, 5}, {A, 0, 1}});
    case VK_FORMAT_A1R5G5B5_UNORM_PACK16: return Color(2, Numeric::kUnorm, {{A, 15, 1}, {R, 10, 5}, {G, 5, 5}, {B, 0, 5}});
    case VK_FORMAT_A4R4G4B4_UNORM_PACK16: return Color(2, Numeric::kUnorm, {{A, 12, 4}, {R, 8, 4}, {G, 4, 4}, {B, 0, 4}});
    case VK_FORMAT_A4B4G4R4_UNORM_PACK16: return Color(2, Numeric::kUnorm, {{A, 12, 4}, {B, 8, 4}, {G, 4, 4}, {R, 0, 4}});
    case VK_FORMAT_B10G11R11_UFLOAT_PACK32: return Color(4, Numeric::kUfloat, {{R, 0, 11}, {G, 11, 11}, {B, 22, 10}});
    case VK_FORMAT_E5B9G9R9_UFLOAT_PACK32: {
      FormatInfo e = Color(4, Numeric::kUfloat, {{R, 0, 9}, {G, 9, 9}, {B, 18, 9}});
      e.shared_exponent = true;
      return e;
    }
    case VK_FORMAT_D16_UNORM: return Kind(FormatKind::kDepthStencil, 2);
    case VK_FORMAT_X8_D24_UNORM_PACK32: return Kind(FormatKind::kDepthStencil, 4);
    case VK_FORMAT_D32_SFLOAT: return Kind(FormatKind::kDepthStencil, 4);
    case VK_FORMAT_S8_UINT: return Kind(FormatKind::kDepthStencil, 1);
    case VK_FORMAT_D16_UNORM_S8_UINT: return Kind(FormatKind::kDepthStencil, 3);
    case VK_FORMAT_D24_UNORM_S8_UINT: return Kind(FormatKind::kDepthStencil, 4);
    case VK_FORMAT_D32_SFLOAT_S8_UINT: return Kind(FormatKind::kDepthStencil, 5);
    default: break;
  }
  if (f >= 9 && f <= 15) return Array(kSeven[f - 9], 8, {R});
  if (f >= 16 && f <= 22) return Array(kSeven[f - 16], 8, {R, G});
  if (f >= 23 && f <= 29) return Array(kSeven[f - 23], 8, {R, G, B});
  if (f >= 30 && f <= 36) return Array(kSeven[f - 30], 8, {B, G, R});
  if (f >= 37 && f <= 43) return Array(kSeven[f - 37], 8, {R, G, B, A});
  if (f >= 44 && f <= 50) return Array(kSeven[f - 44], 8, {B, G, R, A});
  if (f >= 51 && f <= 57) return Array(kSeven[f - 51], 8, {R, G, B, A});  // A8B8G8R8 packed: R in bits 0-7
  if (f >= 58 && f <= 63) return Color(4, kSeven[f - 58], {{B, 0, 10}, {G, 10, 10}, {R, 20, 10}, {A, 30, 2}});
  if (f >= 64 && f <= 69) return Color(4, kSeven[f - 64], {{R, 0, 10}, {G, 10, 10}, {B, 20, 10}, {A, 30, 2}});
  if (f >= 70 && f <= 76) return Array(kSixteen[f - 70], 16, {R});
  if (f >= 77 && f <= 83) return Array(kSixteen[f - 77], 16, {R, G});
  if (f >= 84 && f <= 90) return Array(kSixteen[f - 84], 16, {R, G, B});
  if (f >= 91 && f <= 97) return Array(kSixteen[f - 91], 16, {R, G, B, A});
  if (f >= 98 && f <= 100) return Array(kThirtyTwo[f - 98], 32, {R});
  if (f >= 101 && f <= 103) return Array(kThirtyTwo[f - 101], 32, {R, G});
  if (f >= 104 && f <= 106) return Array(kThirtyTwo[f - 104], 32, {R, G, B});
  if (f >= 107 && f <= 109) return Array(kThirtyTwo[f - 107], 32, {R, G, B, A});
  if (f >= 110 && f <= 121) {
    // 64-bit components: copies move their bits like any other; clears are not converted.
    const uint32_t components = static_cast<uint32_t>((f - 110) / 3 + 1);
    FormatInfo w = Kind(FormatKind::kColor, 8 * components);
    w.numeric = kThirtyTwo[(f - 110) % 3];
    return w;
  }
  if (f >= 131 && f <= 184) return CompressedInfo(f);
  if (f >= 1000054000 && f <= 1000054007) return Kind(FormatKind::kCompressed, 0);  // PVRTC
  if (f >= 1000066000 && f <= 1000066013) return Kind(FormatKind::kCompressed, 0);  // ASTC HDR
  return Kind(FormatKind::kOther, 0);  // multi-planar, YCbCr, unknown
}

Encoding EncodingOf(VkFormat format) {
  const FormatInfo f = DescribeFormat(format);
  if (f.kind != FormatKind::kColor || f.component_count == 0 || f.shared_exponent) return Encoding::kOther;
  // Every component of these formats has the same width except the packed ones.
  const uint8_t bits = f.components[0].bits;
  for (uint8_t i = 1; i < f.component_count; ++i) {
    if (f.components[i].bits != bits) return Encoding::kOther;
  }
  switch (f.numeric) {
    case Numeric::kUnorm: return bits == 8 ? Encoding::kUnorm8 : bits == 16 ? Encoding::kUnorm16 : Encoding::kOther;
    case Numeric::kSnorm: return bits == 8 ? Encoding::kSnorm8 : bits == 16 ? Encoding::kSnorm16 : Encoding::kOther;
    case Numeric::kSrgb: return Encoding::kSrgb8;
    case Numeric::kSfloat: return bits == 16 ? Encoding::kFloat16 : bits == 32 ? Encoding::kFloat32 : Encoding::kOther;
    case Numeric::kUint: return Encoding::kUint;
    case Numeric::kSint: return Encoding::kSint;
    default: return Encoding::kOther;
  }
}

const char* ToString(Encoding encoding) {
  switch (encoding) {
    case Encoding::kUnorm8: return "unorm8";
    case Encoding::kSrgb8: return "srgb8";
    case Encoding::kSnorm8: return "snorm8";
    case Encoding::kUnorm16: return "unorm16";
    case Encoding::kSnorm16: return "snorm16";
    case Encoding::kFloat16: return "float16";
    case Encoding::kFloat32: return "float32";
    case Encoding::kUint: return "uint";
    case Encoding::kSint: return "sint";
    default: return "other";
  }
}

VkFormat RawFormatForTexelBytes(uint32_t texel_bytes) {
  switch (texel_bytes) {
    case 1: return VK_FORMAT_R8_UINT;
    case 2: return VK_FORMAT_R16_UINT;
    case 4: return VK_FORMAT_R32_UINT;
    case 8: return VK_FORMAT_R32G32_UINT;
    case 16: return VK_FORMAT_R32G32B32A32_UINT;
    default: return VK_FORMAT_UNDEFINED;
  }
}

VkFormat RawFormatOf(VkFormat format) {
  const FormatInfo info = DescribeFormat(format);
  return info.kind == FormatKind::kColor || info.kind == FormatKind::kCompressed
             ? RawFormatForTexelBytes(info.texel_bytes)
             : VK_FORMAT_UNDEFINED;
}

uint16_t FloatToHalf(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t exponent = (x >> 23) & 0xFFu;
  uint32_t mantissa = x & 0x7FFFFFu;
  if (exponent == 0xFFu) return static_cast<uint16_t>(sign | 0x7C00u | (mantissa != 0 ? 0x200u : 0u));
  const int e = static_cast<int>(exponent) - 127 + 15;
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7C00u);
  if (e <= 0) {
    // Subnormal half (or zero): shift the full mantissa (with its implicit 1) into place.
    if (e < -10) return static_cast<uint16_t>(sign);
    mantissa |= 0x800000u;
    const uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t half = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1u) != 0)) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = (static_cast<uint32_t>(e) << 10) | (mantissa >> 13);
  const uint32_t rest = mantissa & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u) != 0)) ++half;  // may carry into the exponent: right
  return static_cast<uint16_t>(sign | half);
}

bool ClearColorBits(VkFormat format, const VkClearColorValue& color, uint32_t (&out)[4]) {
  const FormatInfo info = DescribeFormat(format);
  out[0] = out[1] = out[2] = out[3] = 0;
  if (info.kind != FormatKind::kColor || info.component_count == 0 || info.shared_exponent) return false;
  if (RawFormatForTexelBytes(info.texel_bytes) == VK_FORMAT_UNDEFINED) return false;
  for (uint8_t i = 0; i < info.component_count; ++i) {
    const FormatComponent& c = info.components[i];
    uint32_t bits = 0;
    switch (info.numeric) {
      case Numeric::kUnorm:
        if (!Unorm(color.float32[c.channel], c.bits, bits)) return false;
        break;
      case Numeric::kSnorm:
        if (!Snorm(color.float32[c.channel], c.bits, bits)) return false;
        break;
      case Numeric::kSrgb: {
        const float f = color.float32[c.channel];
        if (c.channel == A) {
          if (!Unorm(f, c.bits, bits)) return false;
          break;
        }
        if (std::isnan(f)) return false;
        const double linear = f < 0.0f ? 0.0 : (f > 1.0f ? 1.0 : static_cast<double>(f));
        if (!Nearest(SrgbEncode(linear) * 255.0, kSrgbMargin, bits)) return false;
        break;
      }
      case Numeric::kUint: {
        const uint32_t v = color.uint32[c.channel];
        if (c.bits < 32 && v > (1u << c.bits) - 1) return false;
        bits = v;
        break;
      }
      case Numeric::kSint: {
        const int32_t v = color.int32[c.channel];
        if (c.bits < 32) {
          const int32_t low = -(1 << (c.bits - 1)), high = (1 << (c.bits - 1)) - 1;
          if (v < low || v > high) return false;
          bits = static_cast<uint32_t>(v) & ((1u << c.bits) - 1);
        } else {
          bits = static_cast<uint32_t>(v);
        }
        break;
      }
      case Numeric::kSfloat:
        if (c.bits == 32) {
          if (!Float32(color.float32[c.channel], bits)) return false;
        } else if (c.bits == 16) {
          if (!Half(color.float32[c.channel], bits)) return false;
        } else {
          return false;
        }
        break;
      case Numeric::kUscaled:
      case Numeric::kSscaled:
      case Numeric::kUfloat:
        return false;
    }
    // Components never straddle a 32-bit word in these formats.
    out[c.offset / 32] |= bits << (c.offset % 32);
  }
  return true;
}

}  // namespace bindery::transfer
