#version 450
// add_pointers.comp with its push constants laid out as Bindery's root for add.comp: n at 0,
// then {address, size} records of a, b, c at 8, 24, 40 (56 bytes; sizes unread, as uvec2 so
// the module needs no Int64). Tells the root's layout from the rewritten code.
#extension GL_EXT_buffer_reference : require
layout(local_size_x = 256) in;

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer In { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) writeonly buffer Out { float v[]; };

layout(push_constant) uniform Args {
  uint n;
  In a;
  uvec2 a_size;
  In b;
  uvec2 b_size;
  Out c;
  uvec2 c_size;
} args;

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i < args.n) args.c.v[i] = args.a.v[i] + args.b.v[i];
}
