#version 450
// maintenance6 tests: set 0 holds 33 storage buffers in one stage (lavapipe allows 32: the
// layout converts under auto, and set 0 holds nothing native then), set 1 is a
// push-descriptor set with a uniform buffer (renumbered to 0 in the layout sent down), and
// a push constant.
layout(local_size_x = 1) in;
layout(push_constant) uniform PC { uint k; } pc;
layout(set = 0, binding = 0) readonly buffer B { uint v[]; } b[32];
layout(set = 0, binding = 1) buffer O { uint sum; uint pushed; uint constant; } o;
layout(set = 1, binding = 0) uniform P { uint x; } p;
#define S(i) s += b[i].v[0] * uint(i + 1);
void main() {
  uint s = 0u;
  S(0) S(1) S(2) S(3) S(4) S(5) S(6) S(7) S(8) S(9) S(10) S(11) S(12) S(13) S(14) S(15)
  S(16) S(17) S(18) S(19) S(20) S(21) S(22) S(23) S(24) S(25) S(26) S(27) S(28) S(29) S(30) S(31)
  o.sum = s;
  o.pushed = p.x + 1u;
  o.constant = pc.k + 5u;
}
