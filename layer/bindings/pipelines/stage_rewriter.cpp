#include "bindings/pipelines/stage_rewriter.h"

#include <algorithm>
#include <list>
#include <memory>
#include <string>
#include <vector>

#include "bindings/pipelines/rewrite_checks.h"
#include "bindings/pipelines/robustness.h"
#include "bindings/pipelines/stage_options.h"
#include "core/chain_edit.h"
#include "core/pnext.h"
#include "core/small_vector.h"
#include "spirv/renumber.h"
#include "spirv/thread_scratch.h"

namespace bindery::bindings {
namespace {

struct StageKeyTag {};  // the per-thread string RewriteStage builds the cache's key in

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

// The stage's code: its module's words (kept with the module, valid for the whole call: the
// application may not destroy a module while a pipeline is made from it), else its inline
// code, copied into *inline_words; nullptr when the layer does not know it.
const std::shared_ptr<const std::vector<uint32_t>>* StageRewriter::CodeOf(
    const VkPipelineShaderStageCreateInfo& stage, const ModuleEntry** module,
    const VkShaderModuleCreateInfo** inline_code, std::shared_ptr<const std::vector<uint32_t>>* inline_words) {
  if (stage.module != VK_NULL_HANDLE) {
    *module = b_.modules.Find(stage.module);
    return *module != nullptr ? &(*module)->words : nullptr;
  }
  *inline_code = FindInChain<VkShaderModuleCreateInfo>(stage.pNext, VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
  if (*inline_code == nullptr) return nullptr;
  *inline_words = std::make_shared<const std::vector<uint32_t>>((*inline_code)->pCode,
                                                                (*inline_code)->pCode + (*inline_code)->codeSize / 4);
  return inline_words;
}

// One stage: used as it is (renumbered for the native layout) where it reads no converted
// binding, else its rewrite for the layout's root sent down in its place.
std::string StageRewriter::RewriteStage(const PipelineLayoutShadow& layout, VkPipelineShaderStageCreateInfo& stage,
                                        const void* pipeline_chain, bool* converted) {
  const RootLayout& root = layout.root;
  const ModuleEntry* module = nullptr;
  const VkShaderModuleCreateInfo* inline_code = nullptr;
  std::shared_ptr<const std::vector<uint32_t>> inline_words;
  const std::shared_ptr<const std::vector<uint32_t>>* code = CodeOf(stage, &module, &inline_code, &inline_words);
  if (code == nullptr) return "the code of a shader stage is not known to the layer";
  const std::vector<uint32_t>& words = **code;
  // One parse of the words for the inspection and the rewrite, made only where one of them
  // is not kept yet (a pipeline from the rewrite cache parses nothing).
  spirv::ModuleParse parse(words.data(), words.size());
  std::shared_ptr<const spirv::ModuleInfo> inline_info;
  const spirv::ModuleInfo* info = InfoOf(module, parse, &inline_info);
  if (!UsesConvertedBinding(*info, stage.pName, root)) return UsedAsIs(words, layout, inline_code, stage);
  if (!root.fits) return "its layout's root does not fit in push constants";
  // Its pushed records live only in the ring: a native twin could not read them.
  reads_pushed_records_ = reads_pushed_records_ || UsesConvertedBinding(*info, stage.pName, root, true);
  // SPIR-V library gap: the rewrite subtracts a dynamic offset from the record's size,
  // but a dynamic descriptor's range does not shrink with its offset; lengths and
  // bounds checks of dynamic storage buffers would differ from native.
  const bool bounds_checks = StageBoundsChecks(b_.plan, pipeline_chain, stage.pNext);
  if (HasConvertedDynamic(root) && (bounds_checks || HasArrayLength(words))) {
    return "dynamic storage buffers with OpArrayLength or bounds checks (the rewrite shrinks their size by the "
           "dynamic offset)";
  }
  std::shared_ptr<const CachedRewrite> r;
  const std::string why = CheckedRewriteOf(layout, stage, *info, *code, module, parse, bounds_checks, &r);
  if (!why.empty()) return why;
  if (!r->converted && r->report.no_buffer_in_layout) {
    // The layer's inspection saw a converted binding in the stage's interface, but the
    // pass finds no access through any buffer of the layout: nothing to convert, used
    // as it is (seen on zink's tessellation stages).
    return UsedAsIs(words, layout, inline_code, stage);
  }
  if (!r->converted) return r->reason;
  const CachedRewrite& rewrite = *r;
  rewritten_.push_back(std::move(r));
  *converted = true;
  return SendRewritten(rewrite, layout, inline_code, stage);
}

// The stage's rewrite (*out) from the device's cache, made on a miss from `parse`, and where
// converted checked before use (rewrite_checks.h): "", else why the stage cannot use it.
std::string StageRewriter::CheckedRewriteOf(const PipelineLayoutShadow& layout,
                                            const VkPipelineShaderStageCreateInfo& stage,
                                            const spirv::ModuleInfo& info,
                                            const std::shared_ptr<const std::vector<uint32_t>>& code,
                                            const ModuleEntry* module, spirv::ModuleParse& parse, bool bounds_checks,
                                            std::shared_ptr<const CachedRewrite>* out) {
  const std::vector<uint32_t>& words = *code;
  // The cache's key says everything the rewrite depends on (stage_options.h); the options
  // themselves are built only where needed: on a miss, to validate or dump. Both live in
  // per-thread storage refilled for each stage, so a pipeline from the cache allocates
  // nothing for them (spirv/thread_scratch.h: still valid when a program's exit-time
  // teardown creates pipelines).
  const StageVariant variant = VariantOf(layout, stage, info, words, bounds_checks);
  spirv::ThreadScratch<std::string, StageKeyTag>::Lease key_scratch;
  std::string& key = *key_scratch;
  key.clear();
  RewriteCache::AppendWordsKey(words, module != nullptr ? module->WordsHash() : WordsHash(words), &key);
  StageRewriteKey(b_, layout, variant, &key);
  spirv::ThreadScratch<spirv::RewriteOptions>::Lease options_scratch;
  bool have_options = false;
  const auto options = [&]() -> const spirv::RewriteOptions& {
    if (!have_options) StageRewriteOptions(b_, layout, variant, *options_scratch);
    have_options = true;
    return *options_scratch;
  };
  bool hit = false;
  *out = b_.rewrites.Get(code, key, options, parse, &hit);
  const CachedRewrite& r = **out;
  if (!r.error.empty()) return "the shader could not be read: " + r.error;
  if (!r.converted) return "";
  const bool needs_options = b_.plan.validate || (!hit && !b_.plan.dump_dir.empty());
  return CheckedRewrite(b_, r, words, needs_options ? &options() : nullptr, stage, hit);
}

// A stage that reads no converted binding: as it is, but for the numbers of its sets in
// the native layout.
std::string StageRewriter::UsedAsIs(const std::vector<uint32_t>& words, const PipelineLayoutShadow& layout,
                                    const VkShaderModuleCreateInfo* inline_code, VkPipelineShaderStageCreateInfo& stage) {
  return layout.renumbered ? Renumbered(words, layout, inline_code, stage) : "";
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
// time, held by *owned), from `parse`, which the rewrite then reads.
const spirv::ModuleInfo* StageRewriter::InfoOf(const ModuleEntry* module, spirv::ModuleParse& parse,
                                               std::shared_ptr<const spirv::ModuleInfo>* owned) {
  if (module == nullptr) {
    *owned = std::make_shared<spirv::ModuleInfo>(spirv::Inspect(parse));
    return owned->get();
  }
  return module->Info(parse).get();  // never replaced once made
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
