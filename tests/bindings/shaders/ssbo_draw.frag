#version 450
// Fragment stage of the indirect-bindings render test: colour from a storage buffer, and
// an atomic count of the fragments shaded.
layout(set = 1, binding = 0) readonly buffer Palette { vec4 c[]; } palette;
layout(set = 1, binding = 1) buffer Count { uint fragments; } count;
layout(location = 0) out vec4 frag;
void main() {
  atomicAdd(count.fragments, 1u);
  frag = palette.c[(uint(gl_FragCoord.x) / 8u + uint(gl_FragCoord.y) / 16u) % 4u];
}
