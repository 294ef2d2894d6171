// Fragment stage reading and writing storage buffers (rewritten and validated, not run).
// @target vulkan1.0
#version 450
layout(set = 0, binding = 0) readonly buffer Palette { vec4 c[]; } palette;
layout(set = 0, binding = 2) buffer Hist { uint bins[256]; } hist;
layout(location = 0) in vec4 color;
layout(location = 0) out vec4 frag;
void main() {
  uint bin = uint(clamp(color.r, 0.0, 1.0) * 255.0);
  atomicAdd(hist.bins[bin], 1u);
  frag = palette.c[bin % uint(palette.c.length())] * color;
}
