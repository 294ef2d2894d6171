#version 450
// Benchmark kernel: the same sum as four_buffers.comp, but the four buffers arrive as
// device addresses in 32 bytes of push constants (no descriptor sets). Never run.
#extension GL_EXT_buffer_reference : require
layout(local_size_x = 64) in;

layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint v[]; };

layout(push_constant) uniform Args {
  Words a;
  Words b;
  Words c;
  Words d;
} args;

void main() {
  uint i = gl_GlobalInvocationID.x;
  args.d.v[i] = args.a.v[i] + args.b.v[i] + args.c.v[i];
}
