// SPIR-V 1.3 (Vulkan 1.1): StorageBuffer class, entry point lists only Input/Output.
// @target vulkan1.1
// @dispatch 1 1 1
// @buffer 0 0 256 iota
// @buffer 0 1 256 ones
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer In { uint v[]; } inb;
layout(set = 0, binding = 1) buffer Out { uint v[]; } outb;
void main() {
  uint i = gl_LocalInvocationIndex;
  outb.v[i] = inb.v[63u - i] ^ 0x5a5a5a5au;
}
