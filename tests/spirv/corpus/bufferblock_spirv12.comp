// Uniform + BufferBlock in a SPIR-V 1.2 module on Vulkan 1.1, nested structs and a
// uniform buffer left a descriptor next to them.
// @target spirv1.2
// @dispatch 1 1 1
// @buffer 0 0 64 iota uniform
// @buffer 0 1 1024 bytes
// @buffer 1 0 1024 zero
#version 450
layout(local_size_x = 32) in;
struct S { uint a; uvec3 b; };
layout(set = 0, binding = 0) uniform Params { uvec4 k; } params;
layout(set = 0, binding = 1) readonly buffer In { S s[]; } inb;
layout(set = 1, binding = 0) buffer Out { S s[]; } outb;
void main() {
  uint i = gl_LocalInvocationIndex;
  S x = inb.s[i];
  x.b.z += params.k[i % 4u];
  outb.s[i] = x;
}
