// An inference runtime's q8_0 and f16 matrix-vector products (the shapes of bench/shaders/
// matvec_q8_0.comp and matvec_f16.comp): signed 8-bit weights as two uvec4 per block of 32
// with an f16 scale per block (two per uint), f16 weights as uvec4s of eight halves, the
// input as vec4 from read-only runtime arrays, float accumulation, a subgroup reduction
// and the subgroups' partial sums through shared memory. The float operations are the same
// natively and rewritten (only the addressing differs), so the outputs are byte-identical.
// @target vulkan1.1
// @dispatch 4 1 1
// @buffer 0 0 4096 bytes
// @buffer 0 1 1024 float
// @buffer 0 2 64 zero
// @buffer 0 3 256 half
// @buffer 0 4 2048 half
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 32) in;

layout(std430, set = 0, binding = 0) readonly buffer Quants { uvec4 qs[]; };   // 4 rows x 32 blocks x 2
layout(std430, set = 0, binding = 1) readonly buffer Input { vec4 x[]; };      // 64 vec4 (256 floats)
layout(std430, set = 0, binding = 2) writeonly buffer Out { float y[]; };      // 4 rows x 2 products
layout(std430, set = 0, binding = 3) readonly buffer Scales { uint scales[]; };
layout(std430, set = 0, binding = 4) readonly buffer Halves { uvec4 w[]; };    // 4 rows x 32 uvec4

shared float partials[32];

vec4 Bytes(uint word) {
  const int s = int(word);
  return vec4(bitfieldExtract(s, 0, 8), bitfieldExtract(s, 8, 8), bitfieldExtract(s, 16, 8), bitfieldExtract(s, 24, 8));
}

float Reduce(float value) {
  const float total = subgroupAdd(value);
  if (subgroupElect()) partials[gl_SubgroupID] = total;
  barrier();
  float sum = 0.0;
  for (uint i = 0u; i < gl_NumSubgroups; ++i) sum += partials[i];
  barrier();
  return sum;
}

void main() {
  const uint row = gl_WorkGroupID.x;
  const uint b = gl_LocalInvocationIndex;  // one q8_0 block (32 weights) per invocation
  const uint block = row * 32u + b;
  const uvec4 lo = qs[2u * block];
  const uvec4 hi = qs[2u * block + 1u];
  const vec2 pair = unpackHalf2x16(scales[block / 2u]);
  const float d = (block & 1u) == 0u ? pair.x : pair.y;
  float s = 0.0;
  for (uint k = 0u; k < 4u; ++k) s += dot(Bytes(lo[k]), x[(b * 8u + k) % 64u]) + dot(Bytes(hi[k]), x[(b * 8u + 4u + k) % 64u]);
  const float q8 = Reduce(d * s);
  const uvec4 h = w[row * 32u + b];  // eight halves per invocation
  const vec4 a = vec4(unpackHalf2x16(h.x), unpackHalf2x16(h.y));
  const vec4 c = vec4(unpackHalf2x16(h.z), unpackHalf2x16(h.w));
  const float f16 = Reduce(dot(a, x[(2u * b) % 64u]) + dot(c, x[(2u * b + 1u) % 64u]));
  if (b == 0u) {
    y[2u * row] = q8;
    y[2u * row + 1u] = f16;
  }
}
