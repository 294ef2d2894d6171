#version 450
// Bind-point tests: a push constant (pushed through a layout without sets) and a storage
// buffer.
layout(local_size_x = 1) in;
layout(push_constant) uniform PC { uint x; } pc;
layout(set = 0, binding = 0) buffer Out { uint v[]; } o;
void main() { o.v[0] = pc.x + 5u; }
