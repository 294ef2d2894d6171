#version 450
// maintenance6 tests: m6_over_limit.comp in a fragment shader (lavapipe allows 32 storage
// buffers per stage); the fragment at (0, 0) writes.
layout(push_constant) uniform PC { uint k; } pc;
layout(set = 0, binding = 0) readonly buffer B { uint v[]; } b[32];
layout(set = 0, binding = 1) buffer O { uint sum; uint pushed; uint constant; } o;
layout(set = 1, binding = 0) uniform P { uint x; } p;
#define S(i) s += b[i].v[0] * uint(i + 1);
void main() {
  if (uint(gl_FragCoord.x) != 0u || uint(gl_FragCoord.y) != 0u) return;
  uint s = 0u;
  S(0) S(1) S(2) S(3) S(4) S(5) S(6) S(7) S(8) S(9) S(10) S(11) S(12) S(13) S(14) S(15)
  S(16) S(17) S(18) S(19) S(20) S(21) S(22) S(23) S(24) S(25) S(26) S(27) S(28) S(29) S(30) S(31)
  o.sum = s;
  o.pushed = p.x + 1u;
  o.constant = pc.k + 5u;
}
