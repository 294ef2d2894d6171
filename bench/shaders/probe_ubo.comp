#version 450
// bindery_probe's native-set row: a set of one uniform buffer, which indirect bindings
// leave native unless BINDERY_BINDINGS_UBO converts uniform buffers.
layout(local_size_x = 64) in;
layout(std140, set = 0, binding = 0) uniform Params { vec4 scale; } params;
layout(std430, set = 1, binding = 0) writeonly buffer Out { vec4 o[]; };
void main() { o[gl_GlobalInvocationID.x] = params.scale; }
