#version 450
// Ring-root test: push constants fill the device's space (the pipeline layout's range
// covers all of maxPushConstantsSize), so the root must go to the reserved set. Set 1 is a
// dynamic storage buffer (its dynamic offset travels in the root too).
layout(local_size_x = 64) in;
layout(push_constant) uniform PC { uint mul[32]; } pc;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; } inb;
layout(set = 0, binding = 1) buffer Out { uint v[]; } outb;
layout(set = 1, binding = 0) readonly buffer Dyn { uint v[]; } dyn;
void main() {
  uint i = gl_GlobalInvocationID.x;
  outb.v[i] = inb.v[i] * pc.mul[i % 32u] + dyn.v[i];
}
