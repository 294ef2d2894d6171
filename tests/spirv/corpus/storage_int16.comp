// 16-bit integer storage: u16 loads, i16 vectors, mixed widths in one struct.
// @requires int16
// @dispatch 1 1 1
// @buffer 0 0 512 bytes
// @buffer 0 1 512 zero
#version 450
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
layout(local_size_x = 64) in;
struct Mixed { uint16_t a; int16_t b; uint c; u16vec2 d; };
layout(set = 0, binding = 0) readonly buffer In { Mixed m[]; } inb;
layout(set = 0, binding = 1) buffer Out { i16vec2 v[]; } outb;
void main() {
  uint i = gl_LocalInvocationIndex;
  Mixed m = inb.m[i % 40u];
  outb.v[i] = i16vec2(int16_t(m.a) + m.b, int16_t(m.d.y) - int16_t(m.c));
}
