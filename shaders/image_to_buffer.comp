#version 450
#extension GL_GOOGLE_include_directive : require
// vkCmdCopyImageToBuffer: texels fetched through the raw view and written to the buffer.
// Texels of 4 bytes or more: one unit per texel, whole words. 1- and 2-byte texels: one unit
// per buffer word of the row, its texels gathered; a word the row only partly covers (its
// first and last, which may hold bytes of the neighbouring row or of other data) gets its
// bytes with atomics, leaving the others as they are. SRC_DIM: 1, 2 or 3.
#include "image_common.glsl"

layout(set = 0, binding = 0) uniform TEXTURE_TYPE(SRC_DIM) src_image;

ImageParams p;

uint Fetch(uint x, uint y, uint s) { return texelFetch(src_image, IMAGE_COORD(SRC_DIM)(p.src, x, y, s), 0).x; }

void CopyUnit(uint x, uint y, uint s) {
  if (p.texel_bytes >= 4u) {
    const uvec4 v = texelFetch(src_image, IMAGE_COORD(SRC_DIM)(p.src, x, y, s), 0);
    Words w = Words(AddOffset(p.buffer_address, y * p.row_pitch + s * p.slice_pitch + x * p.texel_bytes));
    w.w[0] = v.x;
    if (p.texel_bytes >= 8u) w.w[1] = v.y;
    if (p.texel_bytes == 16u) {
      w.w[2] = v.z;
      w.w[3] = v.w;
    }
    return;
  }
  // Word x of the row (counted from the word holding the row's first byte).
  const uvec2 row = AddOffset(p.buffer_address, y * p.row_pitch + s * p.slice_pitch);
  const uint phase = row.x & 3u;
  const uint row_bytes = p.extent.x * p.texel_bytes;
  const int first = int(4u * x) - int(phase);  // row byte at the word's byte 0
  if (first >= int(row_bytes)) return;
  uint bits = 0u, mask = 0u;
  for (int b = 0; b < 4; ++b) {
    const int r = first + b;
    if (r < 0 || r >= int(row_bytes)) continue;
    const uint texel = Fetch(uint(r) / p.texel_bytes, y, s);
    const uint byte_value = (texel >> (8u * (uint(r) % p.texel_bytes))) & 0xFFu;
    bits |= byte_value << (8u * uint(b));
    mask |= 0xFFu << (8u * uint(b));
  }
  Words w = Words(AddOffset(uvec2(row.x & ~3u, row.y), 4u * x));
  if (mask == 0xFFFFFFFFu) {
    w.w[0] = bits;
  } else {
    atomicAnd(w.w[0], ~mask);
    atomicOr(w.w[0], bits);
  }
}

void main() {
  p = LoadImageParams();
  FOR_EACH_UNIT(p, CopyUnit)
}
