#version 450
// Bind-point tests: set 0 a uniform buffer (bound through a layout of set 0 only), set 1 a
// storage buffer.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform U { uint x; } u;
layout(set = 1, binding = 0) buffer Out { uint v[]; } o;
void main() { o.v[0] = u.x * 2u + 1u; }
