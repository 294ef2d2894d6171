#version 450
// Compatible layouts, one root in push constants and one in the ring (ring_root_test.cpp):
// this pipeline's layout has sets 0 and 1 and the same push constants as rr_set0.comp's,
// so its root does not fit after them and lives in the ring.
layout(local_size_x = 64) in;
layout(push_constant) uniform PC { uint w[2]; } pc;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; } inb[2];
layout(set = 0, binding = 1) buffer Out { uint v[]; } outb;
layout(set = 1, binding = 0) readonly buffer Bias { uint v[]; } bias;
void main() {
  uint i = gl_GlobalInvocationID.x;
  outb.v[pc.w[0] + i] = inb[0].v[i] + inb[1].v[i] * pc.w[1] + bias.v[i];
}
