// A descriptor array indexed dynamically with a dynamically uniform index (a push constant
// and a loop counter).
// @push 4 zero
// @dispatch 1 1 1
// @buffer 0 0 512 iota index=0
// @buffer 0 0 512 bytes index=1
// @buffer 0 0 512 float index=2
// @buffer 0 0 512 ones index=3
// @buffer 1 0 256 zero
#version 450
layout(local_size_x = 64) in;
layout(push_constant) uniform Push { uint which; } pc;
layout(set = 0, binding = 0) buffer In { uint v[]; } inb[4];
layout(set = 1, binding = 0) buffer Out { uint v[]; } outb;
void main() {
  uint i = gl_LocalInvocationIndex;
  uint acc = inb[pc.which + 1u].v[i];
  for (uint k = 0u; k < 4u; ++k) acc += inb[k].v[(i + k) % 64u] >> k;
  outb.v[i] = acc;
  inb[(pc.which + 3u) % 4u].v[i + 64u] = acc;  // beyond what anyone reads
}
