#version 450
// Zero-count test: eight sets, each a storage buffer at binding 0 beside an empty storage-image
// binding (descriptorCount 0), and push constants over the device's whole space. Sets 0-6 are
// read, set 7 written.
layout(local_size_x = 64) in;
layout(push_constant) uniform PC { uint mul[32]; } pc;
layout(set = 0, binding = 0) readonly buffer In0 { uint v[]; } in0;
layout(set = 1, binding = 0) readonly buffer In1 { uint v[]; } in1;
layout(set = 2, binding = 0) readonly buffer In2 { uint v[]; } in2;
layout(set = 3, binding = 0) readonly buffer In3 { uint v[]; } in3;
layout(set = 4, binding = 0) readonly buffer In4 { uint v[]; } in4;
layout(set = 5, binding = 0) readonly buffer In5 { uint v[]; } in5;
layout(set = 6, binding = 0) readonly buffer In6 { uint v[]; } in6;
layout(set = 7, binding = 0) writeonly buffer Out { uint v[]; } outb;
void main() {
  uint i = gl_GlobalInvocationID.x;
  outb.v[i] = (in0.v[i] + 2u * in1.v[i] + 3u * in2.v[i] + 5u * in3.v[i] + 7u * in4.v[i] + 11u * in5.v[i] +
               13u * in6.v[i]) * pc.mul[i % 32u];
}
