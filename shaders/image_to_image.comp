#version 450
#extension GL_GOOGLE_include_directive : require
// vkCmdCopyImage: each texel fetched through the source's raw view and stored through the
// destination's (both of the texel size; formats need only be size-compatible, as for the
// native command). SRC_DIM, DST_DIM: 1, 2 or 3.
#include "image_common.glsl"

layout(set = 0, binding = 0) uniform TEXTURE_TYPE(SRC_DIM) src_image;
layout(set = 0, binding = 1) writeonly uniform STORAGE_TYPE(DST_DIM) dst_image;

ImageParams p;

void CopyTexel(uint x, uint y, uint s) {
  imageStore(dst_image, IMAGE_COORD(DST_DIM)(p.dst, x, y, s),
             texelFetch(src_image, IMAGE_COORD(SRC_DIM)(p.src, x, y, s), 0));
}

void main() {
  p = LoadImageParams();
  FOR_EACH_UNIT(p, CopyTexel)
}
