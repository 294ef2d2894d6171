// Float atomics (VK_EXT_shader_atomic_float): add of exactly representable values, exchange.
// @requires floatatomics
// @dispatch 1 1 1
// @buffer 0 0 64 zero
// @buffer 0 1 256 float
#version 450
#extension GL_EXT_shader_atomic_float : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Acc { float sum; float last; } acc;
layout(set = 0, binding = 1) buffer Data { float v[]; } data;
void main() {
  uint i = gl_LocalInvocationIndex;
  atomicAdd(acc.sum, float(i) * 0.5);
  data.v[i] = atomicExchange(data.v[i + 32u], float(i));
}
