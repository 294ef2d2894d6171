#version 450
#extension GL_GOOGLE_include_directive : require
// vkCmdClearColorImage: the clear colour's raw bits (converted on the host as the spec's
// conversion rules say, transfer/image_formats.h) stored into every texel. DST_DIM: 1, 2 or 3.
#include "image_common.glsl"

layout(set = 0, binding = 1) writeonly uniform STORAGE_TYPE(DST_DIM) dst_image;

ImageParams p;

void ClearTexel(uint x, uint y, uint s) { imageStore(dst_image, IMAGE_COORD(DST_DIM)(p.dst, x, y, s), p.value); }

void main() {
  p = LoadImageParams();
  FOR_EACH_UNIT(p, ClearTexel)
}
