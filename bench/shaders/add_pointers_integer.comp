#version 450
// add_pointers.comp with each element reached through integers, as Bindery's rewrite did:
// the buffer's address plus 4 * i in 64-bit arithmetic, then cast to a pointer to one float
// (OpConvertPtrToU / OpIAdd / OpConvertUToPtr), losing the read-only block type. Same push
// constants as add_pointers.comp.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 256) in;

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer In { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) writeonly buffer Out { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Float { float x; };

layout(push_constant) uniform Args {
  In a;
  In b;
  Out c;
  uint n;
} args;

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i < args.n) {
    const uint64_t at = uint64_t(i) * 4ul;
    const float a = Float(uint64_t(args.a) + at).x;
    const float b = Float(uint64_t(args.b) + at).x;
    Float(uint64_t(args.c) + at).x = a + b;
  }
}
