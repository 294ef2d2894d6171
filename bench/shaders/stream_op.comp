#version 450
// One small operation of the inference-shaped command stream (probe stream/*): three
// input buffers, one output, a scale and a length pushed per dispatch.
layout(local_size_x = 64) in;

layout(push_constant) uniform Args {
  uint n;
  float scale;
} args;
layout(std430, set = 0, binding = 0) readonly buffer InA { float a[]; };
layout(std430, set = 0, binding = 1) readonly buffer InB { float b[]; };
layout(std430, set = 0, binding = 2) readonly buffer InC { float c[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Out { float d[]; };

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i < args.n) d[i] = (a[i] + b[i]) * args.scale + c[i];
}
