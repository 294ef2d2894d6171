// float16 storage and arithmetic.
// @requires float16 int16
// @dispatch 1 1 1
// @buffer 0 0 256 half
// @buffer 0 1 256 zero
#version 450
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer In { f16vec2 v[]; } inb;
layout(set = 0, binding = 1) buffer Out { float16_t h[]; } outb;
void main() {
  uint i = gl_LocalInvocationIndex;
  f16vec2 x = inb.v[i];
  outb.h[i * 2u] = x.x * x.y + float16_t(0.5);
  outb.h[i * 2u + 1u] = max(x.x, x.y);
}
