// Helper functions that read and write the buffers (glslang passes members by copy; the
// functions reach the blocks as globals), called from loops and branches.
// @dispatch 1 1 1
// @buffer 0 0 1024 iota
// @buffer 0 1 512 zero
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer A { uint v[]; } a;
layout(set = 0, binding = 1) buffer B { uint v[]; } b;
uint load_a(uint i) { return a.v[i % 128u]; }
void store_b(uint i, uint x) { b.v[i] = x; }
void bump(inout uint x, uint by) { x += by; }
uint sum_range(uint from, uint count) {
  uint s = 0u;
  for (uint k = 0u; k < count; ++k) s += load_a(from + k);
  return s;
}
void main() {
  uint i = gl_LocalInvocationIndex;
  uint x = sum_range(i, 4u);
  bump(b.v[i + 64u], x);
  bump(a.v[i + 128u], 1u);  // beyond what load_a reads
  if (i % 2u == 0u) store_b(i, x); else store_b(i, load_a(i * 3u));
}
