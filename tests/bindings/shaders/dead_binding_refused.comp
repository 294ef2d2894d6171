#version 450
// Destroyed-binding test: dst[i] = src[i] * 2 + 1 through a descriptor array sized by a
// specialization constant (the rewrite refuses it: the pipeline runs natively). The set
// layout has a third binding this shader never names.
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint N = 1;
layout(set = 0, binding = 0) readonly buffer S { uint v[]; } src[N];
layout(set = 0, binding = 1) buffer D { uint v[]; } dst;
void main() {
  uint i = gl_GlobalInvocationID.x;
  dst.v[i] = src[0].v[i] * 2u + 1u;
}
