#version 450
// Fallback test: the same layout as fallback_refused.comp, converted; BASE picks where it
// writes, so two pipelines of it bracket the fallback dispatch.
layout(local_size_x = 64) in;
layout(constant_id = 1) const uint BASE = 256;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; } inb[2];
layout(set = 0, binding = 1) buffer Out { uint v[]; } outb;
void main() {
  uint i = gl_GlobalInvocationID.x;
  outb.v[BASE + i] = inb[0].v[i] * 3u + inb[1].v[i];
}
