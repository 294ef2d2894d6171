// Whole-struct copies between blocks with different layouts (SPIR-V 1.4+: OpCopyLogical
// between the two struct types) and through a function variable.
// @target vulkan1.2
// @dispatch 1 1 1
// @buffer 0 0 1024 iota
// @buffer 0 1 2048 zero
#version 450
layout(local_size_x = 16) in;
struct S { uint a; uvec2 b; float c[3]; };
layout(set = 0, binding = 0, std430) readonly buffer In { S s[]; } inb;
layout(set = 0, binding = 1, std140) buffer Out { S s[16]; S extra; } outb;
void main() {
  uint i = gl_LocalInvocationIndex;
  S tmp = inb.s[15u - i];
  tmp.b.y += i;
  outb.s[i] = tmp;
  if (i == 3u) outb.extra = inb.s[0];
}
