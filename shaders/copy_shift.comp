#version 450
#extension GL_GOOGLE_include_directive : require
// Copies into 16-byte aligned destination blocks from a source that is only byte
// aligned: the source is read as 32-bit words from its word-aligned address and each
// output word is funnel-shifted from two neighbours, in registers. Only words that hold
// at least one source byte of the range are read.
#include "transfer_common.glsl"

void main() {
  const TransferParams params = LoadParams();
  Vec4s dst = Vec4s(params.dst);
  Words src = Words(params.src);
  const uint shift = params.value;
  const uint back = 32u - shift;
  for (uint i = FirstBlock(); i < params.count; i += BlockStride()) {
    const uint b = 4u * i;
    const uint w0 = src.w[b], w1 = src.w[b + 1u], w2 = src.w[b + 2u], w3 = src.w[b + 3u];
    if (shift == 0u) {
      dst.v[i] = uvec4(w0, w1, w2, w3);
    } else {
      const uint w4 = src.w[b + 4u];
      dst.v[i] = uvec4((w0 >> shift) | (w1 << back), (w1 >> shift) | (w2 << back),
                       (w2 >> shift) | (w3 << back), (w3 >> shift) | (w4 << back));
    }
  }
}
