#version 450
// kernel/add written by hand with buffer_reference pointers (addresses in push constants, no
// descriptors): the same work as add.comp, for telling a cost of the driver's pointer path
// per dispatch from one of the rewrite (Bindery leaves this module alone).
#extension GL_EXT_buffer_reference : require
layout(local_size_x = 256) in;

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer In { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) writeonly buffer Out { float v[]; };

layout(push_constant) uniform Args {
  In a;
  In b;
  Out c;
  uint n;
} args;

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i < args.n) args.c.v[i] = args.a.v[i] + args.b.v[i];
}
