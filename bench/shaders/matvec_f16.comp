#version 450
// f16 matrix-vector product: the weights as uvec4s of eight halves (a row is cols / 8 of
// them), unpacked with unpackHalf2x16 (no 16-bit storage feature needed).
#extension GL_GOOGLE_include_directive : require
#include "matvec_common.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Weights { uvec4 w[]; };
// Binding 3 keeps the set shape of the quantized kernels (unused here).
layout(std430, set = 0, binding = 3) readonly buffer Unused { uint unused[]; };

void main() {
  const uint row = gl_WorkGroupID.x;
  const uint chunks = shape.cols / 8u;
  float sum = 0.0;
  for (uint c = gl_LocalInvocationIndex; c < chunks; c += gl_WorkGroupSize.x) {
    const uvec4 h = w[row * chunks + c];
    const vec4 a = vec4(unpackHalf2x16(h.x), unpackHalf2x16(h.y));
    const vec4 b = vec4(unpackHalf2x16(h.z), unpackHalf2x16(h.w));
    sum += dot(a, x[2u * c]) + dot(b, x[2u * c + 1u]);
  }
  ReduceAndStore(sum, row);
}
