// Shared by the matrix-vector kernels (bench/shaders/matvec_*.comp): one workgroup per
// output row, 128 invocations striding over the row's blocks, a subgroup reduction, then
// the subgroups' partial sums through shared memory — the shape of an inference runtime's
// quantized matrix-vector product.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

layout(local_size_x = 128) in;

layout(push_constant) uniform Shape {
  uint cols;  // K: input vector length, a multiple of 32
  uint rows;  // N: output length
} shape;

layout(std430, set = 0, binding = 1) readonly buffer X { vec4 x[]; };  // K floats
layout(std430, set = 0, binding = 2) writeonly buffer Y { float y[]; };  // N floats

shared float partials[128];

// Sums `value` over the workgroup; invocation 0 writes y[row].
void ReduceAndStore(float value, uint row) {
  const float s = subgroupAdd(value);
  if (subgroupElect()) partials[gl_SubgroupID] = s;
  barrier();
  if (gl_LocalInvocationIndex == 0) {
    float total = 0.0;
    for (uint i = 0; i < gl_NumSubgroups; ++i) total += partials[i];
    y[row] = total;
  }
}
