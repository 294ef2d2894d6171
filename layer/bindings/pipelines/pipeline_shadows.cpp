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

const std::shared_ptr<const spirv::ModuleInfo>& ModuleEntry::Info(spirv::ModuleParse& parse) const {
  std::lock_guard<std::mutex> lock(mutex);
  if (info == nullptr) info = std::make_shared<spirv::ModuleInfo>(spirv::Inspect(parse));
  return info;
}

const std::shared_ptr<const spirv::ModuleInfo>& ModuleEntry::Info() const {
  spirv::ModuleParse parse(words->data(), words->size());  // parses only where no inspection exists yet
  return Info(parse);
}

uint64_t ModuleEntry::WordsHash() const {
  uint64_t hash = words_hash.load(std::memory_order_relaxed);
  if (hash == 0) {
    // Two threads may both make it: the same value.
    hash = bindings::WordsHash(*words);
    words_hash.store(hash, std::memory_order_relaxed);
  }
  return hash;
}

}  // namespace bindery::bindings
