#include "bindings/pipelines/static_use_of.h"

#include <algorithm>
#include <cstring>

#include "bindings/pipelines/pipeline_store.h"
#include "core/pnext.h"

namespace bindery::bindings {

namespace {

// The stage's inspection: its module's (ModuleEntry::Info), or made now for inline code.
std::shared_ptr<const spirv::ModuleInfo> InspectStage(PipelineStore& b, const VkPipelineShaderStageCreateInfo& stage) {
  if (stage.module != VK_NULL_HANDLE) {
    const ModuleEntry* module = b.modules.Find(stage.module);
    return module != nullptr ? module->Info() : nullptr;
  }
  const auto* code = FindInChain<VkShaderModuleCreateInfo>(stage.pNext, VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
  if (code == nullptr) return nullptr;
  return std::make_shared<spirv::ModuleInfo>(spirv::Inspect(code->pCode, code->codeSize / 4));
}

// Twins learn theirs when they are made (MakeTwins): only fallbacks are looked for, and
// only on a device that has some.
void Attach(PipelineStore& b, VkPipeline pipeline, uint32_t stage_count, const VkPipelineShaderStageCreateInfo* stages) {
  if (pipeline == VK_NULL_HANDLE || !b.any_fallback.load(std::memory_order_acquire)) return;
  FallbackPipeline* fallback = b.fallback_pipelines.Find(pipeline);
  if (fallback == nullptr) return;
  // The pipeline's handle is not the application's yet: nothing reads this meanwhile.
  fallback->uses = StaticUseOf(b, stage_count, stages);
}

}  // namespace

namespace {

// What one stage's entry point statically uses, added to *uses; false when unknown.
bool AddStage(PipelineStore& b, const VkPipelineShaderStageCreateInfo& stage, StaticUse* uses) {
  const std::shared_ptr<const spirv::ModuleInfo> info = InspectStage(b, stage);
  if (info == nullptr || !info->error.empty() || stage.pName == nullptr) return false;
  bool found = false;
  for (const spirv::EntryPointInfo& ep : info->entry_points) {
    if (ep.name != stage.pName) continue;
    found = true;
    for (const spirv::ResourceInfo& r : ep.resources) {
      if (r.kind != spirv::ResourceKind::kPushConstants) uses->Add(r.set, r.binding);
    }
  }
  return found;
}

}  // namespace

std::shared_ptr<const StaticUse> StaticUseOf(PipelineStore& b, const ModuleEntry& module,
                                            const VkPipelineShaderStageCreateInfo& stage) {
  // Worked out once per module and entry point (every pipeline made from the rewrite cache
  // asks again).
  if (stage.pName == nullptr) return nullptr;
  {
    std::lock_guard<std::mutex> lock(module.mutex);
    for (const auto& [entry, uses] : module.static_uses) {
      if (entry == stage.pName) return uses;
    }
  }
  auto uses = std::make_shared<StaticUse>();
  if (!AddStage(b, stage, uses.get())) return nullptr;
  uses->Seal();
  std::lock_guard<std::mutex> lock(module.mutex);
  module.static_uses.emplace_back(stage.pName, uses);
  return uses;
}

std::shared_ptr<const StaticUse> StaticUseOf(PipelineStore& b, uint32_t stage_count,
                                            const VkPipelineShaderStageCreateInfo* stages) {
  if (stage_count == 1 && stages[0].module != VK_NULL_HANDLE) {
    const ModuleEntry* module = b.modules.Find(stages[0].module);
    return module != nullptr ? StaticUseOf(b, *module, stages[0]) : nullptr;
  }
  auto uses = std::make_shared<StaticUse>();
  for (uint32_t i = 0; i < stage_count; ++i) {
    if (!AddStage(b, stages[i], uses.get())) return nullptr;
  }
  uses->Seal();
  return uses;
}

void RecordStaticUse(PipelineStore& b, const VkComputePipelineCreateInfo* app, uint32_t count,
                     const VkPipeline* pipelines) {
  for (uint32_t i = 0; i < count; ++i) Attach(b, pipelines[i], 1, &app[i].stage);
}

void RecordStaticUse(PipelineStore& b, const VkGraphicsPipelineCreateInfo* app, uint32_t count,
                     const VkPipeline* pipelines) {
  for (uint32_t i = 0; i < count; ++i) Attach(b, pipelines[i], app[i].stageCount, app[i].pStages);
}

}  // namespace bindery::bindings
