#version 450
#extension GL_GOOGLE_include_directive : require
// vkCmdResolveImage: each destination texel from the samples of the multisampled source at
// the same place (a sampled view of the source's own format: texelFetch of each sample, the
// view decodes; no storage access to a multisampled image, which would need
// shaderStorageImageMultisample), stored through a storage view of the destination's own
// format (the store encodes). Floating-point and normalized formats: the samples' mean,
// summed in sample order and divided by the count (a power of two: exact), as a driver's
// resolve shader computes it; integer formats: sample 0 (the spec lets a resolve of integer
// formats select a single sample's value). Whether that gives the native command's bytes is
// the driver's business: the policy runs this kernel only for the classes proven so
// (transfer/policy.h, ProvenResolves). KIND: 0 float, 1 unsigned, 2 signed integer.
// Record: src/dst origins (z = first layer within the views), extent (z = layers),
// value.x = the sample count.
#include "image_common.glsl"

#if KIND == 0
layout(set = 0, binding = 0) uniform texture2DMSArray src_image;
layout(set = 0, binding = 1) writeonly uniform image2DArray dst_image;
#elif KIND == 1
layout(set = 0, binding = 0) uniform utexture2DMSArray src_image;
layout(set = 0, binding = 1) writeonly uniform uimage2DArray dst_image;
#else
layout(set = 0, binding = 0) uniform itexture2DMSArray src_image;
layout(set = 0, binding = 1) writeonly uniform iimage2DArray dst_image;
#endif

ImageParams p;

void ResolveTexel(uint x, uint y, uint s) {
  const ivec3 at = IMAGE_COORD_2(p.src, x, y, s);
#if KIND == 0
  vec4 sum = texelFetch(src_image, at, 0);
  for (int i = 1; i < int(p.value.x); ++i) sum += texelFetch(src_image, at, i);
  imageStore(dst_image, IMAGE_COORD_2(p.dst, x, y, s), sum / float(p.value.x));
#else
  imageStore(dst_image, IMAGE_COORD_2(p.dst, x, y, s), texelFetch(src_image, at, 0));
#endif
}

void main() {
  p = LoadImageParams();
  FOR_EACH_UNIT(p, ResolveTexel)
}
