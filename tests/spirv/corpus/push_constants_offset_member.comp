// A push-constant block whose first member starts at an offset (layout(offset=16)) and
// ends at an unaligned size (36 bytes): the root is 8-byte aligned after it.
// @push 36 iota
// @dispatch 1 1 1
// @buffer 0 0 256 bytes
// @buffer 0 1 256 zero
#version 450
layout(local_size_x = 64) in;
layout(push_constant) uniform Push { layout(offset = 16) uvec4 k; uint last; } pc;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; } inb;
layout(set = 0, binding = 1) buffer Out { uint v[]; } outb;
void main() {
  uint i = gl_LocalInvocationIndex;
  outb.v[i] = inb.v[i] + pc.k[i % 4u] + pc.last;
}
