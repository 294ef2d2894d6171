// std430 structs with nested arrays and arrays of structs; access chains several levels deep.
// @dispatch 1 1 1
// @buffer 0 0 4096 iota
// @buffer 0 1 4096 zero
#version 450
layout(local_size_x = 16) in;
struct Inner { uint a[3]; vec2 b; };
struct Outer { Inner inner[2]; uvec3 c; float d; };
layout(set = 0, binding = 0, std430) readonly buffer In { uint count; Outer items[]; } inb;
layout(set = 0, binding = 1, std430) buffer Out { Outer items[]; } outb;
void main() {
  uint i = gl_LocalInvocationIndex;
  Outer o = inb.items[i];
  o.inner[1].a[2] += o.inner[0].a[1];
  o.c.y = inb.count + i;
  outb.items[i] = o;
  outb.items[i].inner[0].b.x = o.d;
}
