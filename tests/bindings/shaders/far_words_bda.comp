#version 450
// The hand-written reference for far_words.comp: the same accesses through a buffer
// reference with 64-bit address arithmetic (run without the layer).
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 1) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Word { uint v; };
layout(push_constant) uniform Push { uint64_t base; } p;
layout(set = 0, binding = 1) buffer Io { uint index[3]; uint read[3]; uint length_seen; } io;
void main() {
  for (int k = 0; k < 3; ++k) {
    Word w = Word(p.base + uint64_t(io.index[k]) * 4ul);
    io.read[k] = w.v;
    w.v = 0xA000u + uint(k);
  }
}
