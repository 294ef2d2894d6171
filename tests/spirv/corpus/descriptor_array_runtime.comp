// A runtime-sized descriptor array (runtimeDescriptorArray), nonuniform indices.
// @requires nonuniform runtimearray
// @dispatch 1 1 1
// @buffer 0 1 128 iota index=0
// @buffer 0 1 128 bytes index=1
// @buffer 0 1 128 ones index=2
// @buffer 0 1 128 zero index=3
// @buffer 0 1 128 float index=4
// @buffer 0 0 256 zero
#version 450
#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } outb;
layout(set = 0, binding = 1) buffer In { uint v[]; } inb[];
void main() {
  uint i = gl_LocalInvocationIndex;
  uint which = i % 5u;
  outb.v[i] = inb[nonuniformEXT(which)].v[i] ^ inb[nonuniformEXT((which + 2u) % 5u)].v[31u - i];
}
