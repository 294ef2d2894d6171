#version 450
// Ring root beside a pipeline running natively (ring_root_test.cpp): push constants fill
// the device's space, so the root of set 0 (a push-descriptor set) lives in the ring; this
// shader is rewritten and reads it through the reserved set.
layout(local_size_x = 64) in;
layout(push_constant) uniform PC { uint w[32]; } pc;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; } inb[2];
layout(set = 0, binding = 1) buffer Out { uint v[]; } outb;
void main() {
  uint i = gl_GlobalInvocationID.x;
  outb.v[pc.w[0] + i] = inb[0].v[i] + inb[1].v[i] * pc.w[1];
}
