#version 450
// Bind-point tests: the fragment at pixel (0, 0) marks word 0 of the storage buffer at set 0.
layout(set = 0, binding = 0) buffer Out { uint v[]; } o;
void main() {
  if (uint(gl_FragCoord.x) == 0u && uint(gl_FragCoord.y) == 0u) o.v[0] = 0xF00Du;
}
