// The shader's own push constants (20 bytes): the root goes after them, in the same block.
// @push 20 iota
// @dispatch 1 1 1
// @buffer 0 0 256 iota
// @buffer 0 1 256 zero
#version 450
layout(local_size_x = 64) in;
layout(push_constant) uniform Push { uvec4 k; uint offset; } pc;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; } inb;
layout(set = 0, binding = 1) buffer Out { uint v[]; } outb;
void main() {
  uint i = gl_LocalInvocationIndex;
  outb.v[i] = inb.v[(i + pc.offset) % 64u] * pc.k[i % 4u] + pc.k.w;
}
