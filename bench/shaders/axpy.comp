#version 450
// Bandwidth kernel of the indirect-bindings benchmarks: z = a * x + y over three storage
// buffers, a grid-stride loop of vec4s (the dispatch is capped at 32768 workgroups; the
// buffers' length comes from the descriptors). `a` is a constant the pipeline-creation
// benchmark patches in the SPIR-V so that every module it creates is new (kAxpyMagic in
// bindings_benchmarks.cpp: the bit pattern of 3.0 + 2^-21, which compiles like any other).
layout(local_size_x = 256) in;

layout(std430, set = 0, binding = 0) readonly buffer X { vec4 x[]; };
layout(std430, set = 0, binding = 1) readonly buffer Y { vec4 y[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Z { vec4 z[]; };

const float a = 3.0000002384185791015625;

void main() {
  const uint n = uint(z.length());
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < n; i += stride) z[i] = a * x[i] + y[i];
}
