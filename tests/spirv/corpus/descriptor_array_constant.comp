// A descriptor array indexed with constants.
// @dispatch 1 1 1
// @buffer 0 0 256 iota index=0
// @buffer 0 0 256 bytes index=1
// @buffer 0 0 256 ones index=2
// @buffer 0 1 256 zero
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer In { uint v[]; } inb[3];
layout(set = 0, binding = 1) buffer Out { uint v[]; } outb;
void main() {
  uint i = gl_LocalInvocationIndex;
  outb.v[i] = inb[0].v[i] + inb[1].v[i] * 3u - inb[2].v[i];
  inb[2].v[i] = i;
}
