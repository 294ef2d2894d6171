// GLSL.std.450 instructions on values loaded through many buffer pointers: an extended
// instruction's number (UMin 38, FMin 37, Sqrt 31, Log2 30...) often equals the id of a
// buffer access chain, which once made the rewrite refuse the shader.
// @dispatch 1 1 1
// @buffer 0 0 1024 float
// @buffer 0 1 1024 iota
// @buffer 0 2 1024 zero
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer F { float f[]; } fb;
layout(set = 0, binding = 1) readonly buffer U { uint u[]; } ub;
layout(set = 0, binding = 2) buffer Out { float f[64]; uint u[64]; } outb;
void main() {
  uint i = gl_LocalInvocationIndex;
  uint a = ub.u[i], b = ub.u[i + 64u], c = ub.u[i + 128u];
  float x = fb.f[i], y = fb.f[i + 64u];
  outb.u[i] = min(a, b) + max(b, c) + findMSB(a + 1u) + clamp(c, 2u, 900u) + bitCount(a);
  outb.f[i] = min(x, y) + max(x, y) + sqrt(abs(x)) + log2(abs(y) + 1.0) + floor(x) + fract(y) + exp2(min(x, 4.0));
}
