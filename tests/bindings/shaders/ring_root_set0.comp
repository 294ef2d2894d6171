#version 450
// Ring-root test: the layout of ring_root.comp (push constants full, sets 0 and 1), but
// only set 0 used, so sets bound through a smaller compatible layout are enough for it.
layout(local_size_x = 64) in;
layout(push_constant) uniform PC { uint mul[32]; } pc;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; } inb;
layout(set = 0, binding = 1) buffer Out { uint v[]; } outb;
void main() {
  uint i = gl_GlobalInvocationID.x;
  outb.v[i] = inb.v[i] * pc.mul[i % 32u] + 7u;
}
