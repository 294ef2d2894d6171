// Legacy Uniform + BufferBlock (GLSL `buffer` targeting SPIR-V 1.0).
// @target vulkan1.0
// @dispatch 2 1 1
// @buffer 0 0 512 float
// @buffer 0 1 512 float
// @buffer 0 2 512 zero
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer A { float a[]; };
layout(set = 0, binding = 1) buffer B { float b[]; };
layout(set = 0, binding = 2) buffer C { float c[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  c[i] = a[i] * b[i] + 0.5;
  a[i] = -a[i];
}
