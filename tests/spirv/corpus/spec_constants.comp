// Specialization constants: workgroup size, a loop bound and a scale, specialized at
// pipeline creation.
// @spec 0 32
// @spec 1 5
// @spec 2 3
// @dispatch 2 1 1
// @buffer 0 0 512 iota
// @buffer 0 1 512 zero
#version 450
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint kTaps = 2u;
layout(constant_id = 2) const uint kScale = 1u;
layout(constant_id = 3) const bool kUnused = false;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; } inb;
layout(set = 0, binding = 1) buffer Out { uint v[]; } outb;
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint acc = 0u;
  for (uint t = 0u; t < kTaps; ++t) acc += inb.v[(i + t) % 128u];
  outb.v[i] = kUnused ? 0u : acc * kScale + gl_WorkGroupSize.x;
}
