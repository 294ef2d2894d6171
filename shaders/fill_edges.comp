#version 450
#extension GL_GOOGLE_include_directive : require
// The byte-granular edges of a large unaligned fill (the bytes before and after its
// aligned middle, which a native fill writes beside this dispatch), in one workgroup,
// one invocation per destination word. Everything it needs is in its parameter record —
// the two edges' word addresses, their byte offsets and sizes, the pattern — so its first
// store waits for two dependent loads (directory, record) instead of the four of the
// batched-regions kernel (directory, record, region table, staged bytes): on NVIDIA those
// loads, not the stores, were what the edges cost beside the middle fill. Whole words are
// stored; a word an edge covers only partly gets atomicAnd / atomicOr on exactly its bytes.
#include "transfer_common.glsl"

struct EdgeParams {
  uvec2 head;      // address of the head edge's first word (rounded down to 4 bytes)
  uvec2 tail;      // the same for the tail edge
  uint head_span;  // (byte offset in its first word) | (bytes << 2); 0 bytes: no head
  uint pattern;    // the fill's word at any 4-byte aligned address
  uint tail_span;  // as head_span
  uint unused;
};
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer EdgeRecord { EdgeParams p; };

// Word `w` of an edge starting `shift` bytes into its first word, `size` bytes long.
void WriteWord(Words dst, uint w, uint shift, uint size, uint pattern) {
  uint mask = 0u;
  for (uint k = 0u; k < 4u; ++k) {
    const int j = int(4u * w + k) - int(shift);
    if (j >= 0 && uint(j) < size) mask |= 0xFFu << (8u * k);
  }
  if (mask == 0xFFFFFFFFu) {
    dst.w[w] = pattern;
  } else if (mask != 0u) {
    atomicAnd(dst.w[w], ~mask);
    atomicOr(dst.w[w], pattern & mask);
  }
}

void main() {
  // Every invocation reads the record itself (one broadcast load per subgroup): no
  // shared-memory barrier before the stores.
  const EdgeParams params = EdgeRecord(ParamsAddress()).p;
  const uint head_shift = params.head_span & 3u, head_size = params.head_span >> 2u;
  const uint tail_shift = params.tail_span & 3u, tail_size = params.tail_span >> 2u;
  const uint head_words = head_size == 0u ? 0u : (head_shift + head_size + 3u) / 4u;
  const uint tail_words = tail_size == 0u ? 0u : (tail_shift + tail_size + 3u) / 4u;
  for (uint i = gl_GlobalInvocationID.x; i < head_words + tail_words; i += gl_NumWorkGroups.x * gl_WorkGroupSize.x) {
    if (i < head_words) {
      WriteWord(Words(params.head), i, head_shift, head_size, params.pattern);
    } else {
      WriteWord(Words(params.tail), i - head_words, tail_shift, tail_size, params.pattern);
    }
  }
}
