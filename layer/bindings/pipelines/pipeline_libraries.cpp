// Graphics pipeline libraries on a converting device (pipeline_libraries.h).
#include "bindings/pipelines/pipeline_libraries.h"

#include <memory>

#include "bindings/pipelines/pipeline_store.h"
#include "bindings/pipelines/static_use_of.h"
#include "core/pnext.h"

namespace bindery::bindings {
namespace {

constexpr const char* kReason =
    "a graphics pipeline library chain (libraries and the pipelines linked from them run natively with the full "
    "layout)";

const VkPipelineLibraryCreateInfoKHR* LibrariesOf(const VkGraphicsPipelineCreateInfo& info) {
  return FindInChain<VkPipelineLibraryCreateInfoKHR>(info.pNext, VK_STRUCTURE_TYPE_PIPELINE_LIBRARY_CREATE_INFO_KHR);
}

// `into` gains the sets of `from` it lacks (a set number left out, VK_NULL_HANDLE, in a
// layout with independent sets), and its layout and ranges where it has none yet.
void Merge(FallbackPipeline& into, const FallbackPipeline& from) {
  if (into.full == VK_NULL_HANDLE) {
    into.full = from.full;
    into.ranges = from.ranges;
  }
  if (into.sets.size() < from.sets.size()) into.sets.resize(from.sets.size());
  for (size_t i = 0; i < from.sets.size(); ++i) {
    if (into.sets[i] == nullptr) into.sets[i] = from.sets[i];
  }
}

}  // namespace

bool InLibraryChain(const VkGraphicsPipelineCreateInfo& info) {
  if ((info.flags & VK_PIPELINE_CREATE_LIBRARY_BIT_KHR) != 0) return true;
  const VkPipelineLibraryCreateInfoKHR* libraries = LibrariesOf(info);
  return libraries != nullptr && libraries->libraryCount != 0;
}

bool PrepareLibraryChainMember(PipelineStore& b, VkGraphicsPipelineCreateInfo& info,
                               PipelineLayoutShadow* layout, uint32_t index, LibraryChainMember* member) {
  member->index = index;
  member->library = (info.flags & VK_PIPELINE_CREATE_LIBRARY_BIT_KHR) != 0;
  member->entry = info.stageCount != 0 && info.pStages[0].pName != nullptr ? info.pStages[0].pName : "";
  FallbackPipeline& native = member->native.native;
  // What its own stages use, then each library's: unknown (nullptr) if any is.
  std::shared_ptr<const StaticUse> own = StaticUseOf(b, info.stageCount, info.pStages);
  auto uses = own != nullptr ? std::make_shared<StaticUse>(*own) : nullptr;
  if (layout != nullptr) {
    native.full = info.layout;  // a layout that converts nothing is its own full form
    for (const SetRoot& r : layout->root.sets) native.sets.push_back(r.layout);
    native.ranges = layout->native_ranges;
    member->native.converts = layout->root.converts;
    if (layout->root.converts) {
      const VkPipelineLayout full =
          b.plan.policy.convert_everything ? b.FullPipelineLayout(*layout) : VK_NULL_HANDLE;
      if (full == VK_NULL_HANDLE) {
        BINDERY_LOG(b.device.log(), kError, "bindings-fallback",
                    "a graphics pipeline %s (entry point '%s') cannot be created: its layout converts bindings and has "
                    "no native form within the driver's limits, which a pipeline library chain runs with",
                    member->library ? "library" : "linked from libraries", member->entry);
        return false;
      }
      native.full = full;
      info.layout = full;
    }
  }
  if (const VkPipelineLibraryCreateInfoKHR* libraries = LibrariesOf(info)) {
    for (uint32_t k = 0; k < libraries->libraryCount; ++k) {
      // A library made before the device converted anything is not kept: it converts nothing.
      const PipelineLibrary* library = b.pipeline_libraries.Find(libraries->pLibraries[k]);
      if (library == nullptr) continue;
      member->native.converts = member->native.converts || library->converts;
      // Without a layout of its own, the pipeline runs with its libraries' (identically
      // defined where they do not use independent sets; their union where they do).
      if (layout == nullptr) Merge(native, library->native);
      if (uses != nullptr && library->native.uses != nullptr) {
        uses->AddAll(*library->native.uses);
      } else {
        uses = nullptr;
      }
    }
  }
  if (uses != nullptr) uses->Seal();
  native.uses = std::move(uses);
  return true;
}

void RegisterLibraryChain(PipelineStore& b, const std::vector<LibraryChainMember>& members,
                          const VkPipeline* pipelines) {
  for (const LibraryChainMember& m : members) {
    const VkPipeline pipeline = pipelines[m.index];
    if (pipeline == VK_NULL_HANDLE) continue;
    if (m.library) {
      if (!b.Converting()) continue;  // nothing converts: linked pipelines need nothing of it
      b.pipeline_libraries.Insert(pipeline, std::make_unique<PipelineLibrary>(m.native));
      if (m.native.converts) {
        BINDERY_LOG(b.device.log(), kInfo, "bindings-fallback",
                    "a graphics pipeline library (entry point '%s') runs natively with the full layout: %s", m.entry,
                    kReason);
      }
      continue;
    }
    if (!m.native.converts || m.native.native.full == VK_NULL_HANDLE) continue;
    BINDERY_LOG(b.device.log(), kWarn, "bindings-fallback",
                "a graphics pipeline linked from libraries (entry point '%s') runs natively: %s", m.entry, kReason);
    b.counters.fallen_back->Add();
    b.fallback_reasons.Add(kReason);
    b.fallback_pipelines.Insert(pipeline, std::make_unique<FallbackPipeline>(m.native.native));
    b.any_fallback.store(true, std::memory_order_release);
    b.MarkWork(PipelineStore::kWorkFallback);
  }
}

}  // namespace bindery::bindings
