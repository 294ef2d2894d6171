#version 450
// Bind-point tests: a descriptor array sized by a specialization constant, which the
// rewrite refuses: the graphics pipeline runs natively (fallback).
layout(constant_id = 0) const uint N = 2;
layout(set = 0, binding = 0) buffer Out { uint v[]; } o[N];
void main() {
  if (uint(gl_FragCoord.x) == 0u && uint(gl_FragCoord.y) == 0u) {
    o[0].v[0] = 0xF00Du;
    o[1].v[0] = 0xBEEFu;
  }
}
