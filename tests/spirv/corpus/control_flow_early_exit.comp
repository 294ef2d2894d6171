// Early returns, switch, nested branches around buffer accesses.
// @dispatch 1 1 1
// @buffer 0 0 256 bytes
// @buffer 0 1 256 ones
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; } inb;
layout(set = 0, binding = 1) buffer Out { uint v[]; } outb;
void main() {
  uint i = gl_LocalInvocationIndex;
  uint x = inb.v[i];
  if (x % 7u == 0u) return;
  switch (x % 4u) {
    case 0u: outb.v[i] = x; break;
    case 1u: outb.v[i] = inb.v[(i + 1u) % 64u]; return;
    case 2u:
      if (i > 10u) { outb.v[i] = 2u; break; }
      outb.v[i] = 3u;
      break;
    default: break;
  }
  outb.v[i] += 1u;
}
