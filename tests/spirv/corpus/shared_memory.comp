// Workgroup (shared) memory stays as it is: a reduction through shared arrays, barriers.
// @dispatch 4 1 1
// @buffer 0 0 1024 iota
// @buffer 0 1 64 zero
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; } inb;
layout(set = 0, binding = 1) buffer Out { uint sums[]; } outb;
shared uint partial[64];
shared uint total;
void main() {
  uint l = gl_LocalInvocationIndex;
  partial[l] = inb.v[gl_GlobalInvocationID.x];
  if (l == 0u) total = 0u;
  barrier();
  for (uint stride = 32u; stride > 0u; stride >>= 1u) {
    if (l < stride) partial[l] += partial[l + stride];
    barrier();
  }
  atomicAdd(total, partial[0] & l);
  barrier();
  if (l == 0u) outb.sums[gl_WorkGroupID.x] = partial[0] + total;
}
