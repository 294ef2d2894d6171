#include "bindings/pipelines/pipeline_shadows.h"

#include <memory>
#include <mutex>

#include "bindings/descriptors/descriptor_store.h"

namespace bindery::bindings {

bool CompatibleWithFallback(const PipelineLayoutShadow& layout, const FallbackPipeline& f, uint32_t set) {
  if (set >= layout.root.sets.size() || set >= f.sets.size() || !SameRanges(layout.native_ranges, f.ranges)) {
    return false;
  }
  for (uint32_t k = 0; k <= set; ++k) {
    if (!SameSetLayout(layout.root.sets[k].layout.get(), f.sets[k].get())) return false;
  }
  return true;
}

const std::shared_ptr<const spirv::ModuleInfo>& ModuleEntry::Info() const {
  std::lock_guard<std::mutex> lock(mutex);
  if (info == nullptr) info = std::make_shared<spirv::ModuleInfo>(spirv::Inspect(words->data(), words->size()));
  return info;
}

}  // namespace bindery::bindings
