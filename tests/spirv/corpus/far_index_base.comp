// Array indices offset by a pushed base: 0 in the corpus runs (a plain copy); the far-index
// exec test (tests/spirv/exec/far_index_test.cpp) runs the rewritten module with a base of
// 2^28 uvec4 elements (4 GiB) and records moved back 4 GiB, which lands on the same words
// only when the element offset is formed in 64 bits. Src's array follows a header, so the
// chain through the block's members has a member offset too (the header itself is not read:
// with the records moved back, only indexed accesses land inside the buffers).
// @target vulkan1.2
// @dispatch 1 1 1
// @buffer 0 0 1040 iota
// @buffer 0 1 1024 zero
// @push 4 zero
#version 450
layout(local_size_x = 64) in;
layout(push_constant) uniform P { uint base; } p;
layout(set = 0, binding = 0) readonly buffer Src { uint header; uvec4 v[]; } src;
layout(set = 0, binding = 1) writeonly buffer Dst { uvec4 w[]; } dst;
void main() {
  uint i = gl_GlobalInvocationID.x;
  dst.w[p.base + i] = src.v[p.base + i] * 3u + 1u;
}
