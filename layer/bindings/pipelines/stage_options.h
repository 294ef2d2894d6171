// The rewrite options of a pipeline stage (spirv::RewriteOptions): its layout's root as the
// sets' records and offsets, the device's features and limits, the stage's bind point,
// entry point and bounds checks; and the rewrite cache's key for them (rewrite_cache.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

#include "spirv/rewrite.h"

namespace bindery::bindings {

class PipelineStore;
struct PipelineLayoutShadow;

// What a stage's rewrite options take from the stage itself; the rest comes from its
// layout and the device. With the layout (StageRewriteKey) and the module's words, it
// decides the rewrite.
struct StageVariant {
  uint32_t root_shift = 0;       // the bind point's root copy it reads (RootPushSpace)
  uint32_t spirv_version = 0;    // the module's (its words say it too)
  bool bounds_checks = false;    // robustness.h
  const char* entry = nullptr;   // the entry point, where its module has several
  uint32_t model = spirv::kAnyExecutionModel;  // that entry point's execution model
};
// Keep StageRewriteKey in step with every field above (the key must name them all).
static_assert(sizeof(StageVariant) == 32, "a field was added to StageVariant: key it in StageRewriteKey");

StageVariant VariantOf(const PipelineLayoutShadow& layout, const VkPipelineShaderStageCreateInfo& stage,
                       const spirv::ModuleInfo& info, const std::vector<uint32_t>& words, bool bounds_checks);

// Fills `options` (reused: its vectors keep their capacity, so a pipeline whose rewrite is
// cached allocates nothing here) for a stage `v` of a pipeline made with `layout`.
void StageRewriteOptions(const PipelineStore& b, const PipelineLayoutShadow& layout, const StageVariant& v,
                         spirv::RewriteOptions& options);

// The rewrite cache's key (after the words' part, rewrite_cache.h) for stage `v` with
// `layout`, appended to *key: the layout's part (the options key of its plain stage, made
// once per layout) and the stage's fields. Everything StageRewriteOptions reads is in one
// of the two, so equal keys mean equal options; no options are built for a cached rewrite.
void StageRewriteKey(const PipelineStore& b, const PipelineLayoutShadow& layout, const StageVariant& v,
                     std::string* key);

}  // namespace bindery::bindings
