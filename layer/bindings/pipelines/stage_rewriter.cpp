#include "bindings/pipelines/stage_rewriter.h"

#include <algorithm>
#include <list>
#include <memory>
#include <string>
#include <vector>

#include "bindings/pipelines/rewrite_dump.h"
#include "bindings/pipelines/robustness.h"
#include "core/chain_edit.h"
#include "core/log.h"
#include "core/pnext.h"
#include "core/small_vector.h"
#include "spirv/renumber.h"
#include "spirv/thread_scratch.h"

namespace bindery::bindings {
namespace {

struct RewriteKeyTag {};  // the per-thread string RewriteOf builds its key in

spirv::TargetEnv TargetFor(uint32_t api_version, uint32_t spirv_version) {
  if (api_version >= VK_API_VERSION_1_3) return spirv::TargetEnv::kVulkan1_3;
  if (api_version >= VK_API_VERSION_1_2) return spirv::TargetEnv::kVulkan1_2;
  if (api_version >= VK_API_VERSION_1_1) {
    return spirv_version >= 0x00010400 ? spirv::TargetEnv::kVulkan1_1Spirv1_4 : spirv::TargetEnv::kVulkan1_1;
  }
  return spirv::TargetEnv::kVulkan1_0;
}

// Fills `o` (reused: its vectors keep their capacity, so a pipeline whose rewrite is
// cached allocates nothing here).
// `entry`: the stage's entry point where its module has several (else nullptr: the
// module's one), of execution model `model`.
void OptionsFor(const PipelineStore& b, const RootLayout& root, uint32_t root_shift, uint32_t spirv_version,
                bool bounds_checks, const char* entry, uint32_t model, spirv::RewriteOptions& o) {
  std::size_t used_sets = 0;
  if (entry != nullptr) {
    o.entry_point = entry;
  } else {
    o.entry_point.clear();
  }
  o.execution_model = model;
  o.target = TargetFor(b.plan.api_version, spirv_version);
  o.shader_int64 = b.plan.shader_int64;
  o.float16 = b.plan.shader_float16;
  o.int16 = b.plan.shader_int16;
  o.int8 = b.plan.shader_int8;
  o.bounds_checks = bounds_checks;
  o.convert_uniform_buffers = b.plan.convert_uniform_buffers;
  o.broadcast_descriptor_index_models = b.plan.broadcast_descriptor_index_models;
  o.lane_zero_descriptor_index_models = b.plan.lane_zero_descriptor_index_models;
  // Descriptor addresses are multiples of the offset alignments (spirv/access_alignment.h).
  const VkPhysicalDeviceLimits& limits = b.device.properties.limits;
  VkDeviceSize base_alignment = limits.minStorageBufferOffsetAlignment;
  if (o.convert_uniform_buffers) base_alignment = std::min(base_alignment, limits.minUniformBufferOffsetAlignment);
  o.descriptor_base_alignment = static_cast<uint32_t>(std::min<VkDeviceSize>(base_alignment, 256));
  o.root_placement = !root.in_buffer        ? spirv::RootPlacement::kPushConstants
                     : root.address_in_push ? spirv::RootPlacement::kPushAddress
                                            : spirv::RootPlacement::kStorageBuffer;
  o.root_buffer_set = root.in_buffer && !root.address_in_push ? root.buffer_set : 0;
  // A root in the ring has one copy: only its address (in push constants) has one per bind point.
  o.root_address_offset = root.address_in_push ? root.address_offset + root_shift : 0;
  if (root.in_buffer) root_shift = 0;
  for (uint32_t i = 0; i < root.sets.size(); ++i) {
    const SetRoot& r = root.sets[i];
    if (r.root_offset == kNoOffset) continue;
    if (used_sets == o.sets.size()) o.sets.emplace_back();
    spirv::SetLayout& s = o.sets[used_sets++];
    s.set = i;
    s.root_offset = r.root_offset + root_shift;
    s.records_in_root = r.records_in_root;
    s.root_records = r.partial() ? r.root_records : 0;
    s.bindings.clear();
    for (const ConvertedBinding& c : r.layout->converted) {
      spirv::BindingLayout bl;
      bl.binding = c.binding;
      bl.array_size = c.count;
      bl.first_record = c.first_record;
      bl.dynamic_offsets_root_offset =
          c.first_dynamic == kNoOffset ? spirv::kNoRootOffset : r.dynamic_offset + root_shift + 4 * c.first_dynamic;
      s.bindings.push_back(bl);
    }
  }
  // Sets past the used ones are dropped; the used ones keep their bindings' storage.
  o.sets.resize(used_sets);
}

// The SPIR-V execution model of a pipeline stage (spirv::kAnyExecutionModel where one
// stage bit stands for two models: task and mesh of NV and EXT).
uint32_t ExecutionModelOf(VkShaderStageFlagBits stage) {
  switch (stage) {
    case VK_SHADER_STAGE_VERTEX_BIT: return 0;
    case VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT: return 1;
    case VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT: return 2;
    case VK_SHADER_STAGE_GEOMETRY_BIT: return 3;
    case VK_SHADER_STAGE_FRAGMENT_BIT: return 4;
    case VK_SHADER_STAGE_COMPUTE_BIT: return 5;
    default: return spirv::kAnyExecutionModel;
  }
}

// Does entry point `entry` of the module use a binding the root converts? (With
// `push_only`: a converted binding of a push-descriptor set.)
bool UsesConvertedBinding(const spirv::ModuleInfo& info, const char* entry, const RootLayout& root,
                          bool push_only = false) {
  if (!info.error.empty()) return true;  // unknown: assume it does
  for (const spirv::EntryPointInfo& ep : info.entry_points) {
    if (ep.name != entry) continue;
    for (const spirv::ResourceInfo& r : ep.resources) {
      const SetLayoutShadow* set = r.set < root.sets.size() ? root.sets[r.set].layout.get() : nullptr;
      if (set != nullptr && set->Find(r.binding) && (!push_only || set->push_descriptor)) return true;
    }
  }
  return false;
}

// Does the module contain OpArrayLength?
bool HasArrayLength(const std::vector<uint32_t>& words) {
  constexpr uint32_t kOpArrayLength = 68;
  for (size_t i = 5; i < words.size();) {
    const uint32_t count = words[i] >> 16;
    if ((words[i] & 0xffffu) == kOpArrayLength) return true;
    if (count == 0) return false;
    i += count;
  }
  return false;
}

bool HasConvertedDynamic(const RootLayout& root) {
  for (const SetRoot& r : root.sets) {
    if (r.layout != nullptr && r.layout->converted_dynamic != 0) return true;
  }
  return false;
}

}  // namespace

StageRewriter::~StageRewriter() {
  for (VkShaderModule m : modules_) b_.next.DestroyShaderModule(b_.device.handle, m, nullptr);
}

// Fills out[0..count) with the stages to send down for `layout`. Returns "" on success
// (with *converted true when some stage was rewritten), else why the pipeline cannot be
// made with converted bindings.
// `pipeline_chain`: the pipeline create info's pNext (its robustness, robustness.h).
std::string StageRewriter::Rewrite(const PipelineLayoutShadow& layout, uint32_t count,
                                   const VkPipelineShaderStageCreateInfo* stages, VkPipelineShaderStageCreateInfo* out,
                                   bool* converted, const void* pipeline_chain) {
  std::copy(stages, stages + count, out);
  *converted = false;
  reads_pushed_records_ = false;
  for (uint32_t i = 0; i < count; ++i) {
    std::string why = RewriteStage(layout, out[i], pipeline_chain, converted);
    if (!why.empty()) return why;
  }
  return "";
}

// One stage: used as it is (renumbered for the native layout) where it reads no converted
// binding, else its rewrite for the layout's root sent down in its place.
std::string StageRewriter::RewriteStage(const PipelineLayoutShadow& layout, VkPipelineShaderStageCreateInfo& stage,
                                        const void* pipeline_chain, bool* converted) {
  const RootLayout& root = layout.root;
  // A module's words and inspection are kept with it (valid for the whole call: the
  // application may not destroy a module while a pipeline is made from it); inline
  // code is copied and inspected here.
  const std::vector<uint32_t>* words = nullptr;
  std::vector<uint32_t> inline_words;
  const VkShaderModuleCreateInfo* inline_code = nullptr;
  const ModuleEntry* module = nullptr;
  if (stage.module != VK_NULL_HANDLE) {
    if ((module = b_.modules.Find(stage.module)) != nullptr) words = module->words.get();
  } else if ((inline_code = FindInChain<VkShaderModuleCreateInfo>(
                  stage.pNext, VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO)) != nullptr) {
    inline_words.assign(inline_code->pCode, inline_code->pCode + inline_code->codeSize / 4);
    words = &inline_words;
  }
  if (words == nullptr) return "the code of a shader stage is not known to the layer";
  std::shared_ptr<const spirv::ModuleInfo> inline_info;
  const spirv::ModuleInfo* info = InfoOf(module, *words, &inline_info);
  if (!UsesConvertedBinding(*info, stage.pName, root)) return UsedAsIs(*words, layout, inline_code, stage);
  if (!root.fits) return "its layout's root does not fit in push constants";
  // Its pushed records live only in the ring: a native twin could not read them.
  reads_pushed_records_ = reads_pushed_records_ || UsesConvertedBinding(*info, stage.pName, root, true);
  // SPIR-V library gap: the rewrite subtracts a dynamic offset from the record's size,
  // but a dynamic descriptor's range does not shrink with its offset; lengths and
  // bounds checks of dynamic storage buffers would differ from native.
  const bool bounds_checks = StageBoundsChecks(b_.plan, pipeline_chain, stage.pNext);
  if (HasConvertedDynamic(root) && (bounds_checks || HasArrayLength(*words))) {
    return "dynamic storage buffers with OpArrayLength or bounds checks (the rewrite shrinks their size by the "
           "dynamic offset)";
  }
  const uint32_t version = words->size() > 1 ? (*words)[1] : 0;
  bool hit = false;
  // One per thread, refilled for each stage and used only until the next; a pipeline
  // whose rewrite the module already holds for this layout never needs them.
  // (spirv/thread_scratch.h: still valid when a program's exit-time teardown creates pipelines.)
  spirv::ThreadScratch<spirv::RewriteOptions>::Lease options_scratch;
  spirv::RewriteOptions& options = *options_scratch;
  bool have_options = false;
  // A compute stage reads the compute bind point's copy of the root, the others the
  // graphics one's (RootPushSpace).
  const uint32_t root_shift = layout.RootShift(stage.stage == VK_SHADER_STAGE_COMPUTE_BIT ? 1 : 0);
  // A module with several entry points is rewritten for the one the stage names: each
  // may have its own push-constant block, which the root must join
  // (spirv::RewriteOptions::entry_point). A module of one keeps its rewrite for all.
  const char* entry = info->entry_points.size() > 1 ? stage.pName : nullptr;
  const uint32_t model = entry != nullptr ? ExecutionModelOf(stage.stage) : spirv::kAnyExecutionModel;
  const auto options_now = [&]() -> const spirv::RewriteOptions& {
    if (!have_options) OptionsFor(b_, root, root_shift, version, bounds_checks, entry, model, options);
    have_options = true;
    return options;
  };
  std::shared_ptr<const CachedRewrite> r =
      RewriteOf(module, layout, bounds_checks, root_shift, entry, model, *words, options_now, &hit);
  if (!r->error.empty()) return "the shader could not be read: " + r->error;
  if (!r->converted && r->report.no_buffer_in_layout) {
    // The layer's inspection saw a converted binding in the stage's interface, but the
    // pass finds no access through any buffer of the layout: nothing to convert, used
    // as it is (seen on zink's tessellation stages).
    return UsedAsIs(*words, layout, inline_code, stage);
  }
  if (!r->converted) return r->reason;
  std::string why = Checked(*r, *words, options_now, stage, hit);
  if (!why.empty()) return why;
  const CachedRewrite& rewrite = *r;
  rewritten_.push_back(std::move(r));
  *converted = true;
  return SendRewritten(rewrite, layout, inline_code, stage);
}

// A stage that reads no converted binding: as it is, but for the numbers of its sets in
// the native layout.
std::string StageRewriter::UsedAsIs(const std::vector<uint32_t>& words, const PipelineLayoutShadow& layout,
                                    const VkShaderModuleCreateInfo* inline_code, VkPipelineShaderStageCreateInfo& stage) {
  return layout.renumbered ? Renumbered(words, layout, inline_code, stage) : "";
}

// What a rewrite must pass before it is used: spirv-val where bindings_validate asks
// (Validated), and the push-constant limit; a new rewrite is dumped where asked.
template <typename OptionsNow>
std::string StageRewriter::Checked(const CachedRewrite& r, const std::vector<uint32_t>& words,
                                   OptionsNow&& options_now, const VkPipelineShaderStageCreateInfo& stage, bool hit) {
  if (b_.plan.validate) {
    std::string why = Validated(r, words, options_now(), stage.pSpecializationInfo);
    if (!why.empty()) return why;
  }
  if (!hit && !b_.plan.dump_dir.empty()) {
    const std::string at = DumpRewrite(b_.plan.dump_dir, words, options_now(), r.module, r.report);
    BINDERY_LOG(b_.device.log(), kInfo, "bindings-dump", "rewritten module %s%s", at.empty() ? "not written to " : "written to ",
                at.empty() ? b_.plan.dump_dir.c_str() : at.c_str());
  }
  if (r.report.push_constant_end > b_.max_push_bytes) return "the rewritten shader's push constants exceed the limit";
  return "";
}

// The rewrite in the stage's place: renumbered for the native layout, else the driver's
// module of it (one for every pipeline made from it), or inline code.
std::string StageRewriter::SendRewritten(const CachedRewrite& rewrite, const PipelineLayoutShadow& layout,
                                         const VkShaderModuleCreateInfo* inline_code,
                                         VkPipelineShaderStageCreateInfo& stage) {
  if (layout.renumbered) return Renumbered(rewrite.module, layout, inline_code, stage);
  if (inline_code == nullptr) {
    const VkShaderModule driver_module = DriverModule(rewrite);
    if (driver_module == VK_NULL_HANDLE) return "the rewritten module could not be created";
    stage.module = driver_module;
    return "";
  }
  return SendDown(rewrite.module, inline_code, stage);
}

// The module's inspection, made once per module and kept with it (inline code: every
// time, held by *owned).
const spirv::ModuleInfo* StageRewriter::InfoOf(const ModuleEntry* module, const std::vector<uint32_t>& words,
                                               std::shared_ptr<const spirv::ModuleInfo>* owned) {
  if (module == nullptr) {
    *owned = std::make_shared<spirv::ModuleInfo>(spirv::Inspect(words.data(), words.size()));
    return owned->get();
  }
  return module->Info().get();  // never replaced once made
}

// The rewrite for the options `options_now()` builds: from the module's own lists (by
// the layout's serial, else by the options' key: no hashing of its words), else from
// the device's cache (keyed by content: identical modules share it).
template <typename OptionsNow>
std::shared_ptr<const CachedRewrite> StageRewriter::RewriteOf(const ModuleEntry* module,
                                                              const PipelineLayoutShadow& layout, bool bounds_checks,
                                                              uint32_t root_shift, const char* entry, uint32_t model,
                                                              const std::vector<uint32_t>& words,
                                                              OptionsNow&& options_now, bool* hit) {
  if (module == nullptr) return b_.rewrites.Get(words, options_now(), hit);
  {
    std::lock_guard<std::mutex> lock(module->mutex);
    for (const ModuleEntry::LayoutRewrite& e : module->by_layout) {
      if (e.layout_serial == layout.serial && e.bounds_checks == bounds_checks && e.root_shift == root_shift &&
          e.execution_model == model && e.entry_point == (entry != nullptr ? entry : "")) {
        *hit = true;
        return e.rewrite;
      }
    }
  }
  // The key is built in a string kept per thread: a hit allocates nothing.
  spirv::ThreadScratch<std::string, RewriteKeyTag>::Lease key_scratch;
  std::string& key = *key_scratch;
  key.clear();
  AppendOptionsKey(options_now(), &key);
  std::shared_ptr<const CachedRewrite> r;
  {
    std::lock_guard<std::mutex> lock(module->mutex);
    for (const auto& [k, kept] : module->rewrites) {
      if (k == key) {
        *hit = true;
        r = kept;
        break;
      }
    }
  }
  const bool known = r != nullptr;
  if (!known) r = b_.rewrites.Get(words, options_now(), hit);
  std::lock_guard<std::mutex> lock(module->mutex);
  if (!known) module->rewrites.emplace_back(key, r);
  ModuleEntry::LayoutRewrite e{layout.serial, bounds_checks, root_shift, entry != nullptr ? entry : "", model, r};
  if (module->by_layout.size() < ModuleEntry::kLayoutRewrites) {
    module->by_layout.push_back(std::move(e));
  } else {
    module->by_layout[module->next_by_layout] = std::move(e);
    module->next_by_layout = (module->next_by_layout + 1) % ModuleEntry::kLayoutRewrites;
  }
  return r;
}

// bindings_validate: "" when the rewritten module, with the stage's specialization
// applied, passes spirv-val (or the application's own module already fails it: then the
// rewrite is not judged), else why the pipeline falls back. Logged and dumped once per
// module and specialization.
std::string StageRewriter::Validated(const CachedRewrite& r, const std::vector<uint32_t>& words,
                                     const spirv::RewriteOptions& options, const VkSpecializationInfo* spec) {
  std::vector<spirv::SpecMapEntry> entries;
  std::string key;
  const void* data = nullptr;
  size_t data_size = 0;
  if (spec != nullptr && spec->mapEntryCount != 0 && spec->pMapEntries != nullptr) {
    for (uint32_t i = 0; i < spec->mapEntryCount; ++i) {
      const VkSpecializationMapEntry& e = spec->pMapEntries[i];
      entries.push_back({e.constantID, e.offset, e.size});
    }
    data = spec->pData;
    data_size = spec->pData != nullptr ? spec->dataSize : 0;
    key.assign(reinterpret_cast<const char*>(spec->pMapEntries), sizeof(VkSpecializationMapEntry) * spec->mapEntryCount);
    if (data_size != 0) key.append(static_cast<const char*>(data), data_size);
  }
  spirv::RewriteVerdict verdict;
  bool known = false;
  {
    std::lock_guard<std::mutex> lock(r.verdict_mutex);
    for (const auto& [k, v] : r.verdicts) {
      if (k == key) {
        verdict = v;
        known = true;
        break;
      }
    }
  }
  if (!known) {
    const std::vector<spirv::SpecValue> values =
        spirv::SpecValuesOf(entries.data(), static_cast<uint32_t>(entries.size()), data, data_size);
    verdict = spirv::JudgeRewrite(words, r.module, options.target, values);
    if (verdict.rewrite_invalid) {
      std::string at;
      if (!b_.plan.dump_dir.empty()) {
        at = DumpInvalidRewrite(b_.plan.dump_dir, words, options, r.module, r.report, verdict.message);
      }
      BINDERY_LOG(b_.device.log(), kError, "bindings-validate", "a rewritten module fails spirv-val: %s%s%s",
                  verdict.message.c_str(), at.empty() ? "" : " (written to ", at.empty() ? "" : (at + ")").c_str());
    } else if (verdict.original_invalid) {
      BINDERY_LOG(b_.device.log(), kWarn, "bindings-validate",
                  "the application's module fails spirv-val before the rewrite (its rewrite is not judged): %s",
                  verdict.message.c_str());
    }
    std::lock_guard<std::mutex> lock(r.verdict_mutex);
    r.verdicts.emplace_back(std::move(key), verdict);
  }
  if (!verdict.rewrite_invalid) return "";
  // The reason is counted per distinct text in the summary: the message's first line
  // (the instruction it names follows on the next in the log and the dump).
  return "the rewritten module fails spirv-val: " + verdict.message.substr(0, verdict.message.find('\n'));
}

// The rewritten module as a module of the layer below (kept with the cache entry).
VkShaderModule StageRewriter::DriverModule(const CachedRewrite& r) {
  std::lock_guard<std::mutex> lock(r.driver_module_mutex);
  if (r.driver_module == VK_NULL_HANDLE) {
    VkShaderModuleCreateInfo code{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    code.codeSize = r.module.size() * sizeof(uint32_t);
    code.pCode = r.module.data();
    if (b_.next.CreateShaderModule(b_.device.handle, &code, nullptr, &r.driver_module) != VK_SUCCESS) {
      r.driver_module = VK_NULL_HANDLE;
    }
  }
  return r.driver_module;
}

// `stage` made from a copy of `words` with its sets renumbered for the native layout.
std::string StageRewriter::Renumbered(const std::vector<uint32_t>& words, const PipelineLayoutShadow& layout,
                                      const VkShaderModuleCreateInfo* inline_code,
                                      VkPipelineShaderStageCreateInfo& stage) {
  owned_code_.push_back(words);
  // A root-only set keeps its number: no descriptor of a valid shader is left in one.
  std::vector<uint32_t> map(layout.native_set.size());
  for (uint32_t s = 0; s < map.size(); ++s) map[s] = layout.native_set[s] == kNoOffset ? s : layout.native_set[s];
  if (layout.root.in_buffer && !layout.root.address_in_push) {
    // The root buffer (named by the application's set count) goes after the native sets.
    if (map.size() <= layout.root.buffer_set) map.resize(layout.root.buffer_set + 1);
    for (uint32_t s = static_cast<uint32_t>(layout.native_set.size()); s < map.size(); ++s) map[s] = s;
    map[layout.root.buffer_set] = layout.root.native_buffer_set;
  }
  bool changed = false;
  if (!spirv::RenumberDescriptorSets(owned_code_.back(), map, &changed)) {
    return "the shader's instruction stream is malformed";
  }
  return SendDown(owned_code_.back(), inline_code, stage);
}

// Points `stage` at `words` (kept alive until the call returns): a module of ours, or
// the stage's inline VkShaderModuleCreateInfo in a copy of its chain.
std::string StageRewriter::SendDown(const std::vector<uint32_t>& words, const VkShaderModuleCreateInfo* inline_code,
                                    VkPipelineShaderStageCreateInfo& stage) {
  {
    VkShaderModuleCreateInfo code{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    code.codeSize = words.size() * sizeof(uint32_t);
    code.pCode = words.data();
    if (inline_code != nullptr) {
      chains_.emplace_back(stage.pNext);
      auto* edited = chains_.back().Modify<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
      if (edited == nullptr) return "an unknown struct precedes the stage's VkShaderModuleCreateInfo";
      edited->codeSize = code.codeSize;
      edited->pCode = code.pCode;
      stage.pNext = chains_.back().chain();
    } else {
      VkShaderModule module = VK_NULL_HANDLE;
      const VkResult result = b_.next.CreateShaderModule(b_.device.handle, &code, nullptr, &module);
      if (result != VK_SUCCESS) return "the rewritten module could not be created";
      modules_.push_back(module);
      stage.module = module;
    }
  }
  return "";
}

}  // namespace bindery::bindings
