#version 450
#extension GL_GOOGLE_include_directive : require
// vkCmdCopyBufferToImage: each texel's bytes read from the buffer (as words, or the bytes of
// one word for 1- and 2-byte texels) and stored through the raw view. DST_DIM: 1, 2 or 3.
#include "image_common.glsl"

layout(set = 0, binding = 1) writeonly uniform STORAGE_TYPE(DST_DIM) dst_image;

ImageParams p;

void CopyTexel(uint x, uint y, uint s) {
  const uvec2 address = AddOffset(p.buffer_address, y * p.row_pitch + s * p.slice_pitch + x * p.texel_bytes);
  uvec4 v = uvec4(0u);
  if (p.texel_bytes >= 4u) {
    Words w = Words(address);
    v.x = w.w[0];
    if (p.texel_bytes >= 8u) v.y = w.w[1];
    if (p.texel_bytes == 16u) {
      v.z = w.w[2];
      v.w = w.w[3];
    }
  } else {
    const uint word = Words(uvec2(address.x & ~3u, address.y)).w[0];
    v.x = (word >> (8u * (address.x & 3u))) & (p.texel_bytes == 1u ? 0xFFu : 0xFFFFu);
  }
  imageStore(dst_image, IMAGE_COORD(DST_DIM)(p.dst, x, y, s), v);
}

void main() {
  p = LoadImageParams();
  FOR_EACH_UNIT(p, CopyTexel)
}
