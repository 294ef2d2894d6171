#version 450
// Native-twin test with push descriptors: set 0 is an ordinary set (its source may have
// no device address), set 1 a push-descriptor set holding the destination.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer S { uint v[]; } src;
layout(set = 1, binding = 0) buffer D { uint v[]; } dst;
void main() {
  uint i = gl_GlobalInvocationID.x;
  dst.v[i] = src.v[i] * 2u + 1u;
}
