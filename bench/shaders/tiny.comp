#version 450
// The tiny-dispatch kernel of the indirect-bindings benchmarks: one workgroup touches 64
// words of three storage buffers (what a small kernel in a long command buffer does).
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) readonly buffer Y { float y[]; };
layout(std430, set = 0, binding = 2) buffer Z { float z[]; };

void main() {
  const uint i = gl_LocalInvocationIndex;
  z[i] = x[i] + y[i] + z[i] * 0.5;
}
