// A declared binding that no instruction uses (stays as it is) next to used ones.
// @dispatch 1 1 1
// @buffer 0 0 256 iota
// @buffer 0 1 256 bytes
// @buffer 0 2 256 zero
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer A { uint v[]; } a;
layout(set = 0, binding = 1) readonly buffer Unused { uint v[]; } unused;
layout(set = 0, binding = 2) buffer C { uint v[]; } c;
uint never_called() { return unused.v[0]; }
void main() {
  uint i = gl_LocalInvocationIndex;
  c.v[i] = a.v[i] * 2u;
}
