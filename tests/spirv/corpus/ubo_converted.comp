// A uniform buffer (std140, arrays of scalars padded to 16 bytes) converted when asked.
// @ubo
// @dispatch 1 1 1
// @buffer 0 0 1024 iota uniform
// @buffer 0 1 256 zero
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std140) uniform Params {
  vec4 scale;
  uint table[32];
  mat4 m;
} params;
layout(set = 0, binding = 1) buffer Out { uint v[]; } outb;
void main() {
  uint i = gl_LocalInvocationIndex;
  outb.v[i] = params.table[i % 32u] + floatBitsToUint(params.scale[i % 4u]) + floatBitsToUint(params.m[i % 4u][(i / 4u) % 4u]);
}
