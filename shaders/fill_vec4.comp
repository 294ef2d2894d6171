#version 450
#extension GL_GOOGLE_include_directive : require
// Fills 16-byte blocks with a 32-bit pattern (already rotated to the block's phase).
#include "transfer_common.glsl"

void main() {
  const TransferParams params = LoadParams();
  Vec4s dst = Vec4s(params.dst);
  const uvec4 pattern = uvec4(params.value);
  for (uint i = FirstBlock(); i < params.count; i += BlockStride()) dst.v[i] = pattern;
}
