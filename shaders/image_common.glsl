// Shared by the image transfer kernels (image_*.comp): the parameter record, the tile walk
// and the buffer side's addressing. The record is found like every transfer kernel's
// (transfer_common.glsl: base workgroup y and z name it in the staging pool); only x varies,
// so a workgroup walks tiles of 256 texels (32 x 8, or 256 x 1 for a one-row region) in a
// grid-stride loop, dividing once per tile, not per texel.
//
// Images are reached through raw views (R8/R16/R32/R32G32/R32G32B32A32_UINT over the
// image's bits): kernels that write store through a storage view without a format
// qualifier (shaderStorageImageWriteWithoutFormat), kernels that read fetch from a sampled
// view (texelFetch, no sampler: reads without a format need a feature lavapipe lacks).
// Layouts are GENERAL (the layer's barriers move the image there and back).
#extension GL_EXT_samplerless_texture_functions : require
#include "transfer_common.glsl"

struct ImageParams {
  uvec2 buffer_address;  // buffer address of the region's first texel (buffer <-> image)
  uint row_pitch;    // bytes between the buffer's rows
  uint slice_pitch;  // bytes between the buffer's slices (3D) or layers
  ivec3 src;         // source origin: x, y, z (3D) or layer within the view
  uint texel_bytes;  // 1, 2, 4, 8 or 16
  ivec3 dst;         // destination origin
  uint units_x;      // x units per row: texels, or buffer words (image -> buffer, texel_bytes < 4)
  uvec3 extent;      // width, height, depth or layers
  uint tile_shift;   // log2 of a tile's width in units (its height is 256 >> tile_shift)
  uvec4 value;       // clear: the texel's raw bits
};

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer ImageParamRecord { ImageParams p; };

shared ImageParams shared_image_params;

ImageParams LoadImageParams() {
  if (gl_LocalInvocationIndex == 0u) shared_image_params = ImageParamRecord(ParamsAddress()).p;
  barrier();
  return shared_image_params;
}

uvec2 AddOffset(uvec2 address, uint offset) {
  uint carry;
  const uint low = uaddCarry(address.x, offset, carry);
  return uvec2(low, address.y + carry);
}

// An image coordinate for a view of dimensionality `dim` (1: 1D array, 2: 2D array, 3: 3D)
// from an origin and a position (x, y, slice) in the region.
#define IMAGE_COORD_1(origin, x, y, s) ivec2(origin.x + int(x), origin.z + int(s))
#define IMAGE_COORD_2(origin, x, y, s) ivec3(origin.x + int(x), origin.y + int(y), origin.z + int(s))
#define IMAGE_COORD_3(origin, x, y, s) ivec3(origin.x + int(x), origin.y + int(y), origin.z + int(s))
#define IMAGE_COORD_(dim) IMAGE_COORD_##dim
#define IMAGE_COORD(dim) IMAGE_COORD_(dim)

#define STORAGE_TYPE_1 uimage1DArray
#define STORAGE_TYPE_2 uimage2DArray
#define STORAGE_TYPE_3 uimage3D
#define TEXTURE_TYPE_1 utexture1DArray
#define TEXTURE_TYPE_2 utexture2DArray
#define TEXTURE_TYPE_3 utexture3D
#define STORAGE_TYPE_(dim) STORAGE_TYPE_##dim
#define STORAGE_TYPE(dim) STORAGE_TYPE_(dim)
#define TEXTURE_TYPE_(dim) TEXTURE_TYPE_##dim
#define TEXTURE_TYPE(dim) TEXTURE_TYPE_(dim)

// Walks the region's tiles; BODY(x, y, s) runs for every unit inside it.
#define FOR_EACH_UNIT(params, BODY)                                                          \
  {                                                                                          \
    const uint tile_w = 1u << params.tile_shift;                                             \
    const uint tile_h = 256u >> params.tile_shift;                                           \
    const uint tiles_x = (params.units_x + tile_w - 1u) >> params.tile_shift;                \
    const uint tiles_y = (params.extent.y + tile_h - 1u) / tile_h;                           \
    const uint tiles = tiles_x * tiles_y * params.extent.z;                                  \
    const uint lx = gl_LocalInvocationIndex & (tile_w - 1u);                                 \
    const uint ly = gl_LocalInvocationIndex >> params.tile_shift;                            \
    for (uint t = gl_WorkGroupID.x; t < tiles; t += gl_NumWorkGroups.x) {                    \
      const uint tx = t % tiles_x;                                                           \
      const uint rest = t / tiles_x;                                                         \
      const uint x = tx * tile_w + lx;                                                       \
      const uint y = (rest % tiles_y) * tile_h + ly;                                         \
      const uint s = rest / tiles_y;                                                         \
      if (x < params.units_x && y < params.extent.y) BODY(x, y, s);                          \
    }                                                                                        \
  }
