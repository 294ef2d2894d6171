// Specialization constants as a workgroup size, as the length of a shared array and of an
// array inside a buffer block, and in an OpSpecConstantOp: the rewrite keeps their ids,
// types and defaults, and the module is valid under the application's values.
// @spec 0 64
// @spec 1 16
// @spec 2 3
// @dispatch 1 1 1
// @buffer 0 0 1024 iota
// @buffer 0 1 1024 zero
// @buffer 0 2 256 iota
#version 450
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint kRows = 4u;
layout(constant_id = 2) const uint kScale = 1u;
const uint kTotal = kRows * 4u;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; } inb;
layout(set = 0, binding = 2) readonly buffer Head { uint head[kRows]; } hb;
layout(set = 0, binding = 1) buffer Out { uint v[]; } outb;
shared uint tile[kTotal];
void main() {
  uint i = gl_LocalInvocationIndex;
  if (i < kTotal) tile[i] = inb.v[i] * kScale;
  barrier();
  outb.v[i] = tile[i % kTotal] + hb.head[i % kRows] + gl_WorkGroupSize.x;
}
