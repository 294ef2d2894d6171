#version 450
// axpy.comp written by hand the way the rewrite reads its buffers: three buffer_reference
// pointers (in push constants here, with the vec4 count) instead of descriptors. Run
// natively, it tells what the driver's pointer path costs against its storage-buffer path,
// whatever Bindery does (bindings_benchmarks.cpp, the "pointers" row).
#extension GL_EXT_buffer_reference : require
layout(local_size_x = 256) in;

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer In { vec4 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) writeonly buffer Out { vec4 v[]; };

layout(push_constant) uniform Args {
  In x;
  In y;
  Out z;
  uint n;
} args;

const float a = 3.0000002384185791015625;

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < args.n; i += stride) args.z.v[i] = a * args.x.v[i] + args.y.v[i];
}
