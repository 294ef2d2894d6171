#version 450
// bindery_probe's image-sampling row (probe_images.cpp): each invocation takes four bilinear
// samples of a 2 x 2 block of an R8G8B8A8 texture and writes their sum: what a renderer's
// texture reads cost on the image, with or without the flags the layer adds to reach it.
layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0) uniform sampler2D image;
layout(set = 0, binding = 1, std430) writeonly buffer Out { vec4 sums[]; };
layout(push_constant) uniform Size { uint half_size; } size;
void main() {
  const uvec2 at = gl_GlobalInvocationID.xy;
  if (at.x >= size.half_size || at.y >= size.half_size) return;
  const vec2 texel = 1.0 / vec2(2u * size.half_size);
  const vec2 base = vec2(2u * at) * texel;
  vec4 sum = textureLod(image, base + 0.75 * texel, 0.0) + textureLod(image, base + vec2(1.25, 0.75) * texel, 0.0) +
             textureLod(image, base + vec2(0.75, 1.25) * texel, 0.0) + textureLod(image, base + 1.25 * texel, 0.0);
  sums[at.y * size.half_size + at.x] = sum;
}
