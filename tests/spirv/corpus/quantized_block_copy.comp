// ggml's same-type copy of quantized blocks (q4_0, q6_K, iq4_nl...: blocks of 18, 210, 110
// bytes): no arithmetic type fits them, so the blocks move as float16 words through
// 16-bit storage (ggml's contig_cpy_f16_f16, four words per invocation with a fast path and
// a guarded tail). The words are bits, not floats: every 16-bit pattern comes in, NaNs and
// signalling NaNs included, and must come out unchanged. With bounds checks, a rewrite
// that widened the loaded float16 to 32 bits and back (OpFConvert) quieted signalling NaNs
// on lavapipe and the H100: 27 of ggml's 249 CPY cases gave other bytes.
// @requires float16
// @dispatch 128 1 1
// @buffer 0 0 131072 halfbits
// @buffer 0 1 131072 zero
#version 450
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 128) in;
layout(set = 0, binding = 0) readonly buffer A { float16_t data_a[]; };
layout(set = 0, binding = 1) writeonly buffer D { float16_t data_d[]; };
void main() {
  const uint ne = 65536u - 37u;  // a guarded tail, as ggml's odd block counts give
  uint idx = gl_WorkGroupID.x * 512u + gl_LocalInvocationID.x;
  if (idx + 3u * 128u < ne) {
    [[unroll]] for (uint i = 0u; i < 4u; ++i) {
      data_d[idx] = data_a[idx];
      idx += 128u;
    }
  } else {
    [[unroll]] for (uint i = 0u; i < 4u; ++i) {
      if (idx >= ne) continue;
      data_d[idx] = data_a[idx];
      idx += 128u;
    }
  }
}
