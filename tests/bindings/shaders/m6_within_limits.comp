#version 450
// maintenance6 tests: the same program within the driver's limits (one storage buffer in
// set 0), so that it also runs with the layer off.
layout(local_size_x = 1) in;
layout(push_constant) uniform PC { uint k; } pc;
layout(set = 0, binding = 0) buffer O { uint sum; uint pushed; uint constant; } o;
layout(set = 1, binding = 0) uniform P { uint x; } p;
void main() {
  o.sum = 7u;
  o.pushed = p.x + 1u;
  o.constant = pc.k + 5u;
}
