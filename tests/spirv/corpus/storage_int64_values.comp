// 64-bit integer data in buffers (not atomics): the shader's own Int64 next to address math.
// @requires int64
// @dispatch 1 1 1
// @buffer 0 0 512 bytes
// @buffer 0 1 512 zero
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer In { u64vec2 v[]; } inb;
layout(set = 0, binding = 1) buffer Out { int64_t v[]; } outb;
void main() {
  uint i = gl_LocalInvocationIndex;
  u64vec2 x = inb.v[i];
  outb.v[i * 2u] = int64_t(x.x ^ (x.y >> 7));
  outb.v[i * 2u + 1u] = int64_t(x.x) - int64_t(x.y);
}
