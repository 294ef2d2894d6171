// SPIR-V 1.6 (Vulkan 1.3).
// @target vulkan1.3
// @dispatch 2 1 1
// @buffer 0 0 1024 iota
// @buffer 0 1 1024 zero
#version 460
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uvec2 v[]; } inb;
layout(set = 0, binding = 1) writeonly buffer Out { uvec2 v[]; } outb;
void main() {
  uint i = gl_GlobalInvocationID.x;
  outb.v[i] = inb.v[i].yx + uvec2(i);
}
