#version 450
// q4_0 matrix-vector product: blocks of 32 weights, 4-bit values (one uvec4 per block:
// word w byte j holds element 4w+j in its low nibble and element 16+4w+j in its high one)
// and one f16 scale per block (two per uint); weight = scale * (q - 8).
#extension GL_GOOGLE_include_directive : require
#include "matvec_common.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Quants { uvec4 qs[]; };
layout(std430, set = 0, binding = 3) readonly buffer Scales { uint scales[]; };

vec4 Nibbles(uint w, uint shift) {
  return vec4((w >> shift) & 0xFu, (w >> (shift + 8u)) & 0xFu, (w >> (shift + 16u)) & 0xFu,
              (w >> (shift + 24u)) & 0xFu) - 8.0;
}

void main() {
  const uint row = gl_WorkGroupID.x;
  const uint blocks = shape.cols / 32u;
  float sum = 0.0;
  for (uint b = gl_LocalInvocationIndex; b < blocks; b += gl_WorkGroupSize.x) {
    const uint block = row * blocks + b;
    const uvec4 q = qs[block];
    const vec2 pair = unpackHalf2x16(scales[block / 2u]);
    const float d = (block & 1u) == 0u ? pair.x : pair.y;
    float s = 0.0;
    for (uint w = 0u; w < 4u; ++w) {
      s += dot(Nibbles(q[w], 0u), x[b * 8u + w]) + dot(Nibbles(q[w], 4u), x[b * 8u + 4u + w]);
    }
    sum += d * s;
  }
  ReduceAndStore(sum, row);
}
