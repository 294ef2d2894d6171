// coherent / volatile / restrict buffers under the GLSL450 memory model (decorations).
// @target vulkan1.1
// @dispatch 1 1 1
// @buffer 0 0 256 iota
// @buffer 0 1 256 zero
// @buffer 0 2 256 bytes
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) coherent buffer A { uint v[]; } a;
layout(set = 0, binding = 1) volatile buffer B { uint v[]; } b;
layout(set = 0, binding = 2) restrict buffer C { uint v[]; } c;
void main() {
  uint i = gl_LocalInvocationIndex;
  b.v[i] = a.v[i] + c.v[i];
  memoryBarrierBuffer();
  c.v[i] = b.v[i] ^ 3u;
}
