// Matrices in buffers: column-major and row-major (MatrixStride, RowMajor on the new
// pointer types), std430 and std140.
// @dispatch 1 1 1
// @buffer 0 0 1024 float
// @buffer 0 1 1024 zero
#version 450
layout(local_size_x = 8) in;
layout(set = 0, binding = 0, std430) readonly buffer In { mat4 cm; layout(row_major) mat4 rm; mat3x2 odd[2]; } inb;
layout(set = 0, binding = 1, std140) buffer Out { mat4 a; layout(row_major) mat3 b; vec4 v[8]; } outb;
void main() {
  uint i = gl_LocalInvocationIndex;
  vec4 x = vec4(float(i), 1.0, -2.0, 0.5);
  outb.v[i] = inb.cm * x + inb.rm * x + vec4(inb.odd[i % 2u][i % 3u], 0.0, 1.0);
  if (i == 0u) {
    outb.a = transpose(inb.rm);
    outb.b = mat3(inb.cm);
  }
}
