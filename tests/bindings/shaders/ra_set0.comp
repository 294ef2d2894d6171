#version 450
// ring_address_test.cpp: set 0 alone, through a layout compatible with the eight-set one
// for set 0 (the same push-constant range), whose root fits in push constants.
layout(local_size_x = 64) in;
layout(push_constant) uniform P { uint region; uint k; uint pad0; uint pad1; } pc;
layout(set = 0, binding = 0) buffer B0 { uint v[]; } b0[2];
void main() {
  uint i = gl_GlobalInvocationID.x;
  b0[1].v[pc.region + i] = 3u * b0[0].v[i] + pc.k;
}
