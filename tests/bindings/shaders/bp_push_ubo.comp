#version 450
// Bind-point tests: set 0 holds only a storage buffer (a root-only set once converted),
// set 1 is a push-descriptor set with a uniform buffer (stays native).
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } o;
layout(set = 1, binding = 0) uniform P { uint x; } p;
void main() { o.v[0] = p.x + 1u; }
