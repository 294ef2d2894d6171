#version 450
// Robustness test: reads and writes past the descriptor ranges (128 of 256 bytes) on
// purpose, and reports the lengths it sees.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; } inb;
layout(set = 0, binding = 1) buffer Out { uint v[]; } outb;
layout(set = 0, binding = 2) buffer Res { uint len_in; uint len_out; uint reads[64]; } res;
void main() {
  uint i = gl_LocalInvocationIndex;
  res.reads[i] = inb.v[i];
  outb.v[i] = 0xA0000000u + i;
  if (i == 0u) {
    res.len_in = uint(inb.v.length());
    res.len_out = uint(outb.v.length());
  }
}
