#version 450
// q8_0 matrix-vector product: blocks of 32 signed 8-bit weights (two uvec4 per block, word
// w byte j is element 4w+j) and one f16 scale per block (two per uint).
#extension GL_GOOGLE_include_directive : require
#include "matvec_common.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Quants { uvec4 qs[]; };
layout(std430, set = 0, binding = 3) readonly buffer Scales { uint scales[]; };

vec4 Bytes(uint w) {
  const int s = int(w);
  return vec4(bitfieldExtract(s, 0, 8), bitfieldExtract(s, 8, 8), bitfieldExtract(s, 16, 8), bitfieldExtract(s, 24, 8));
}

void main() {
  const uint row = gl_WorkGroupID.x;
  const uint blocks = shape.cols / 32u;
  float sum = 0.0;
  for (uint b = gl_LocalInvocationIndex; b < blocks; b += gl_WorkGroupSize.x) {
    const uint block = row * blocks + b;
    const uvec4 lo = qs[2u * block];
    const uvec4 hi = qs[2u * block + 1u];
    const vec2 pair = unpackHalf2x16(scales[block / 2u]);
    const float d = (block & 1u) == 0u ? pair.x : pair.y;
    float s = 0.0;
    for (uint w = 0u; w < 4u; ++w) s += dot(Bytes(lo[w]), x[b * 8u + w]) + dot(Bytes(hi[w]), x[b * 8u + 4u + w]);
    sum += d * s;
  }
  ReduceAndStore(sum, row);
}
