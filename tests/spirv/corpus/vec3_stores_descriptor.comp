// Reference for DriverCheck.Vec3StoreThenComponentIncrement: vec3 stores and a component
// read-modify-write through a descriptor (vec3_stores_app_pointer.comp is the same shader
// through the application's own buffer_reference pointer).
// @driverbug lavapipe 22.3 miscompiles a vec3 store then a component read-modify-write through a PhysicalStorageBuffer pointer (DriverCheck.Vec3StoreThenComponentIncrement)
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
  outb.p[i].id.y += 1u;
}
