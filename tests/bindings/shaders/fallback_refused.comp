#version 450
// Fallback test: a descriptor array sized by a specialization constant, which the rewrite
// refuses; the pipeline must run natively with its sets materialised from the shadow.
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint N = 2;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; } inb[N];
layout(set = 0, binding = 1) buffer Out { uint v[]; } outb;
void main() {
  uint i = gl_GlobalInvocationID.x;
  outb.v[i] = inb[0].v[i] + inb[1].v[i] * 2u;
}
