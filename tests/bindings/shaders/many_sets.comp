#version 450
// Limits test: twelve descriptor sets (lavapipe binds at most 8). Sets 3 and 11 also hold a
// uniform buffer, which stays a native descriptor, so the native layout underneath has
// those two sets only, renumbered 0 and 1; every other set exists only as a root.
layout(local_size_x = 1) in;
#define SET(n) layout(set = n, binding = 0) readonly buffer B##n { uint v; } b##n;
SET(0) SET(1) SET(2) SET(3) SET(4) SET(5) SET(6) SET(7) SET(8) SET(9) SET(10)
layout(set = 3, binding = 1) uniform U3 { uint k; } u3;
layout(set = 11, binding = 0) uniform U11 { uint k; } u11;
layout(set = 11, binding = 1) buffer O { uint sum; } o;
void main() {
  uint s = b0.v * 1u + b1.v * 2u + b2.v * 3u + b3.v * 4u + b4.v * 5u + b5.v * 6u + b6.v * 7u + b7.v * 8u +
           b8.v * 9u + b9.v * 10u + b10.v * 11u;
  o.sum = s * u3.k + u11.k;
}
