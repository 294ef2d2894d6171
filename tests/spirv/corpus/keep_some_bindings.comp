// A layout that converts only part of a set: binding 1 stays a descriptor (@keep), so the
// rewritten pipeline binds one descriptor and two argument-block records.
// @keep 0 1
// @dispatch 1 1 1
// @buffer 0 0 256 iota
// @buffer 0 1 256 bytes
// @buffer 0 2 256 zero
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer A { uint v[]; } a;
layout(set = 0, binding = 1) buffer B { uint v[]; } b;
layout(set = 0, binding = 2) buffer C { uint v[]; } c;
void main() {
  uint i = gl_LocalInvocationIndex;
  c.v[i] = a.v[i] + b.v[i];
  b.v[i] = a.v[63u - i];
}
