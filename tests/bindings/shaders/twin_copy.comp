#version 450
// Native-twin test: dst[i] = src[i] * 2 + 1, where one of the buffers may have no device
// address (external memory).
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer S { uint v[]; } src;
layout(set = 0, binding = 1) buffer D { uint v[]; } dst;
void main() {
  uint i = gl_GlobalInvocationID.x;
  dst.v[i] = src.v[i] * 2u + 1u;
}
