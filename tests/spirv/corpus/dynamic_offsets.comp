// Dynamic storage and uniform buffers (one a descriptor array): natively bound with
// dynamic offsets; rewritten, the offsets travel in push constants
// (BindingLayout::dynamic_offsets_root_offset) and move the record's address and size.
// @ubo
// @dispatch 1 1 1
// @buffer 0 0 1024 iota dynamic=256
// @buffer 0 1 1024 bytes dynamic=512 index=0
// @buffer 0 1 1024 float dynamic=256 index=1
// @buffer 0 2 1024 iota uniform dynamic=768
// @buffer 1 0 1024 zero
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; } inb;
layout(set = 0, binding = 1) buffer Pair { uint v[]; } pair[2];
layout(set = 0, binding = 2) uniform Params { uvec4 k[16]; } params;
layout(set = 1, binding = 0) buffer Out { uint n_in; uint n_pair; uint v[]; } outb;
void main() {
  uint i = gl_LocalInvocationIndex;
  outb.v[i] = inb.v[i] + pair[0].v[i] * 3u + pair[1].v[(i + 5u) % 64u] + params.k[i / 4u][i % 4u];
  pair[1].v[i + 64u] = i;  // past what anyone reads, inside the dynamic range
  if (i == 0u) {
    outb.n_in = uint(inb.v.length());
    outb.n_pair = uint(pair[0].v.length());
  }
}
