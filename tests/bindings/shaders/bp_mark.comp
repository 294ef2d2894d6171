#version 450
// Bind-point tests: marks word 1 of the storage buffer at set 0.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } o;
void main() { o.v[1] = 0xC0DEu; }
