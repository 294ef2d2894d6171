// Shared by the transfer kernels: how a kernel finds its parameters, and buffer-reference
// types. Addresses travel as uvec2 (GL_EXT_buffer_reference_uvec2) so no shaderInt64 is needed.
//
// The kernels take no push constants and no descriptor sets, so recording one disturbs
// none of the application's bound state except the compute pipeline (the spec: binding a
// pipeline whose layout is not compatible with the push constant layout does not disturb
// the push constant values; binding a pipeline never disturbs descriptor sets). Each
// dispatch's parameters are a 32-byte record the layer wrote at record time into the
// command buffer's staging; the dispatch names it through its base workgroup
// (vkCmdDispatchBase, groupCountY = groupCountZ = 1): gl_WorkGroupID.y | gl_WorkGroupID.z << 15
// is (staging block index << 18) | (offset in the block / 16), and the block's address is
// read from the staging pool's block directory, whose address is specialization constants.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require

layout(local_size_x = 256) in;

layout(constant_id = 0) const uint kDirectoryLow = 0u;
layout(constant_id = 1) const uint kDirectoryHigh = 0u;

struct TransferParams {
  uvec2 dst;    // destination, 16-byte aligned (copy_regions: the region table)
  uvec2 src;    // source (copies): 16-byte aligned for copy_vec4, 4-byte for copy_shift
  uint count;   // number of 16-byte blocks to write (copy_regions: of regions)
  uint value;   // fill: the 32-bit pattern; copy_shift: right shift in bits (0, 8, 16, 24)
};

layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer BlockDirectory { uvec2 block[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer ParamRecord { TransferParams p; };
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Vec4s { uvec4 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint w[]; };

shared TransferParams shared_params;

// The address of this dispatch's 32-byte parameter record.
uvec2 ParamsAddress() {
  const uint code = gl_WorkGroupID.y | (gl_WorkGroupID.z << 15u);
  const uvec2 base = BlockDirectory(uvec2(kDirectoryLow, kDirectoryHigh)).block[code >> 18u];
  uint carry;
  const uint low = uaddCarry(base.x, (code & 0x3FFFFu) << 4u, carry);
  return uvec2(low, base.y + carry);
}

TransferParams LoadParamsFromMemory() { return ParamRecord(ParamsAddress()).p; }

// Read once per workgroup (one invocation's two dependent loads instead of every one's).
TransferParams LoadParams() {
  if (gl_LocalInvocationIndex == 0u) shared_params = LoadParamsFromMemory();
  barrier();
  return shared_params;
}

// Grid-stride loop bounds: every invocation handles blocks i, i + stride, ...
// (x only: the dispatch's base is 0 in x.)
uint FirstBlock() { return gl_GlobalInvocationID.x; }
uint BlockStride() { return gl_NumWorkGroups.x * gl_WorkGroupSize.x; }
