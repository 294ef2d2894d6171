#version 450
// Element-wise add of an inference runtime: c = a + b over n floats, one per invocation,
// with the bounds check such kernels carry (n from push constants).
layout(local_size_x = 256) in;

layout(push_constant) uniform Args { uint n; } args;
layout(std430, set = 0, binding = 0) readonly buffer A { float a[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { float b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer C { float c[]; };

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i < args.n) c[i] = a[i] + b[i];
}
