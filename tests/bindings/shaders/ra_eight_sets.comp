#version 450
// Ring root addressed from push constants (ring_address_test.cpp): eight sets, each two
// storage buffers (and, in the layout only, a sampler: every set keeps a native
// descriptor, so the native layout uses all of lavapipe's 8 bound sets). Set 0's second
// buffer is the output; each set's first an input.
layout(local_size_x = 64) in;
layout(push_constant) uniform P { uint region; uint k; uint pad0; uint pad1; } pc;
#define SET(n) layout(set = n, binding = 0) buffer B##n { uint v[]; } b##n[2];
SET(0) SET(1) SET(2) SET(3) SET(4) SET(5) SET(6) SET(7)
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint acc = b0[0].v[i] + 2u * b1[0].v[i] + 3u * b2[0].v[i] + 4u * b3[0].v[i] + 5u * b4[0].v[i] +
             6u * b5[0].v[i] + 7u * b6[0].v[i] + 8u * b7[0].v[i];
  b0[1].v[pc.region + i] = acc + pc.k;
}
