// Used by the bounds-check tests (records smaller than the buffers, expected results
// computed on the CPU): reads, writes, an atomic and .length() at every word of the buffers.
// @dispatch 1 1 1
// @buffer 0 0 256 iota
// @buffer 0 1 256 ones
// @buffer 0 2 256 zero
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; } inb;
layout(set = 0, binding = 1) buffer Out { uint v[]; } outb;
layout(set = 0, binding = 2) buffer Aux { uint length_seen; uint counters[]; } aux;
void main() {
  uint i = gl_LocalInvocationIndex;
  outb.v[i] = inb.v[i] + 100u;
  if (i < 63u) atomicAdd(aux.counters[i], i + 1u);
  if (i == 0u) aux.length_seen = uint(inb.v.length());
}
