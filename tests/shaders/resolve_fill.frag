#version 450
// Writes one sample of every pixel (gl_SampleMask: the push constant's sample) with a value
// hashed from the pixel, the sample and a seed, so a resolve averages samples that differ.
// KIND: 0 float (value * scale + bias), 1 unsigned (0..255), 2 signed (-128..127).
layout(push_constant) uniform Fill {
  uint seed;
  uint sample_index;
  float scale;
  float bias;
} fill;
#if KIND == 0
layout(location = 0) out vec4 color;
#elif KIND == 1
layout(location = 0) out uvec4 color;
#else
layout(location = 0) out ivec4 color;
#endif

uint Hash(uint x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

void main() {
  const uvec2 p = uvec2(gl_FragCoord.xy);
  const uint h = Hash(p.x * 7919u + p.y * 104729u + fill.sample_index * 15485863u + fill.seed);
  const uvec4 b = uvec4(h & 0xFFu, (h >> 8) & 0xFFu, (h >> 16) & 0xFFu, h >> 24);
  gl_SampleMask[0] = 1 << fill.sample_index;
#if KIND == 0
  color = vec4(b) * fill.scale + fill.bias;
#elif KIND == 1
  color = b;
#else
  color = ivec4(b) - 128;
#endif
}
