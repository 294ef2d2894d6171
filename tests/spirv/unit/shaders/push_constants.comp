#version 450
// A shader that already pushes constants: the root joins its block.
layout(local_size_x = 16) in;
layout(push_constant) uniform Push { uint n; float scale; } pc;
layout(set = 0, binding = 0) buffer A { float a[]; };
layout(set = 0, binding = 1) uniform U { vec4 bias; } u;
shared float tile[16];
layout(constant_id = 0) const uint kStride = 1;
void main() {
  uint i = gl_GlobalInvocationID.x;
  tile[gl_LocalInvocationID.x] = a[i] * pc.scale;
  barrier();
  if (i < pc.n) a[i * kStride] = tile[15u - gl_LocalInvocationID.x] + u.bias.x;
}
