#version 450
// maintenance6 tests: m6_within_limits.comp in a fragment shader; the fragment at (0, 0)
// writes.
layout(push_constant) uniform PC { uint k; } pc;
layout(set = 0, binding = 0) buffer O { uint sum; uint pushed; uint constant; } o;
layout(set = 1, binding = 0) uniform P { uint x; } p;
void main() {
  if (uint(gl_FragCoord.x) != 0u || uint(gl_FragCoord.y) != 0u) return;
  o.sum = 7u;
  o.pushed = p.x + 1u;
  o.constant = pc.k + 5u;
}
