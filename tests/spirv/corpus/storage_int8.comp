// 8-bit storage and arithmetic.
// @requires int8
// @dispatch 1 1 1
// @buffer 0 0 256 bytes
// @buffer 0 1 256 zero
#version 450
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint8_t b[]; } inb;
layout(set = 0, binding = 1) buffer Out { i8vec4 v[]; } outb;
void main() {
  uint i = gl_LocalInvocationIndex;
  uint8_t x = inb.b[i * 3u];
  outb.v[i] = i8vec4(int8_t(x), int8_t(x + uint8_t(1)), int8_t(inb.b[i] >> 1), int8_t(i));
}
