// vec3 in std430 (12-byte vectors, 16-byte array stride), component and swizzle stores.
// (A component read-modify-write after the vec3 store: vec3_store_then_component_rmw.comp.)
// @dispatch 1 1 1
// @buffer 0 0 1024 float
// @buffer 0 1 1024 zero
#version 450
layout(local_size_x = 32) in;
struct P { vec3 pos; float w; uvec3 id; };
layout(set = 0, binding = 0) readonly buffer In { vec3 v[]; } inb;
layout(set = 0, binding = 1) buffer Out { P p[]; } outb;
void main() {
  uint i = gl_LocalInvocationIndex;
  vec3 a = inb.v[i];
  outb.p[i].pos.zx = a.xy;
  outb.p[i].pos.y = a.z * 2.0;
  outb.p[i].w = dot(a, a);
  outb.p[i].id = uvec3(i, i * 2u, i * 3u);
}
