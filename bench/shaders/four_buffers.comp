#version 450
// Benchmark kernel: three input storage buffers summed into a fourth. Only its
// binding shape matters (set 0, bindings 0..3, all storage buffers); it is never run.
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer InA { uint a[]; };
layout(std430, set = 0, binding = 1) readonly buffer InB { uint b[]; };
layout(std430, set = 0, binding = 2) readonly buffer InC { uint c[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Out { uint d[]; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < uint(d.length())) d[i] = a[i] + b[i] + c[i];
}
