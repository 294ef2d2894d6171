// nonuniformEXT indices into a descriptor array: each invocation picks its own buffer.
// @requires nonuniform
// @dispatch 1 1 1
// @buffer 0 0 512 iota index=0
// @buffer 0 0 512 bytes index=1
// @buffer 0 0 512 float index=2
// @buffer 0 0 512 zero index=3
// @buffer 0 1 256 zero
#version 450
#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer In { uint v[]; } inb[4];
layout(set = 0, binding = 1) buffer Out { uint v[]; } outb;
void main() {
  uint i = gl_LocalInvocationIndex;
  uint which = (i * 7u) % 3u;
  outb.v[i] = inb[nonuniformEXT(which)].v[i] + uint(inb[nonuniformEXT(which)].v.length());
  atomicAdd(inb[nonuniformEXT(3u - which % 2u)].v[64u + i % 8u], 1u);
}
