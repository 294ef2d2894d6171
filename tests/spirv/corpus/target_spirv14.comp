// SPIR-V 1.4 on Vulkan 1.1: OpEntryPoint lists every global the entry point uses.
// @target spirv1.4
// @dispatch 1 1 1
// @buffer 0 0 256 iota
// @buffer 0 1 256 zero
// @buffer 1 0 256 bytes
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; } inb;
layout(set = 0, binding = 1) buffer Out { uint v[]; } outb;
layout(set = 1, binding = 0) buffer Extra { uint v[]; } extra;
shared uint tile[64];
void main() {
  uint i = gl_LocalInvocationIndex;
  tile[i] = inb.v[i] + extra.v[i];
  barrier();
  outb.v[i] = tile[63u - i];
}
