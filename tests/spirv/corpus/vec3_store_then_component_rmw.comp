// A uvec3 store followed by a read-modify-write of one of its components. Lavapipe (Mesa
// 22.3) gets this wrong through PhysicalStorageBuffer pointers even without the rewrite
// (DriverCheck.Vec3StoreThenComponentIncrement shows it with the app's own pointer).
// @driverbug lavapipe 22.3 miscompiles a vec3 store then a component read-modify-write through a PhysicalStorageBuffer pointer (DriverCheck.Vec3StoreThenComponentIncrement)
// @dispatch 1 1 1
// @buffer 0 0 256 iota
// @buffer 0 1 1024 zero
#version 450
layout(local_size_x = 32) in;
struct P { vec3 pos; float w; uvec3 id; };
layout(set = 0, binding = 0) readonly buffer In { uint v[]; } inb;
layout(set = 0, binding = 1) buffer Out { P p[]; } outb;
void main() {
  uint i = gl_LocalInvocationIndex;
  outb.p[i].id = uvec3(inb.v[i], i * 2u, i * 3u);
  outb.p[i].id.y += 1u;
}
