#version 450
#extension GL_GOOGLE_include_directive : require
// vkCmdBlitImage: for each destination texel, the source is sampled where the spec's scaling
// puts its centre (u = srcOffsets[0].x + (x + 0.5 - dstOffsets[0].x) * scale, likewise v and,
// for 3D, w; layers one to one), with the command's filter, clamp-to-edge addressing and mip
// level 0 of a view of the source's own format (the sampler decodes it: sRGB to linear,
// normalized to float); the result is stored through a storage view of the destination's own
// format (the store encodes it). Which format classes and filters give the native command's
// bytes is the driver's business: the policy runs this kernel only for those proven so
// (transfer/policy.h). DIM: 1, 2 or 3; KIND: 0 float, 1 unsigned, 2 signed integer.
#include "image_common.glsl"

struct BlitParams {
  vec3 src0;      // srcOffsets[0], in texels
  uint src_layer;  // first source layer within the view
  vec3 scale;     // source texels per destination texel (negative where the blit mirrors)
  uint dst_layer;  // first destination layer within the view
  vec3 inv_size;  // 1 / the source mip level's extent (normalized coordinates)
  uint units_x;
  ivec3 dst0;     // dstOffsets[0]
  uint tile_shift;
  ivec3 dst_min;  // the destination region's lowest corner
  uint unused0;
  uvec3 extent;   // the destination region: width, height, depth or layers
  uint unused1;
};

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer BlitParamRecord { BlitParams p; };
shared BlitParams shared_blit_params;

#if KIND == 0
#define SAMPLER_1 sampler1DArray
#define SAMPLER_2 sampler2DArray
#define SAMPLER_3 sampler3D
#define STORAGE_1 image1DArray
#define STORAGE_2 image2DArray
#define STORAGE_3 image3D
#elif KIND == 1
#define SAMPLER_1 usampler1DArray
#define SAMPLER_2 usampler2DArray
#define SAMPLER_3 usampler3D
#define STORAGE_1 uimage1DArray
#define STORAGE_2 uimage2DArray
#define STORAGE_3 uimage3D
#else
#define SAMPLER_1 isampler1DArray
#define SAMPLER_2 isampler2DArray
#define SAMPLER_3 isampler3D
#define STORAGE_1 iimage1DArray
#define STORAGE_2 iimage2DArray
#define STORAGE_3 iimage3D
#endif
#if DIM == 1
#define SAMPLER_T SAMPLER_1
#define STORAGE_T STORAGE_1
#elif DIM == 2
#define SAMPLER_T SAMPLER_2
#define STORAGE_T STORAGE_2
#else
#define SAMPLER_T SAMPLER_3
#define STORAGE_T STORAGE_3
#endif

layout(set = 0, binding = 2) uniform SAMPLER_T src_image;
layout(set = 0, binding = 3) writeonly uniform STORAGE_T dst_image;

BlitParams p;

void BlitTexel(uint x, uint y, uint s) {
  const ivec3 d = p.dst_min + ivec3(int(x), int(y), int(s));
  const vec3 centre = p.src0 + (vec3(d) + 0.5 - vec3(p.dst0)) * p.scale;
#if DIM == 1
  const vec2 at = vec2(centre.x * p.inv_size.x, float(p.src_layer + s));
  imageStore(dst_image, ivec2(d.x, int(p.dst_layer + s)), textureLod(src_image, at, 0.0));
#elif DIM == 2
  const vec3 at = vec3(centre.xy * p.inv_size.xy, float(p.src_layer + s));
  imageStore(dst_image, ivec3(d.xy, int(p.dst_layer + s)), textureLod(src_image, at, 0.0));
#else
  imageStore(dst_image, d, textureLod(src_image, centre * p.inv_size, 0.0));
#endif
}

void main() {
  if (gl_LocalInvocationIndex == 0u) shared_blit_params = BlitParamRecord(ParamsAddress()).p;
  barrier();
  p = shared_blit_params;
  FOR_EACH_UNIT(p, BlitTexel)
}
