#version 450
// fallback_refused.comp with its bindings in set 1: a pipeline that runs natively (the
// descriptor array sized by a specialization constant is refused by the rewrite) and reads
// nothing from set 0, where another layout pushed descriptors.
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint N = 2;
layout(set = 1, binding = 0) readonly buffer In { uint v[]; } inb[N];
layout(set = 1, binding = 1) buffer Out { uint v[]; } outb;
void main() {
  uint i = gl_GlobalInvocationID.x;
  outb.v[i] = inb[0].v[i] + inb[1].v[i] * 2u;
}
