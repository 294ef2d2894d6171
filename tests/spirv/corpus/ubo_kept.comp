// A uniform buffer left a descriptor (convert_uniform_buffers off) next to a converted SSBO.
// @dispatch 1 1 1
// @buffer 0 0 256 iota uniform
// @buffer 0 1 256 zero
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform Params { uvec4 p[16]; } params;
layout(set = 0, binding = 1) buffer Out { uint v[]; } outb;
void main() {
  uint i = gl_LocalInvocationIndex;
  outb.v[i] = params.p[i / 4u][i % 4u] * 7u;
}
