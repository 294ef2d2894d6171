#version 450
#extension GL_EXT_nonuniform_qualifier : require
// Descriptor arrays with constant, uniform and non-uniform indices.
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Bufs { uint v[]; } bufs[4];
layout(set = 1, binding = 2) buffer Out { uint o[]; } outs;
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint a = bufs[1].v[i];
  uint b = bufs[nonuniformEXT(i % 4u)].v[i];
  outs.o[i] = a + b + uint(bufs[i & 3u].v.length());
}
