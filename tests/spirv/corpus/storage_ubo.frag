// Fragment stage with a converted uniform buffer (@ubo) and an SSBO (SPIR-V 1.4 target).
// @target spirv1.4
// @ubo
#version 450
layout(set = 0, binding = 0) uniform Material { vec4 tint; uint flags; } material;
layout(set = 0, binding = 1) writeonly buffer Out { vec4 last; } outb;
layout(location = 0) in vec4 color;
layout(location = 0) out vec4 frag;
void main() {
  frag = color * material.tint;
  if ((material.flags & 1u) != 0u) outb.last = frag;
}
