#version 450
#extension GL_GOOGLE_include_directive : require
// Copies 16-byte blocks between 16-byte aligned addresses.
#include "transfer_common.glsl"

void main() {
  const TransferParams params = LoadParams();
  Vec4s dst = Vec4s(params.dst);
  Vec4s src = Vec4s(params.src);
  for (uint i = FirstBlock(); i < params.count; i += BlockStride()) dst.v[i] = src.v[i];
}
