// Uniform + BufferBlock in a SPIR-V 1.1 module on Vulkan 1.1, with an atomic and .length().
// @target spirv1.1
// @dispatch 1 1 1
// @buffer 0 0 256 iota
// @buffer 0 1 260 zero
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; } inb;
layout(set = 0, binding = 1) buffer Out { uint total; uint v[]; } outb;
void main() {
  uint i = gl_LocalInvocationIndex;
  outb.v[i] = inb.v[i] + uint(outb.v.length());
  atomicAdd(outb.total, inb.v[i]);
}
