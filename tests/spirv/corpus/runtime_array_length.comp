// OpArrayLength: .length() of runtime arrays after a header, in two buffers.
// @dispatch 1 1 1
// @buffer 0 0 1040 iota
// @buffer 0 1 256 zero
// @buffer 0 2 100 bytes
#version 450
layout(local_size_x = 32) in;
struct Pair { uint x; float y; };
layout(set = 0, binding = 0) readonly buffer In { uvec4 header; Pair pairs[]; } inb;
layout(set = 0, binding = 1) buffer Out { uint len_pairs; uint len_words; uint v[]; } outb;
layout(set = 0, binding = 2) readonly buffer Words { uint w[]; } words;
void main() {
  uint i = gl_LocalInvocationIndex;
  if (i == 0u) {
    outb.len_pairs = uint(inb.pairs.length());
    outb.len_words = uint(words.w.length());
  }
  uint n = uint(inb.pairs.length());
  outb.v[i] = inb.pairs[(i * 7u) % n].x + uint(outb.v.length());
}
