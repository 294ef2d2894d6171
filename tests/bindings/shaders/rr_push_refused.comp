#version 450
// rr_push.comp with its descriptor array sized by a specialization constant, which the
// rewrite refuses: the same layout, run natively with the pushes made again on full sets.
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint N = 2;
layout(push_constant) uniform PC { uint w[32]; } pc;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; } inb[N];
layout(set = 0, binding = 1) buffer Out { uint v[]; } outb;
void main() {
  uint i = gl_GlobalInvocationID.x;
  outb.v[pc.w[0] + i] = inb[0].v[i] + inb[1].v[i] * pc.w[1];
}
