#include "glsl.h"

#include <map>
#include <set>
#include <sstream>

namespace bindery::apifuzz {

const Binding* FindBinding(const Program& p, const PipelineLayout& layout, uint32_t set, uint32_t binding) {
  if (set >= layout.sets.size() || layout.sets[set] >= p.set_layouts.size()) return nullptr;
  for (const Binding& b : p.set_layouts[layout.sets[set]].bindings) {
    if (b.binding == binding) return &b;
  }
  return nullptr;
}

namespace {

// Push-constant words this stage may read: those inside a range that names the stage.
bool PushWordVisible(const PipelineLayout& layout, uint32_t stage, uint32_t offset) {
  for (const PushRange& r : layout.push) {
    if ((r.stages & stage) && offset >= r.offset && offset + 4 <= r.offset + r.size) return true;
  }
  return false;
}

std::string Name(uint32_t set, uint32_t binding) { return std::to_string(set) + "_" + std::to_string(binding); }

// An operation on an image binding: texelFetch of sampled images (without a sampler, or
// through the combined one), imageLoad/imageStore of storage images, size queries for kLength.
// Stores only into kOut storage images outside fragment shaders, reads only of kIn images.
void ImageOp(const Binding* b, const ShaderOp& op, uint32_t stage, std::set<std::pair<uint32_t, uint32_t>>& declared,
             std::ostringstream& decl, std::ostringstream& body) {
  const bool storage = b->type == DescType::kStorageImage;
  if (op.kind == OpKind::kAtomic || op.kind == OpKind::kPush) return;
  if (op.kind == OpKind::kRead && b->role != Role::kIn) return;
  if (op.kind == OpKind::kWrite && (!storage || b->role != Role::kOut || stage == kFragment)) return;
  const std::string n = Name(op.set, op.binding);
  const std::string prefix = b->type == DescType::kSampledImage ? "t" : storage ? "i" : "c";
  if (declared.insert({op.set, op.binding}).second) {
    const std::string array = b->count > 1 ? "[" + std::to_string(b->count) + "]" : "";
    decl << "layout(set = " << op.set << ", binding = " << op.binding << (storage ? ", r32ui" : "") << ") "
         << (storage && b->role == Role::kIn ? "readonly " : "") << "uniform "
         << (b->type == DescType::kSampledImage ? "utexture2D " : storage ? "uimage2D " : "usampler2D ") << prefix
         << n << array << ";\n";
  }
  std::string ref = prefix + n;
  if (b->count > 1) ref += "[" + std::to_string(op.element) + "]";
  const std::string at = "ivec2(" + std::to_string(op.index % kTexSize) + ", " +
                         std::to_string((op.index / kTexSize) % kTexSize) + ")";
  switch (op.kind) {
    case OpKind::kRead:
      body << "  acc = mixv(acc, " << (storage ? "imageLoad(" + ref + ", " + at + ")" : "texelFetch(" + ref + ", " + at + ", 0)")
           << ".x);\n";
      break;
    case OpKind::kWrite: body << "  imageStore(" << ref << ", " << at << ", uvec4(acc));\n"; break;
    case OpKind::kLength:
      body << "  acc = mixv(acc, uint(" << (storage ? "imageSize(" + ref + ")" : "textureSize(" + ref + ", 0)")
           << ".x));\n";
      break;
    default: break;
  }
}

}  // namespace

std::string StageGlsl(const Program& p, const Pipeline& pipeline, const Stage& stage) {
  const PipelineLayout& layout = p.pipeline_layouts[pipeline.layout];
  std::ostringstream decl, body;
  decl << "#version 460\n";
  std::set<std::pair<uint32_t, uint32_t>> declared;
  std::set<uint32_t> push_words;
  // A zero the compiler cannot fold, for indexing descriptor arrays with a runtime value.
  const char* zero = stage.stage == kCompute    ? "uint(gl_NumWorkGroups.x > 4096u)"
                     : stage.stage == kVertex   ? "uint(gl_InstanceIndex < 0)"
                                                : "uint(gl_FragCoord.x < 0.0)";
  // The storage buffer the last buffer read named: a packed copy's source.
  const ShaderOp* last_read = nullptr;
  const Binding* last_read_binding = nullptr;
  std::set<std::pair<uint32_t, uint32_t>> declared16, declared8;
  for (const ShaderOp& op : stage.ops) {
    if (op.kind == OpKind::kCopyPacked) {
      const Binding* b = FindBinding(p, layout, op.set, op.binding);
      if (b == nullptr || last_read == nullptr || !(b->stages & stage.stage) || op.element >= b->count ||
          b->role != Role::kOut || IsImage(b->type) || IsUniform(b->type) || stage.stage == kFragment)
        continue;
      const bool bytes = op.value != 0;
      // 16/8-bit views of the two buffers: blocks aliasing the same bindings.
      auto view = [&](const ShaderOp& o, const Binding* vb) {
        const std::string n = Name(o.set, o.binding);
        const std::string prefix = bytes ? "b" : "h";
        if ((bytes ? declared8 : declared16).insert({o.set, o.binding}).second) {
          const std::string array = vb->count > 1 ? "[" + std::to_string(vb->count) + "]" : "";
          decl << "layout(set = " << o.set << ", binding = " << o.binding << ", std430) "
               << (vb->role == Role::kIn ? "readonly " : "") << "buffer " << (bytes ? "B" : "H") << n << " { "
               << (bytes ? "uint8_t" : "float16_t") << " v[]; } " << prefix << n << array << ";\n";
        }
        std::string ref = prefix + n;
        if (vb->count > 1) ref += "[" + std::to_string(o.element) + "]";
        return ref;
      };
      const std::string dst = view(op, b), src = view(*last_read, last_read_binding);
      body << "  for (uint k = 0u; k < 16u; ++k) " << dst << ".v[(" << op.index << "u + k) % max(uint(" << dst
           << ".v.length()), 1u)] = " << src << ".v[(" << op.index * 3 << "u + k) % max(uint(" << src
           << ".v.length()), 1u)];\n";
      continue;
    }
    if (op.kind == OpKind::kPush) {
      if (PushWordVisible(layout, stage.stage, op.index)) {
        push_words.insert(op.index);
        body << "  acc = mixv(acc, pc.w" << op.index << ");\n";
      }
      continue;
    }
    const Binding* b = FindBinding(p, layout, op.set, op.binding);
    if (b == nullptr || !(b->stages & stage.stage) || op.element >= b->count) continue;
    if (IsImage(b->type)) {
      ImageOp(b, op, stage.stage, declared, decl, body);
      continue;
    }
    const bool uniform = IsUniform(b->type);
    // Stores only into output buffers, atomics only into counters (compute), reads only of inputs.
    if (op.kind == OpKind::kRead && b->role != Role::kIn) continue;
    if (op.kind == OpKind::kRead && !uniform) {
      last_read = &op;
      last_read_binding = b;
    }
    if (op.kind == OpKind::kWrite && (b->role != Role::kOut || uniform)) continue;
    if (op.kind == OpKind::kAtomic && (b->role != Role::kCounter || uniform || stage.stage != kCompute)) continue;
    const std::string n = Name(op.set, op.binding);
    if (declared.insert({op.set, op.binding}).second) {
      const std::string array = b->count > 1 ? "[" + std::to_string(b->count) + "]" : "";
      if (uniform) {
        decl << "layout(set = " << op.set << ", binding = " << op.binding << ", std140) uniform U" << n
             << " { uvec4 d[4]; } u" << n << array << ";\n";
      } else {
        decl << "layout(set = " << op.set << ", binding = " << op.binding << ", std430) "
             << (b->role == Role::kIn ? "readonly " : "") << "buffer S" << n << " { uint d[]; } s" << n << array
             << ";\n";
      }
    }
    std::string ref = (uniform ? "u" : "s") + n;
    if (b->count > 1) {
      const std::string index = "(" + std::to_string(op.element) + "u + z) % " + std::to_string(b->count) + "u";
      if (!op.dynamic_element) ref += "[" + std::to_string(op.element) + "]";
      else if (op.nonuniform) ref += "[nonuniformEXT(" + index + ")]";
      else ref += "[" + index + "]";
    }
    if (uniform) {
      // 16 words of a 64-byte std140 block.
      body << "  acc = mixv(acc, " << ref << ".d[" << (op.index / 4) % 4 << "][" << op.index % 4 << "]);\n";
      continue;
    }
    // A null descriptor has no length: the index stays defined (the access reads 0 or is dropped).
    const std::string length = "uint(" + ref + ".d.length())";
    const std::string at = ref + ".d[" + std::to_string(op.index) + "u % " +
                           (b->nullable ? "max(" + length + ", 1u)" : length) + "]";
    switch (op.kind) {
      case OpKind::kRead: body << "  acc = mixv(acc, " << at << ");\n"; break;
      case OpKind::kWrite: body << "  " << at << " = acc;\n"; break;
      case OpKind::kAtomic: body << "  atomicAdd(" << at << ", " << op.value << "u);\n"; break;
      case OpKind::kLength: body << "  acc = mixv(acc, uint(" << ref << ".d.length()));\n"; break;
      case OpKind::kPush: break;
      case OpKind::kCopyPacked: break;  // written above, before the switch
    }
  }
  if (!push_words.empty()) {
    decl << "layout(push_constant) uniform PC {";
    for (uint32_t w : push_words) decl << " layout(offset = " << w << ") uint w" << w << ";";
    decl << " } pc;\n";
  }
  if (stage.stage == kCompute) {
    decl << "layout(local_size_x = " << pipeline.local_size << ") in;\n";
  } else if (stage.stage == kVertex) {
    decl << "layout(location = 0) flat out uint v_acc;\n";
  } else {
    decl << "layout(location = 0) flat in uint v_acc;\nlayout(location = 0) out uint o_color;\n";
  }
  decl << "uint mixv(uint a, uint b) { return (a ^ b) * 16777619u + 2166136261u; }\n";
  std::ostringstream out;
  std::string d = decl.str();
  // texelFetch of a texture without a sampler.
  if (d.find("utexture2D") != std::string::npos)
    d.insert(d.find('\n') + 1, "#extension GL_EXT_samplerless_texture_functions : require\n");
  const std::string code = body.str();
  if (!declared16.empty()) d.insert(d.find('\n') + 1, "#extension GL_EXT_shader_16bit_storage : require\n");
  if (!declared8.empty()) d.insert(d.find('\n') + 1, "#extension GL_EXT_shader_8bit_storage : require\n");
  if (code.find("nonuniformEXT") != std::string::npos)
    d.insert(d.find('\n') + 1, "#extension GL_EXT_nonuniform_qualifier : require\n");
  out << d << "void main() {\n  uint z = " << zero << ";\n  uint acc = 7u + z;\n" << code;
  if (stage.stage == kVertex) {
    out << "  uint p = uint(gl_VertexIndex + 3 * gl_InstanceIndex) % " << kImageSize * kImageSize << "u;\n"
        << "  gl_Position = vec4((float(p % " << kImageSize << "u) + 0.5) / " << kImageSize / 2
        << ".0 - 1.0, (float(p / " << kImageSize << "u) + 0.5) / " << kImageSize / 2 << ".0 - 1.0, 0.0, 1.0);\n"
        << "  gl_PointSize = 1.0;\n  v_acc = acc ^ p;\n";
  } else if (stage.stage == kFragment) {
    out << "  o_color = acc ^ v_acc;\n";
  }
  out << "}\n";
  return out.str();
}

}  // namespace bindery::apifuzz
