// The application's own buffer_reference pointers (from push constants and from a buffer)
// next to descriptors: the module already has PhysicalStorageBuffer types and the
// PhysicalStorageBuffer64 memory model.
// @push 16 zero
// @pushaddress 0 2
// @address 1 0 3
// @dispatch 1 1 1
// @buffer 0 0 256 iota
// @buffer 0 1 64 zero nocompare
// @buffer 0 2 256 zero
// @buffer 0 3 256 bytes
#version 450
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
layout(local_size_x = 64) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint w[]; };
layout(push_constant) uniform Push { Words out_words; uint scale; } pc;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; } inb;
layout(set = 0, binding = 1) readonly buffer Ptrs { Words src; } ptrs;
void main() {
  uint i = gl_LocalInvocationIndex;
  pc.out_words.w[i] = inb.v[i] + ptrs.src.w[i] + pc.scale;
}
