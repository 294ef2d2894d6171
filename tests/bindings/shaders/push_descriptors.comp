#version 450
// Push-descriptor test: set 0 is a push-descriptor set mixing converted storage buffers
// (bindings 0, 1) with a native uniform buffer (binding 2); set 1 is an ordinary set.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; } inb;
layout(set = 0, binding = 1) buffer Out { uint v[]; } outb;
layout(set = 0, binding = 2) uniform Params { uint mul; uint base; } params;
layout(set = 1, binding = 0) readonly buffer Bias { uint v[]; } bias;
void main() {
  uint i = gl_GlobalInvocationID.x;
  outb.v[params.base + i] = inb.v[i] * params.mul + bias.v[i];
}
