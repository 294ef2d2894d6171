#version 450
// Limits test: reads the length, the first and the last word of a storage buffer larger
// than the driver's maxStorageBufferRange, and writes both ends.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer Big { uint v[]; } big;
layout(set = 0, binding = 1) buffer Out { uint length_seen; uint first; uint last; } o;
void main() {
  uint n = uint(big.v.length());
  o.length_seen = n;
  o.first = big.v[0];
  o.last = big.v[n - 1u];
  big.v[n - 1u] = 0xC0FFEEu;
  big.v[0] = 0xBEEFu;
}
