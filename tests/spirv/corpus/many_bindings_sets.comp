// Many bindings in several sets (0, 1 and 3; set 2 unused), read and written together.
// @dispatch 1 1 1
// @buffer 0 0 256 iota
// @buffer 0 1 256 bytes
// @buffer 0 4 256 float
// @buffer 1 0 256 iota
// @buffer 1 2 256 zero
// @buffer 1 3 256 ones
// @buffer 3 0 256 bytes
// @buffer 3 1 256 zero
// @buffer 3 7 256 zero
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer B00 { uint v[]; } b00;
layout(set = 0, binding = 1) readonly buffer B01 { uint v[]; } b01;
layout(set = 0, binding = 4) readonly buffer B04 { float v[]; } b04;
layout(set = 1, binding = 0) buffer B10 { uint v[]; } b10;
layout(set = 1, binding = 2) buffer B12 { uint v[]; } b12;
layout(set = 1, binding = 3) buffer B13 { uint v[]; } b13;
layout(set = 3, binding = 0) readonly buffer B30 { uint v[]; } b30;
layout(set = 3, binding = 1) writeonly buffer B31 { uint v[]; } b31;
layout(set = 3, binding = 7) buffer B37 { uint v[]; } b37;
void main() {
  uint i = gl_LocalInvocationIndex;
  uint x = b00.v[i] + b01.v[63u - i] + uint(b04.v[i]) + b30.v[i];
  b10.v[i] += x;
  b12.v[i] = x ^ b13.v[i];
  b13.v[i] = b10.v[(i + 1u) % 64u] * 0u + i;
  b31.v[i] = x * 5u;
  b37.v[i] = b12.v[i] + b30.v[(i * 5u) % 64u];
}
