// Loops with dynamic, data-dependent indices into several buffers.
// @dispatch 1 1 1
// @buffer 0 0 1024 iota
// @buffer 0 1 1024 bytes
// @buffer 0 2 256 zero
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Idx { uint idx[]; } ib;
layout(set = 0, binding = 1) readonly buffer Val { uint val[]; } vb;
layout(set = 0, binding = 2) buffer Out { uint v[]; } outb;
void main() {
  uint i = gl_LocalInvocationIndex;
  uint acc = 0u;
  uint j = i;
  for (uint k = 0u; k < 16u + (i % 5u); ++k) {
    j = (ib.idx[j % 256u] * 13u + k) % 256u;
    acc += vb.val[j] >> (k % 8u);
    if ((acc & 3u) == 1u) continue;
    acc ^= j;
  }
  uint n = 0u;
  while (n < 8u && vb.val[(i + n) % 256u] % 3u != 0u) ++n;
  outb.v[i] = acc + n;
}
