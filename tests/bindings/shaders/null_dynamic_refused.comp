#version 450
// A pipeline the rewrite refuses (a descriptor array sized by a specialization constant),
// so it runs natively, that statically uses a dynamic storage buffer it never reads at run
// time (the branch depends on an input word the test never writes): the binding may then
// stay unwritten when it is partially bound, and be bound with any dynamic offset.
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint N = 2;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; } inb[N];
layout(set = 0, binding = 1) buffer Out { uint v[]; } outb;
layout(set = 0, binding = 2) readonly buffer Dyn { uint v[]; } dyn;
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint extra = 0u;
  if (inb[0].v[i] == 0xdeadbeefu) extra = dyn.v[i];
  outb.v[i] = inb[0].v[i] + inb[1].v[i] * 2u + extra;
}
