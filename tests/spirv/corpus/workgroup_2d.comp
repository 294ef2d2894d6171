// A 2D dispatch indexing a row-major image stored in a buffer, with neighbour reads.
// @dispatch 2 2 1
// @buffer 0 0 1024 iota
// @buffer 0 1 1024 zero
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) readonly buffer Img { uint px[]; } img;
layout(set = 0, binding = 1) writeonly buffer Dst { uint px[]; } dst;
void main() {
  uvec2 p = gl_GlobalInvocationID.xy;
  uint w = 16u;
  uint c = img.px[p.y * w + p.x];
  uint r = img.px[p.y * w + min(p.x + 1u, w - 1u)];
  uint d = img.px[min(p.y + 1u, w - 1u) * w + p.x];
  dst.px[p.y * w + p.x] = c * 4u - r - d;
}
