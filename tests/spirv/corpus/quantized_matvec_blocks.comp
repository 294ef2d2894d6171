// An inference runtime's quantized matrix-vector product (the shape of bench/shaders/
// matvec_q4_0.comp): 4-bit weights read as uvec4 blocks and an input read as uvec4 from
// read-only runtime arrays, a per-block scale read from a uint array, one workgroup per
// row, a subgroup reduction and the subgroups' partial sums through shared memory. Integer
// arithmetic, so forced and native results are byte-identical. The header block puts a
// uint at offset 4 and a uvec4 array at offset 16: the rewrite's Aligned operands must
// state 16 only where the layout proves it (spirv/access_alignment.h).
// @target vulkan1.1
// @dispatch 8 1 1
// @buffer 0 0 4096 bytes
// @buffer 0 1 1024 bytes
// @buffer 0 2 64 zero
// @buffer 0 3 256 iota
// @buffer 0 4 272 iota
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 32) in;

layout(std430, set = 0, binding = 0) readonly buffer Quants { uvec4 qs[]; };   // 8 rows x 32 blocks
layout(std430, set = 0, binding = 1) readonly buffer Input { uvec4 x[]; };     // 32 blocks x 2 uvec4
layout(std430, set = 0, binding = 2) writeonly buffer Out { uint y[]; };
layout(std430, set = 0, binding = 3) readonly buffer Scales { uint scales[]; };
layout(std430, set = 0, binding = 4) readonly buffer Header {
  uint count;
  uint bias;      // offset 4
  uvec4 extra[];  // offset 16
} header;

shared uint partials[32];

uint Nibbles(uint w, uint shift, uvec4 v) {
  return ((w >> shift) & 0xFu) * (v.x & 0xFFu) + ((w >> (shift + 8u)) & 0xFu) * (v.y & 0xFFu) +
         ((w >> (shift + 16u)) & 0xFu) * (v.z & 0xFFu) + ((w >> (shift + 24u)) & 0xFu) * (v.w & 0xFFu);
}

void main() {
  const uint row = gl_WorkGroupID.x;
  const uint b = gl_LocalInvocationIndex;  // one block per invocation
  const uvec4 q = qs[row * 32u + b];
  uint s = 0u;
  for (uint w = 0u; w < 4u; ++w) s += Nibbles(q[w], 0u, x[b * 2u]) + Nibbles(q[w], 4u, x[b * 2u + 1u]);
  s = s * (scales[(row * 32u + b) % 64u] & 0xFFu) + header.bias + header.extra[b % 16u].y;
  const uint total = subgroupAdd(s);
  if (subgroupElect()) partials[gl_SubgroupID] = total;
  barrier();
  if (b == 0u) {
    uint sum = 0u;
    for (uint i = 0u; i < gl_NumSubgroups; ++i) sum += partials[i];
    y[row] = sum;
  }
}
