// Uniform buffers converted (@ubo): a descriptor array of UBOs with constant indices, std140
// structs with nested arrays, next to a storage buffer in another set.
// @ubo
// @dispatch 1 1 1
// @buffer 0 0 512 iota uniform index=0
// @buffer 0 0 512 float uniform index=1
// @buffer 1 0 256 zero
#version 450
layout(local_size_x = 16) in;
struct Light { vec3 dir; float power; uvec2 ids[2]; };
layout(set = 0, binding = 0, std140) uniform Lights { Light l[4]; uint count; } lights[2];
layout(set = 1, binding = 0) buffer Out { uint v[]; } outb;
void main() {
  uint i = gl_LocalInvocationIndex;
  Light a = lights[0].l[i % 4u];
  Light b = lights[1].l[(i + 1u) % 4u];
  outb.v[i] = a.ids[i % 2u].y + floatBitsToUint(b.power) + floatBitsToUint(a.dir.z) + lights[0].count;
}
