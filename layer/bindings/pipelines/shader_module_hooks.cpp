// Shader modules: the capability keeps each module's code (ModuleEntry,
// pipeline_shadows.h), which pipeline creation inspects and rewrites (stage_rewriter.cpp);
// a destroyed module's rewrites stay in the rewrite cache (bounded: the most recently used
// of those nothing holds, rewrite_cache.h).
#include <memory>
#include <vector>

#include "bindings/pipelines/pipeline_hooks.h"
#include "bindings/pipelines/pipeline_store.h"

namespace bindery::bindings {

VKAPI_ATTR VkResult VKAPI_CALL CreateShaderModule(VkDevice device, const VkShaderModuleCreateInfo* pCreateInfo,
                                                  const VkAllocationCallbacks* pAllocator,
                                                  VkShaderModule* pShaderModule) {
  PipelineStore* found = FindBindings<PipelineStore>(device);
  if (found == nullptr) return NextOf(device).CreateShaderModule(device, pCreateInfo, pAllocator, pShaderModule);
  PipelineStore& b = *found;
  const VkResult result = b.next.CreateShaderModule(device, pCreateInfo, pAllocator, pShaderModule);
  if (result == VK_SUCCESS) {
    auto entry = std::make_unique<ModuleEntry>();
    entry->words = std::make_shared<const std::vector<uint32_t>>(pCreateInfo->pCode,
                                                                 pCreateInfo->pCode + pCreateInfo->codeSize / 4);
    b.modules.Insert(*pShaderModule, std::move(entry));
  }
  return result;
}

VKAPI_ATTR void VKAPI_CALL DestroyShaderModule(VkDevice device, VkShaderModule module,
                                               const VkAllocationCallbacks* pAllocator) {
  PipelineStore* b = ForgetAndDestroy<PipelineStore, &VkLayerDispatchTable::DestroyShaderModule>(
      device, module, pAllocator, [&](PipelineStore& store) { store.modules.Erase(module); });
  if (b == nullptr) return;
  // Its rewrites may now be held by the cache alone (bounded: rewrite_cache.h).
  b->rewrites.TrimUnused([&](const CachedRewrite& r) {
    if (r.driver_module != VK_NULL_HANDLE) b->next.DestroyShaderModule(device, r.driver_module, nullptr);
  });
}

}  // namespace bindery::bindings
