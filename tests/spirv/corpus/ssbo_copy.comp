// The simplest case: one StorageBuffer read, one written (SPIR-V 1.5).
// @target vulkan1.2
// @dispatch 4 1 1
// @buffer 0 0 1024 iota
// @buffer 0 1 1024 zero
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Src { uint src[]; };
layout(set = 0, binding = 1) writeonly buffer Dst { uint dst[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  dst[i] = src[i] * 3u + 1u;
}
