// Struct copies in SPIR-V 1.0 (member-wise composite construction, BufferBlock blocks).
// @target vulkan1.0
// @dispatch 1 1 1
// @buffer 0 0 512 iota
// @buffer 0 1 512 zero
#version 450
layout(local_size_x = 8) in;
struct S { uint a; vec2 b; };
layout(set = 0, binding = 0, std430) readonly buffer In { S s[]; } inb;
layout(set = 0, binding = 1, std430) buffer Out { S s[]; } outb;
void main() {
  uint i = gl_LocalInvocationIndex;
  outb.s[i] = inb.s[i + 1u];
  outb.s[i + 8u].b = inb.s[i].b * 2.0;
}
