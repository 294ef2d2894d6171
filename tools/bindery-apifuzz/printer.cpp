#include "printer.h"

#include <sstream>
#include <string>

#include "glsl.h"

namespace bindery::apifuzz {
namespace {

const char* RoleName(Role r) { return r == Role::kIn ? "in" : r == Role::kOut ? "out" : "counter"; }
const char* TypeName(DescType t) {
  switch (t) {
    case DescType::kStorage: return "STORAGE_BUFFER";
    case DescType::kUniform: return "UNIFORM_BUFFER";
    case DescType::kStorageDynamic: return "STORAGE_BUFFER_DYNAMIC";
    case DescType::kUniformDynamic: return "UNIFORM_BUFFER_DYNAMIC";
    case DescType::kSampledImage: return "SAMPLED_IMAGE";
    case DescType::kStorageImage: return "STORAGE_IMAGE";
    case DescType::kCombinedImageSampler: return "COMBINED_IMAGE_SAMPLER";
  }
  return "?";
}
std::string Stages(uint32_t s) {
  std::string out;
  if (s & kCompute) out += "C";
  if (s & kVertex) out += "V";
  if (s & kFragment) out += "F";
  return out.empty() ? "-" : out;
}
// `image(i)`: whether descriptor i is of an image type.
template <class IsImageAt>
std::string Descs(const std::vector<Desc>& descs, IsImageAt image) {
  std::ostringstream o;
  o << "{";
  for (size_t i = 0; i < descs.size(); ++i) {
    o << (i ? ", " : "");
    if (descs[i].buffer == kNullDesc) {
      o << "NULL";
    } else if (image(i)) {
      o << "img" << descs[i].buffer << "/sampler" << descs[i].offset;
    } else {
      o << "buf" << descs[i].buffer << "+" << descs[i].offset << ":"
        << (descs[i].range == 0 ? std::string("WHOLE") : std::to_string(descs[i].range));
    }
  }
  o << "}";
  return o.str();
}

const Binding* LayoutBinding(const Program& p, uint32_t set_layout, uint32_t binding) {
  if (set_layout >= p.set_layouts.size()) return nullptr;
  for (const Binding& b : p.set_layouts[set_layout].bindings) {
    if (b.binding == binding) return &b;
  }
  return nullptr;
}
std::string Words(const std::vector<uint32_t>& v) {
  std::ostringstream o;
  o << "[";
  for (size_t i = 0; i < v.size(); ++i) o << (i ? "," : "") << v[i];
  o << "]";
  return o.str();
}
const char* BindPoint(bool graphics) { return graphics ? "GRAPHICS" : "COMPUTE"; }

void PrintCmd(std::ostringstream& o, const Program& p, const Cmd& c, bool& in_secondary) {
  const auto& v = c.values;
  if (c.kind == CmdKind::kEndSecondary) in_secondary = false;
  o << (in_secondary ? "        " : "    ");
  switch (c.kind) {
    case CmdKind::kBindPipeline: o << "vkCmdBindPipeline(" << BindPoint(c.graphics) << ", pipeline" << c.pipeline << ")"; break;
    case CmdKind::kBindSets:
      o << "vkCmdBindDescriptorSets(" << BindPoint(c.graphics) << ", playout" << c.layout << ", firstSet=" << c.first
        << ", sets=";
      for (uint32_t s : c.sets) o << "slot" << s << " ";
      o << "dynamicOffsets=" << Words(v) << ")";
      break;
    case CmdKind::kPushConstants:
      o << "vkCmdPushConstants(playout" << c.layout << ", " << Stages(c.stages) << ", offset=" << c.first
        << ", words=" << Words(v) << ")";
      break;
    case CmdKind::kPushDescriptors:
      o << (c.use_template ? "vkCmdPushDescriptorSetWithTemplateKHR(" : "vkCmdPushDescriptorSetKHR(")
        << BindPoint(c.graphics) << ", playout" << c.layout << ", set=" << c.first << ", (binding,count)="
        << Words(v) << ", " << Descs(c.descs, [&](size_t i) {
             // The (binding, count) pairs say which binding descriptor i belongs to.
             const PipelineLayout* pl = c.layout < p.pipeline_layouts.size() ? &p.pipeline_layouts[c.layout] : nullptr;
             if (pl == nullptr || c.first >= pl->sets.size()) return false;
             size_t at = 0;
             for (size_t k = 0; k + 1 < v.size(); k += 2) {
               if (i < at + v[k + 1]) {
                 const Binding* b = LayoutBinding(p, pl->sets[c.first], v[k]);
                 return b != nullptr && IsImage(b->type);
               }
               at += v[k + 1];
             }
             return false;
           })
        << ")";
      break;
    case CmdKind::kDispatch: o << "vkCmdDispatch" << Words(v); break;
    case CmdKind::kDispatchBase: o << "vkCmdDispatchBase" << Words(v); break;
    case CmdKind::kDispatchIndirect: o << "vkCmdDispatchIndirect(offset=" << c.first << ")"; break;
    case CmdKind::kDraw: o << "vkCmdDraw" << Words(v); break;
    case CmdKind::kDrawIndexed: o << "vkCmdDrawIndexed" << Words(v) << " indices@" << c.src_offset; break;
    case CmdKind::kDrawIndirect: o << "vkCmdDrawIndirect(offset=" << c.first << ", count=" << c.size << ")"; break;
    case CmdKind::kDrawIndexedIndirect:
      o << "vkCmdDrawIndexedIndirect(offset=" << c.first << ", count=" << c.size << ") indices@" << c.src_offset;
      break;
    case CmdKind::kDrawIndirectCount:
      o << "vkCmdDrawIndirectCount(offset=" << c.first << ", countOffset=" << c.src << ", max=" << c.size << ")";
      break;
    case CmdKind::kDrawIndexedIndirectCount:
      o << "vkCmdDrawIndexedIndirectCount(offset=" << c.first << ", countOffset=" << c.src << ", max=" << c.size
        << ") indices@" << c.src_offset;
      break;
    case CmdKind::kDrawMulti: o << "vkCmdDrawMultiEXT(count=" << c.size << ", " << Words(v) << ")"; break;
    case CmdKind::kDrawMultiIndexed:
      o << "vkCmdDrawMultiIndexedEXT(count=" << c.size << ", " << Words(v) << ") indices@" << c.src_offset;
      break;
    case CmdKind::kFill:
      o << "vkCmdFillBuffer(buf" << c.binding << ", offset=" << c.first << ", size="
        << (c.size ? std::to_string(c.size) : std::string("WHOLE")) << ", 0x" << std::hex << (v.empty() ? 0 : v[0])
        << std::dec << ")";
      break;
    case CmdKind::kUpdate:
      o << "vkCmdUpdateBuffer(buf" << c.binding << ", offset=" << c.first << ", " << 4 * v.size() << " bytes)";
      break;
    case CmdKind::kCopy:
      o << "vkCmdCopyBuffer(buf" << c.src << "+" << c.src_offset << " -> buf" << c.binding << "+" << c.first
        << ", size=" << c.size << ")";
      break;
    case CmdKind::kBufferToImage:
    case CmdKind::kImageToBuffer: {
      const bool to_image = c.kind == CmdKind::kBufferToImage;
      o << (to_image ? "vkCmdCopyBufferToImage" : "vkCmdCopyImageToBuffer") << (c.use_template ? "2" : "") << "("
        << (to_image ? "buf" : "timg") << c.src << " -> " << (to_image ? "timg" : "buf") << c.binding;
      for (size_t k = 0; k + kBufferImageWords <= v.size(); k += kBufferImageWords) {
        o << ", {offset " << v[k] << ", rowLength " << v[k + 1] << ", imageHeight " << v[k + 2] << ", mip " << v[k + 3]
          << ", layers " << v[k + 4] << "+" << v[k + 5] << ", at (" << v[k + 6] << "," << v[k + 7] << "," << v[k + 8]
          << "), " << v[k + 9] << "x" << v[k + 10] << "x" << v[k + 11] << "}";
      }
      o << ")";
      break;
    }
    case CmdKind::kImageToImage:
      o << "vkCmdCopyImage" << (c.use_template ? "2" : "") << "(timg" << c.src << " -> timg" << c.binding
        << Words(v) << ")";
      break;
    case CmdKind::kClearImage:
      o << "vkCmdClearColorImage(timg" << c.binding << Words(v) << ")";
      break;
    case CmdKind::kBlitImage:
      o << "vkCmdBlitImage" << (c.use_template ? "2" : "") << "(timg" << c.src << " -> timg" << c.binding << ", "
        << (c.size == 1 ? "LINEAR" : "NEAREST") << Words(v) << ")";
      break;
    case CmdKind::kBeginSecondary:
      o << "secondary" << (c.graphics ? " (RENDER_PASS_CONTINUE, executed in a render pass instance)" : "");
      if (c.stages != 0) o << " (inheriting pipelineStatistics=0x" << std::hex << c.stages << std::dec << ")";
      o << " {";
      in_secondary = true;
      break;
    case CmdKind::kBeginQuery:
      o << "vkCmdResetQueryPool(query" << c.first << "); vkCmdBeginQuery(query" << c.first
        << ": PIPELINE_STATISTICS 0x" << std::hex << c.stages << std::dec << ")";
      break;
    case CmdKind::kEndQuery: o << "vkCmdEndQuery(query" << c.first << ")"; break;
    case CmdKind::kEndSecondary:
      o << "} vkCmdExecuteCommands (bound state undefined after it)";
      break;
    case CmdKind::kCount: break;
  }
  o << "\n";
}

}  // namespace

std::string Listing(const Program& p) {
  std::ostringstream o;
  o << "// program of seed " << p.seed << " (every action and transfer is followed by a full memory barrier;\n"
    << "// every draw has its own render pass instance on an 8x8 R32_UINT image)\n";
  for (size_t i = 0; i < p.buffers.size(); ++i) {
    o << "buf" << i << ": " << p.buffers[i].size << " bytes, " << RoleName(p.buffers[i].role);
    if (p.buffers[i].external == External::kExported) o << ", external memory (OPAQUE_FD, exported)";
    if (p.buffers[i].external == External::kImported) o << ", external memory (OPAQUE_FD, imported from an fd)";
    o << "\n";
  }
  for (size_t i = 0; i < p.transfer_images.size(); ++i) {
    const TransferImage& t = p.transfer_images[i];
    o << "timg" << i << ": format " << t.format << ", " << (t.type + 1) << "D " << t.width << "x" << t.height << "x"
      << t.depth << ", " << t.mips << " mips, " << t.layers << " layers (transfer images: TRANSFER_DST_OPTIMAL)\n";
  }
  for (size_t i = 0; i < p.images.size(); ++i)
    o << "img" << i << ": " << kTexSize << "x" << kTexSize << " R32_UINT, GENERAL, " << RoleName(p.images[i].role)
      << "\n";
  if (p.samplers) o << p.samplers << " samplers (NEAREST)\n";
  for (size_t i = 0; i < p.set_layouts.size(); ++i) {
    o << "setlayout" << i << (p.set_layouts[i].push ? " (PUSH_DESCRIPTOR)" : "")
      << (p.set_layouts[i].update_after_bind ? " (UPDATE_AFTER_BIND_POOL)" : "") << ":";
    for (const Binding& b : p.set_layouts[i].bindings)
      o << " [" << b.binding << ": " << TypeName(b.type) << "[" << b.count << "] " << RoleName(b.role) << " "
        << Stages(b.stages) << (b.nullable ? " nullable" : "") << (b.flags & kUpdateAfterBind ? " UPDATE_AFTER_BIND" : "")
        << (b.flags & kPartiallyBound ? " PARTIALLY_BOUND" : "")
        << (b.flags & kVariableCount ? " VARIABLE_DESCRIPTOR_COUNT" : "") << "]";
    o << "\n";
  }
  for (size_t i = 0; i < p.pipeline_layouts.size(); ++i) {
    o << "playout" << i << ": sets=" << Words(p.pipeline_layouts[i].sets) << " push=";
    for (const PushRange& r : p.pipeline_layouts[i].push) o << "{" << Stages(r.stages) << " " << r.offset << "+" << r.size << "}";
    o << "\n";
  }
  for (size_t i = 0; i < p.pipelines.size(); ++i) {
    const Pipeline& pl = p.pipelines[i];
    o << "pipeline" << i << ": " << (pl.graphics ? "graphics" : "compute") << " playout" << pl.layout;
    if (!pl.graphics) o << " local_size=" << pl.local_size << (pl.dispatch_base ? " DISPATCH_BASE" : "");
    if (pl.graphics && pl.library != LibraryMode::kMonolithic) o << " (" << LibraryModeName(pl.library) << ")";
    o << "\n";
  }
  for (size_t i = 0; i < p.pools.size(); ++i)
    o << "pool" << i << ": maxSets=" << p.pools[i].max_sets << (p.pools[i].free_bit ? " FREE_DESCRIPTOR_SET" : "")
      << (p.pools[i].update_after_bind ? " UPDATE_AFTER_BIND" : "") << "\n";
  if (p.semaphores) {
    o << p.semaphores << " timeline semaphores (0: device chain" << (p.queues > 1 ? " and queue 0's" : "")
      << ", 1..3: host gates" << (p.queues > 1 ? ", 4..: queue 1's, 2's" : "") << ")\n";
  }
  if (p.queues > 1) o << p.queues << " queues of one family (queue0..queue" << p.queues - 1 << ")\n";
  o << "\n";
  std::vector<uint32_t> slot_layout(p.set_slots, UINT32_MAX);
  for (const Step& s : p.steps) {
    if (s.late) o << "  (after recording, before submitting) ";
    switch (s.kind) {
      case StepKind::kAlloc: {
        if (s.slot < slot_layout.size()) slot_layout[s.slot] = s.layout;
        bool variable = false;
        if (s.layout < p.set_layouts.size()) {
          for (const Binding& b : p.set_layouts[s.layout].bindings) variable |= (b.flags & kVariableCount) != 0;
        }
        o << "slot" << s.slot << " = vkAllocateDescriptorSets(pool" << s.pool << ", setlayout" << s.layout;
        if (variable) o << ", variableDescriptorCount=" << s.count;
        o << ")\n";
        break;
      }
      case StepKind::kFree: o << "vkFreeDescriptorSets(slot" << s.slot << ")\n"; break;
      case StepKind::kResetPool: o << "vkResetDescriptorPool(pool" << s.pool << ")\n"; break;
      case StepKind::kWrite:
        o << (s.use_template ? "vkUpdateDescriptorSetWithTemplate(" : "vkUpdateDescriptorSets(write ") << "slot"
          << s.slot << ", binding=" << s.binding << ", element=" << s.element << ", " << Descs(s.descs, [&](size_t) {
               const Binding* b = s.slot < slot_layout.size() ? LayoutBinding(p, slot_layout[s.slot], s.binding) : nullptr;
               return b != nullptr && IsImage(b->type);
             })
          << ")\n";
        break;
      case StepKind::kCopySet:
        o << "vkUpdateDescriptorSets(copy slot" << s.src_slot << "." << s.src_binding << "[" << s.src_element
          << "] -> slot" << s.slot << "." << s.binding << "[" << s.element << "], count=" << s.count << ")\n";
        break;
      case StepKind::kSubmit:
        o << "vkQueueSubmit(" << (p.queues > 1 ? "queue" + std::to_string(s.queue) + ", " : "") << "waits=";
        for (const Wait& w : s.waits) o << "sem" << w.semaphore << ">=" << w.value << " ";
        o << "signals=";
        for (const Wait& w : s.signals) o << "sem" << w.semaphore << "=" << w.value << " ";
        o << ") {\n";
        {
          bool in_secondary = false;
          for (const Cmd& c : s.cmds) PrintCmd(o, p, c, in_secondary);
        }
        o << "}\n";
        break;
      case StepKind::kHostSignal:
        if (!s.signals.empty()) o << "vkSignalSemaphore(sem" << s.signals[0].semaphore << " = " << s.signals[0].value << ")\n";
        break;
      case StepKind::kWaitIdle: o << (p.queues > 1 ? "vkQueueWaitIdle(every queue)\n" : "vkQueueWaitIdle()\n"); break;
      case StepKind::kCount: break;
    }
  }
  for (size_t i = 0; i < p.pipelines.size(); ++i) {
    for (size_t j = 0; j < p.pipelines[i].stages.size(); ++j) {
      const Stage& st = p.pipelines[i].stages[j];
      o << "\n// pipeline" << i << " " << (st.stage == kCompute ? "compute" : st.stage == kVertex ? "vertex" : "fragment");
      if (st.module != kOwnModule) {
        o << " (module" << st.module << ", entry point \"" << EntryPointName(p, i, j) << "\")";
      }
      o << "\n" << StageGlsl(p, p.pipelines[i], st);
    }
  }
  return o.str();
}

}  // namespace bindery::apifuzz
