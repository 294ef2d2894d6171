#version 450
// fallback_refused.comp with its bindings at 70 and 71: a set layout whose bindings lie
// beyond the 64th, for a pipeline that runs natively (the descriptor array sized by a
// specialization constant is refused by the rewrite).
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint N = 2;
layout(set = 0, binding = 70) readonly buffer In { uint v[]; } inb[N];
layout(set = 0, binding = 71) buffer Out { uint v[]; } outb;
void main() {
  uint i = gl_GlobalInvocationID.x;
  outb.v[i] = inb[0].v[i] + inb[1].v[i] * 2u;
}
