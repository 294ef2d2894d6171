// A storage buffer with std140 layout: nested arrays with 16-byte strides.
// @dispatch 1 1 1
// @buffer 0 0 2048 iota
// @buffer 0 1 2048 zero
#version 450
layout(local_size_x = 8) in;
struct S { float f[2]; uint u; };
layout(set = 0, binding = 0, std140) readonly buffer In { S s[4]; uint grid[4][3]; } inb;
layout(set = 0, binding = 1, std140) buffer Out { S s[4]; uint grid[4][3]; } outb;
void main() {
  uint i = gl_LocalInvocationIndex;
  if (i < 4u) {
    outb.s[i].f[0] = inb.s[3u - i].f[1];
    outb.s[i].f[1] = inb.s[i].f[0] * 2.0;
    outb.s[i].u = inb.grid[i][i % 3u];
    for (uint j = 0u; j < 3u; ++j) outb.grid[i][j] = inb.grid[3u - i][2u - j] + j;
  }
}
