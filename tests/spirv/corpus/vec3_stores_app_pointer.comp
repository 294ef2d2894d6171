// vec3_stores_descriptor.comp through the application's own buffer_reference pointer (no
// rewrite involved): tells driver behaviour from rewrite behaviour for vec3 stores followed
// by a component read-modify-write through a PhysicalStorageBuffer pointer. The rewrite only
// converts the input here, so native and rewritten runs agree even where the driver is wrong.
// @push 8 zero
// @pushaddress 0 1
// @dispatch 1 1 1
// @buffer 0 0 1024 float
// @buffer 0 1 1024 zero
#version 450
#extension GL_EXT_buffer_reference : require
layout(local_size_x = 32) in;
struct P { vec3 pos; float w; uvec3 id; };
layout(buffer_reference, std430, buffer_reference_align = 16) buffer OutRef { P p[]; };
layout(push_constant) uniform Push { OutRef outb; } pc;
layout(set = 0, binding = 0) readonly buffer In { vec3 v[]; } inb;
void main() {
  uint i = gl_LocalInvocationIndex;
  vec3 a = inb.v[i];
  pc.outb.p[i].pos.zx = a.xy;
  pc.outb.p[i].pos.y = a.z * 2.0;
  pc.outb.p[i].w = dot(a, a);
  pc.outb.p[i].id = uvec3(i, i * 2u, i * 3u);
  pc.outb.p[i].id.y += 1u;
}
