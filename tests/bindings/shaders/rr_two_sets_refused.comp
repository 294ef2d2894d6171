#version 450
// Ring root beside a pipeline running natively (ring_root_test.cpp): push constants fill
// the device's space, so the layout's root lives in the ring; set 0 is an ordinary set,
// set 1 a push-descriptor set. A descriptor array sized by a specialization constant makes
// the rewrite refuse the shader: it runs natively on full sets.
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint N = 2;
layout(push_constant) uniform PC { uint w[32]; } pc;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; } inb[N];
layout(set = 0, binding = 1) buffer Out { uint v[]; } outb;
layout(set = 1, binding = 0) readonly buffer Bias { uint v[]; } bias;
void main() {
  uint i = gl_GlobalInvocationID.x;
  outb.v[pc.w[0] + i] = inb[0].v[i] + inb[1].v[i] * 2u + bias.v[i];
}
