// Shared by the transfer kernels: push-constant parameters and buffer-reference types.
// Addresses travel as uvec2 (GL_EXT_buffer_reference_uvec2) so no shaderInt64 is needed.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require

layout(local_size_x = 256) in;

layout(push_constant) uniform TransferParams {
  uvec2 dst;    // destination, 16-byte aligned
  uvec2 src;    // source (copies): 16-byte aligned for copy_vec4, 4-byte for copy_shift
  uint count;   // number of 16-byte blocks to write
  uint value;   // fill: the 32-bit pattern; copy_shift: right shift in bits (0, 8, 16, 24)
} params;

layout(buffer_reference, std430, buffer_reference_align = 16) buffer Vec4s { uvec4 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint w[]; };

// Grid-stride loop bounds: every invocation handles blocks i, i + stride, ...
uint FirstBlock() { return gl_GlobalInvocationID.x; }
uint BlockStride() { return gl_NumWorkGroups.x * gl_WorkGroupSize.x; }
