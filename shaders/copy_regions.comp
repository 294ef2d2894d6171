#version 450
#extension GL_GOOGLE_include_directive : require
// Copies a batch of small regions at any byte alignment in one dispatch: one workgroup
// per region (grid-stride over the table), one invocation per destination word. Whole
// words are stored; a word the region covers only partly is written with atomicAnd /
// atomicOr on exactly the region's bytes, so bytes of neighbouring data — including
// another region of the same batch sharing that word — are never read-modified-written.
#include "transfer_common.glsl"

// params.dst: address of the region table; params.count: number of regions.
struct Region {
  uvec2 src_word;  // source address rounded down to 4 bytes
  uvec2 dst_word;  // destination address rounded down to 4 bytes
  uint size;       // bytes
  uint src_shift;  // source address % 4
  uint dst_shift;  // destination address % 4
  uint unused;
};
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Regions { Region r[]; };

void main() {
  const TransferParams params = LoadParams();
  Regions table = Regions(params.dst);
  for (uint ri = gl_WorkGroupID.x; ri < params.count; ri += gl_NumWorkGroups.x) {
    const Region g = table.r[ri];
    Words src = Words(g.src_word);
    Words dst = Words(g.dst_word);
    const uint words = (g.dst_shift + g.size + 3u) / 4u;
    for (uint w = gl_LocalInvocationID.x; w < words; w += gl_WorkGroupSize.x) {
      uint value = 0u;
      uint mask = 0u;
      for (uint k = 0u; k < 4u; ++k) {
        const int j = int(4u * w + k) - int(g.dst_shift);  // byte index within the region
        if (j >= 0 && uint(j) < g.size) {
          const uint sb = g.src_shift + uint(j);
          value |= ((src.w[sb >> 2u] >> (8u * (sb & 3u))) & 0xFFu) << (8u * k);
          mask |= 0xFFu << (8u * k);
        }
      }
      if (mask == 0xFFFFFFFFu) {
        dst.w[w] = value;
      } else {
        atomicAnd(dst.w[w], ~mask);
        atomicOr(dst.w[w], value);
      }
    }
  }
}
