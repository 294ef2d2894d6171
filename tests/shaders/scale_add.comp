#version 450
// Test workload: out[i] = in[i] * mul + (i ^ salt).
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std430) readonly buffer In { uint values[]; } src;
layout(set = 0, binding = 1, std430) writeonly buffer Out { uint values[]; } dst;
layout(push_constant) uniform Params { uint mul; uint salt; uint count; } params;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < params.count) dst.values[i] = src.values[i] * params.mul + (i ^ params.salt);
}
