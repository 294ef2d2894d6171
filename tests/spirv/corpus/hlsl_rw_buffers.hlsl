// HLSL through glslang's HLSL front end: structured buffers (storage buffers with DXC-style
// layouts and names), a byte-address buffer, and an intrinsic next to buffer accesses.
// (Vulkan 1.1: glslang writes ByteAddressBuffer as a BufferBlock, which SPIR-V 1.4+ forbids.)
// @target vulkan1.1
// @dispatch 1 1 1
// @buffer 0 0 256 iota
// @buffer 0 1 256 iota
// @buffer 0 2 256 zero
[[vk::binding(0, 0)]] StructuredBuffer<uint> InA;
[[vk::binding(1, 0)]] ByteAddressBuffer InB;
[[vk::binding(2, 0)]] RWStructuredBuffer<uint> Out;

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
  uint i = id.x;
  uint b = InB.Load(i * 4);
  Out[i] = min(InA[i], b + 3) + max(InA[(i + 1) % 64], 7u) + countbits(b);
}
