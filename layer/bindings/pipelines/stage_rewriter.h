// The stages of a pipeline as sent down (stage_rewriter.cpp): each stage that reads a
// converted binding rewritten for its layout's root (through the device's rewrite cache,
// rewrite_cache.h), the others used as they are but for their sets' numbers in the native
// layout. Each module is parsed at most once per stage, for its inspection and its rewrite
// both (spirv::ModuleParse), and not at all where both are kept.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

#include "bindings/pipelines/pipeline_store.h"
#include "core/chain_edit.h"
#include "core/small_vector.h"
#include "spirv/rewrite.h"

namespace bindery::bindings {

// The stages of the pipelines of one creation call as sent down, and what they own until
// the call returns (nothing allocated for a pipeline whose stages come from the rewrite
// cache: its rewrite is kept alive in an inline slot).
class StageRewriter {
 public:
  // Some rewritten stage of the last Rewrite reads a converted binding of a push-descriptor set.
  bool reads_pushed_records() const { return reads_pushed_records_; }
  explicit StageRewriter(PipelineStore& b) : b_(b) {}
  ~StageRewriter();

  // Fills out[0..count) with the stages to send down for `layout`. Returns "" on success
  // (with *converted true when some stage was rewritten), else why the pipeline cannot be
  // made with converted bindings.
  // `pipeline_chain`: the pipeline create info's pNext (its robustness, robustness.h).
  std::string Rewrite(const PipelineLayoutShadow& layout, uint32_t count, const VkPipelineShaderStageCreateInfo* stages,
                      VkPipelineShaderStageCreateInfo* out, bool* converted, const void* pipeline_chain);

 private:
  // One stage of Rewrite, and its steps (stage_rewriter.cpp).
  std::string RewriteStage(const PipelineLayoutShadow& layout, VkPipelineShaderStageCreateInfo& stage,
                           const void* pipeline_chain, bool* converted);
  const std::shared_ptr<const std::vector<uint32_t>>* CodeOf(const VkPipelineShaderStageCreateInfo& stage,
                                                             const ModuleEntry** module,
                                                             const VkShaderModuleCreateInfo** inline_code,
                                                             std::shared_ptr<const std::vector<uint32_t>>* inline_words);
  std::string CheckedRewriteOf(const PipelineLayoutShadow& layout, const VkPipelineShaderStageCreateInfo& stage,
                               const spirv::ModuleInfo& info, const std::shared_ptr<const std::vector<uint32_t>>& code,
                               const ModuleEntry* module, spirv::ModuleParse& parse, bool bounds_checks,
                               std::shared_ptr<const CachedRewrite>* out);
  std::string UsedAsIs(const std::vector<uint32_t>& words, const PipelineLayoutShadow& layout,
                       const VkShaderModuleCreateInfo* inline_code, VkPipelineShaderStageCreateInfo& stage);
  std::string SendRewritten(const CachedRewrite& rewrite, const PipelineLayoutShadow& layout,
                            const VkShaderModuleCreateInfo* inline_code, VkPipelineShaderStageCreateInfo& stage);

  // The module's inspection, made once per module and kept with it (inline code: every
  // time, held by *owned), from `parse`: the parse the rewrite reads on a cache miss.
  static const spirv::ModuleInfo* InfoOf(const ModuleEntry* module, spirv::ModuleParse& parse,
                                         std::shared_ptr<const spirv::ModuleInfo>* owned);

  // The rewritten module as a module of the layer below (kept with the cache entry).
  VkShaderModule DriverModule(const CachedRewrite& r);

  // `stage` made from a copy of `words` with its sets renumbered for the native layout.
  std::string Renumbered(const std::vector<uint32_t>& words, const PipelineLayoutShadow& layout,
                         const VkShaderModuleCreateInfo* inline_code, VkPipelineShaderStageCreateInfo& stage);

  // Points `stage` at `words` (kept alive until the call returns): a module of ours, or
  // the stage's inline VkShaderModuleCreateInfo in a copy of its chain.
  std::string SendDown(const std::vector<uint32_t>& words, const VkShaderModuleCreateInfo* inline_code,
                       VkPipelineShaderStageCreateInfo& stage);

  bool reads_pushed_records_ = false;
  PipelineStore& b_;
  std::list<std::vector<uint32_t>> owned_code_;  // renumbered modules (stable addresses)
  std::vector<VkShaderModule> modules_;
  std::list<ChainEditor> chains_;
  SmallVector<std::shared_ptr<const CachedRewrite>, 4> rewritten_;  // keeps the code alive
};

}  // namespace bindery::bindings
