// 64-bit buffer atomics (shaderBufferInt64Atomics) and 64-bit integer arithmetic.
// @requires int64 int64atomics
// @dispatch 1 1 1
// @buffer 0 0 64 zero
// @buffer 0 1 512 iota
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Acc { uint64_t sum; uint64_t mx; int64_t mn; uint64_t orr; } acc;
layout(set = 0, binding = 1) buffer Data { uint64_t v[]; } data;
void main() {
  uint i = gl_LocalInvocationIndex;
  uint64_t x = data.v[i] * 0x100000001ul + uint64_t(i);
  atomicAdd(acc.sum, x);
  atomicMax(acc.mx, x);
  atomicMin(acc.mn, -int64_t(x));
  atomicOr(acc.orr, 1ul << (i + 20u));
  data.v[i] = atomicExchange(data.v[i + 32u], x);
}
