#version 450
// Compatible layouts, one root in push constants and one in the ring (ring_root_test.cpp):
// this pipeline's layout has set 0 only, and its root fits after the application's push
// constants.
layout(local_size_x = 64) in;
layout(push_constant) uniform PC { uint w[2]; } pc;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; } inb[2];
layout(set = 0, binding = 1) buffer Out { uint v[]; } outb;
void main() {
  uint i = gl_GlobalInvocationID.x;
  outb.v[pc.w[0] + i] = inb[0].v[i] + inb[1].v[i] * pc.w[1] + 7u;
}
