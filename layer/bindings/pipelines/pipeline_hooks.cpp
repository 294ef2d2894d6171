// Shader modules and pipelines: the capability keeps each module's code, and creates every
// pipeline whose layout converts bindings from shaders rewritten for that layout's root
// (through the rewrite cache). A stage that uses no converted binding is used as it is.
//
// Creation flags go down unchanged, in the same order of create infos:
// - VK_PIPELINE_CREATE_FAIL_ON_PIPELINE_COMPILE_REQUIRED_BIT (pipelineCreationCacheControl)
//   asks the implementation to return VK_PIPELINE_COMPILE_REQUIRED rather than compile a
//   pipeline its cache does not hold. Decision: the rewrite is not a compile in the spec's
//   sense (a deterministic SPIR-V-to-SPIR-V edit on the CPU, cached, that never reaches a
//   backend compiler), so the layer always does it, passes the flag with the rewritten
//   stages, and returns whatever the driver returns. The driver's cache sees the rewritten
//   code, which is the same for the same module and layout, so a pipeline cache filled
//   under the layer answers under the layer. Pipelines the driver did not create
//   (VK_NULL_HANDLE) are neither counted nor registered as fallbacks.
// - Derivatives (VK_PIPELINE_CREATE_DERIVATIVE_BIT): basePipelineHandle names a real
//   pipeline of the driver and basePipelineIndex an index of the same array, so both stay
//   valid whether the base or the derivative was rewritten or fell back (with a different
//   native layout): no valid-usage rule ties a derivative's layout to its base's, and the
//   base is only a hint the implementation may ignore.
#include <algorithm>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "bindings/pipelines/pipeline_store.h"
#include "bindings/pipelines/pipeline_hooks.h"
#include "bindings/pipelines/native_twin.h"
#include "bindings/pipelines/robustness.h"
#include "bindings/pipelines/stage_rewriter.h"
#include "bindings/pipelines/static_use_of.h"
#include "core/small_vector.h"

namespace bindery::bindings {
namespace {


// A pipeline that cannot have converted bindings is created natively with the full
// layout (its sets are materialised from the shadow when it draws or dispatches); one
// log line with the reason. False when the full layout cannot be made.
bool FallBack(PipelineStore& b, const char* kind, const char* entry, const std::string& why,
              PipelineLayoutShadow& layout, VkPipelineLayout* out) {
  if (!b.plan.policy.convert_everything) {
    // Only layouts beyond the driver's limits convert here (auto on a driver where
    // conversion does not pay): natively the pipeline would be beyond them too (its full
    // native layout does not fit the driver).
    BINDERY_LOG(b.device.log(), kError, "bindings-fallback",
                "a %s pipeline (entry point '%s') cannot be created: its layout goes beyond the driver's limits and "
                "its shaders cannot be rewritten: %s",
                kind, entry, why.c_str());
    b.counters.fallen_back->Add();
    b.fallback_reasons.Add(why);
    return false;
  }
  const VkPipelineLayout full = b.FullPipelineLayout(layout);
  // Pushes reach it too: the last push to each set is made again with the full layout at
  // its first draw or dispatch (push_descriptor_hooks.cpp).
  BINDERY_LOG(b.device.log(), kWarn, "bindings-fallback",
              "a %s pipeline (entry point '%s') runs natively: %s%s", kind, entry, why.c_str(),
              full == VK_NULL_HANDLE ? " (and its full native layout could not be created: creation fails)" : "");
  if (full == VK_NULL_HANDLE) return false;
  *out = full;
  return true;
}

// Each pipeline's push-constant ranges, by the layout the application made it with
// (`layouts[i]`: its shadow, found before the creation).
void RegisterRanges(PipelineStore& b, const PipelineLayoutShadow* const* layouts, uint32_t count,
                    const VkPipeline* pipelines) {
  if (!b.Converting()) return;
  for (uint32_t i = 0; i < count; ++i) {
    if (pipelines[i] == VK_NULL_HANDLE || layouts[i] == nullptr) continue;
    b.pipeline_ranges.Insert(pipelines[i], layouts[i]->ranges_key);
  }
}

// After the driver's answer: the counters count pipelines that exist (a creation may
// return VK_PIPELINE_COMPILE_REQUIRED or fail for some of a batch), and each fallback
// pipeline is registered for its binds.
// `rewritten[i]`: pipeline i was rewritten for `layouts[i]`.
template <typename Info>
void RegisterFallbacks(PipelineStore& b, const std::vector<std::pair<uint32_t, const PipelineLayoutShadow*>>& list,
                       const std::vector<std::string>& reasons, const PipelineLayoutShadow* const* layouts,
                       const uint8_t* rewritten, uint32_t count, const Info* infos, const VkPipeline* pipelines) {
  for (uint32_t i = 0; i < count; ++i) {
    if (!rewritten[i] || pipelines[i] == VK_NULL_HANDLE) continue;
    const PipelineLayoutShadow* layout = layouts[i];
    b.counters.rewritten->Add();
    // Where it reads each set's root slot (root_delivery.cpp: DeliverMovedSlots).
    auto root = std::make_unique<RootPipeline>();
    root->base = layout->twin_layout != nullptr ? layout->twin_layout : MakeTwinLayout(*layout);
    for (size_t s = 0; s < layout->root.sets.size() && s < kTrackedSets; ++s) {
      if (layout->root.sets[s].root_offset != kNoOffset) root->slot_sets |= 1u << s;
    }
    b.root_pipelines.Insert(pipelines[i], std::move(root));
    if (!layout->root.in_buffer) continue;
    // Its root is read from the reserved set (root_delivery.cpp: RestoreRingRoot).
    auto r = std::make_unique<RingPipeline>();
    r->layout = infos[i].layout;
    r->keep_copy = layout->ring_copy;
    r->copy = layout->ring_copy != nullptr ? layout->ring_copy->handle() : VK_NULL_HANDLE;
    r->buffer_set = layout->root.native_buffer_set;
    r->root_end = layout->root.end;
    r->address_in_push = layout->root.address_in_push;
    for (int index = 0; index < 2; ++index) {
      r->address_at[index] = layout->root.AddressAt(index);
      r->address_stages[index] = layout->RootStages(index);
    }
    r->ranges_key = layout->ranges_key;
    b.ring_pipelines.Insert(pipelines[i], std::move(r));
    b.any_ring.store(true, std::memory_order_release);
    b.MarkWork(PipelineStore::kWorkRing);
  }
  for (size_t k = 0; k < list.size(); ++k) {
    const auto& [i, layout] = list[k];
    if (pipelines[i] == VK_NULL_HANDLE) continue;
    b.counters.fallen_back->Add();
    b.fallback_reasons.Add(reasons[k]);
    auto f = std::make_unique<FallbackPipeline>();
    f->full = infos[i].layout;
    for (const SetRoot& r : layout->root.sets) f->sets.push_back(r.layout);
    f->ranges = layout->native_ranges;
    b.fallback_pipelines.Insert(pipelines[i], std::move(f));
    b.any_fallback.store(true, std::memory_order_release);
    b.MarkWork(PipelineStore::kWorkFallback);
  }
}

// Twins of pipelines that read pushed records need those pushes made again (native_twin.h).
void MarkPushReaders(PipelineStore& b, const uint8_t* reads_push, uint32_t count, const VkPipeline* pipelines) {
  for (uint32_t i = 0; i < count; ++i) {
    if (!reads_push[i] || pipelines[i] == VK_NULL_HANDLE) continue;
    if (NativeTwin* twin = b.twins.Find(pipelines[i])) twin->reads_pushed_records = true;
  }
}

// Per-call state lives in inline buffers: a call creating a few pipelines from the
// rewrite cache allocates nothing here (only the records a new pipeline needs).
constexpr std::size_t kInlinePipelines = 4;

// One creation call's pipelines, compute or graphics: their create infos as sent down,
// each one's layout shadow (any layout the capability knows), whether it was rewritten,
// reads pushed records or falls back, and the steps around the driver's call.
template <typename Info>
class CreationBatch {
 public:
  CreationBatch(PipelineStore& b, const Info* app, uint32_t count)
      : infos(app, count), layouts(count), b_(b), app_(app), count_(count), was_rewritten_(count), reads_push_(count) {}

  // Pipeline i's stages were rewritten by `rewriter` (`why` empty; `converted`: some stage
  // was) or refused for `why`: then it falls back natively with the full layout. False
  // when not even that can be made (the call then fails: Fail).
  bool Outcome(uint32_t i, PipelineLayoutShadow& layout, const StageRewriter& rewriter, const std::string& why,
               bool converted, const char* kind, const char* entry) {
    reads_push_[i] = rewriter.reads_pushed_records();
    if (why.empty()) {
      was_rewritten_[i] = converted;
      return true;
    }
    if (!FallBack(b_, kind, entry, why, layout, &infos[i].layout)) return false;
    fallbacks_.emplace_back(i, &layout);
    fallback_reasons_.push_back(why);
    return true;
  }

  VkResult Fail(VkPipeline* pipelines) const {
    for (uint32_t k = 0; k < count_; ++k) pipelines[k] = VK_NULL_HANDLE;
    return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  }

  // After the driver's answer: what exists is registered (fallbacks, ranges, roots), twins
  // made, static use recorded.
  void Register(VkPipelineCache cache, const VkPipeline* pipelines) {
    RegisterFallbacks(b_, fallbacks_, fallback_reasons_, layouts.data(), was_rewritten_.data(), count_, infos.data(),
                      pipelines);
    RegisterRanges(b_, layouts.data(), count_, pipelines);
    MakeTwins(b_, cache, app_, layouts.data(), was_rewritten_.data(), pipelines, count_);
    RecordStaticUse(b_, app_, count_, pipelines);
    MarkPushReaders(b_, reads_push_.data(), count_, pipelines);
  }

  SmallVector<Info, kInlinePipelines> infos;
  SmallVector<const PipelineLayoutShadow*, kInlinePipelines> layouts;

 private:
  PipelineStore& b_;
  const Info* app_;
  uint32_t count_;
  std::vector<std::pair<uint32_t, const PipelineLayoutShadow*>> fallbacks_;
  std::vector<std::string> fallback_reasons_;  // why, per entry of `fallbacks_`
  SmallVector<uint8_t, kInlinePipelines> was_rewritten_;
  SmallVector<uint8_t, kInlinePipelines> reads_push_;
};

// What compute and graphics create infos differ in for the creation below: where their
// stages are, and what the log calls them.
uint32_t StageCount(const VkComputePipelineCreateInfo&) { return 1; }
uint32_t StageCount(const VkGraphicsPipelineCreateInfo& info) { return info.stageCount; }
const VkPipelineShaderStageCreateInfo* StagesOf(const VkComputePipelineCreateInfo& info) { return &info.stage; }
const VkPipelineShaderStageCreateInfo* StagesOf(const VkGraphicsPipelineCreateInfo& info) { return info.pStages; }
void SendStages(VkComputePipelineCreateInfo& info, const VkPipelineShaderStageCreateInfo* stages) {
  info.stage = stages[0];
}
void SendStages(VkGraphicsPipelineCreateInfo& info, const VkPipelineShaderStageCreateInfo* stages) {
  info.pStages = stages;
}
const char* KindOf(const VkComputePipelineCreateInfo&) { return "compute"; }
const char* KindOf(const VkGraphicsPipelineCreateInfo&) { return "graphics"; }

// Where the stages of a call's pipelines are rewritten to. Compute: each pipeline's one
// stage is copied into its create info, so one slot serves them all.
template <typename Info>
class StageSlots {
 public:
  StageSlots(const Info*, uint32_t) {}
  VkPipelineShaderStageCreateInfo* Take(uint32_t) { return &one_; }

 private:
  VkPipelineShaderStageCreateInfo one_;
};

// Graphics: every pipeline's stages in one buffer sized once (pointers into it stay valid).
template <>
class StageSlots<VkGraphicsPipelineCreateInfo> {
 public:
  StageSlots(const VkGraphicsPipelineCreateInfo* infos, uint32_t count) : slots_(Total(infos, count)) {}
  VkPipelineShaderStageCreateInfo* Take(uint32_t n) {
    VkPipelineShaderStageCreateInfo* out = slots_.data() + next_;
    next_ += n;
    return out;
  }

 private:
  static std::size_t Total(const VkGraphicsPipelineCreateInfo* infos, uint32_t count) {
    std::size_t total = 0;
    for (uint32_t i = 0; i < count; ++i) total += infos[i].stageCount;
    return total;
  }
  SmallVector<VkPipelineShaderStageCreateInfo, 8> slots_;
  std::size_t next_ = 0;
};

// vkCreateComputePipelines and vkCreateGraphicsPipelines (`Next`: the layer below's): each
// pipeline whose layout converts made from its stages rewritten for the layout's root, or
// natively with the full layout where they cannot be (CreationBatch). Graphics pipeline
// libraries and the pipelines linked from them run natively with the full layouts
// (pipeline_libraries.h).
template <typename Info, auto Next>
VkResult CreatePipelines(VkDevice device, VkPipelineCache cache, uint32_t count, const Info* pCreateInfos,
                         const VkAllocationCallbacks* pAllocator, VkPipeline* pPipelines) {
  PipelineStore* found = FindBindings<PipelineStore>(device);
  if (found == nullptr) return (NextOf(device).*Next)(device, cache, count, pCreateInfos, pAllocator, pPipelines);
  PipelineStore& b = *found;
  constexpr bool kGraphics = std::is_same_v<Info, VkGraphicsPipelineCreateInfo>;
  CreationBatch<Info> batch(b, pCreateInfos, count);
  StageRewriter rewriter(b);
  StageSlots<Info> stages(pCreateInfos, count);
  std::conditional_t<kGraphics, std::vector<LibraryChainMember>, std::nullptr_t> library_chain{};
  for (uint32_t i = 0; i < count; ++i) {
    Info& info = batch.infos[i];
    PipelineLayoutShadow* layout = b.pipeline_layouts.Find(info.layout);
    batch.layouts[i] = layout;
    if constexpr (kGraphics) {
      if (InLibraryChain(info)) {
        library_chain.emplace_back();
        if (!PrepareLibraryChainMember(b, info, layout, i, &library_chain.back())) return batch.Fail(pPipelines);
        continue;
      }
    }
    if (layout == nullptr || !layout->root.converts || StageCount(info) == 0) continue;
    VkPipelineShaderStageCreateInfo* out = stages.Take(StageCount(info));
    bool converted = false;
    const std::string why = rewriter.Rewrite(*layout, StageCount(info), StagesOf(info), out, &converted, info.pNext);
    if (!batch.Outcome(i, *layout, rewriter, why, converted, KindOf(info), StagesOf(info)[0].pName)) {
      return batch.Fail(pPipelines);
    }
    if (why.empty()) SendStages(info, out);
  }
  const VkResult result = (b.next.*Next)(device, cache, count, batch.infos.data(), pAllocator, pPipelines);
  batch.Register(cache, pPipelines);
  // After RecordStaticUse: a linked pipeline's static use is its libraries' too.
  if constexpr (kGraphics) RegisterLibraryChain(b, library_chain, pPipelines);
  return result;
}

}  // namespace

VKAPI_ATTR VkResult VKAPI_CALL CreateComputePipelines(VkDevice device, VkPipelineCache cache, uint32_t count,
                                                      const VkComputePipelineCreateInfo* pCreateInfos,
                                                      const VkAllocationCallbacks* pAllocator,
                                                      VkPipeline* pPipelines) {
  return CreatePipelines<VkComputePipelineCreateInfo, &VkLayerDispatchTable::CreateComputePipelines>(
      device, cache, count, pCreateInfos, pAllocator, pPipelines);
}

VKAPI_ATTR VkResult VKAPI_CALL CreateGraphicsPipelines(VkDevice device, VkPipelineCache cache, uint32_t count,
                                                       const VkGraphicsPipelineCreateInfo* pCreateInfos,
                                                       const VkAllocationCallbacks* pAllocator,
                                                       VkPipeline* pPipelines) {
  return CreatePipelines<VkGraphicsPipelineCreateInfo, &VkLayerDispatchTable::CreateGraphicsPipelines>(
      device, cache, count, pCreateInfos, pAllocator, pPipelines);
}

// A destroyed pipeline leaves every map of the pipelines store that may hold it.
VKAPI_ATTR void VKAPI_CALL DestroyPipeline(VkDevice device, VkPipeline pipeline, const VkAllocationCallbacks* pAllocator) {
  ForgetAndDestroy<PipelineStore, &VkLayerDispatchTable::DestroyPipeline>(
      device, pipeline, pAllocator, [&](PipelineStore& b) {
        if (!b.Converting()) return;
        if (b.any_fallback.load(std::memory_order_acquire)) b.fallback_pipelines.Erase(pipeline);
        b.pipeline_libraries.Erase(pipeline);
        DestroyTwin(b, pipeline);
        if (b.any_ring.load(std::memory_order_acquire)) b.ring_pipelines.Erase(pipeline);
        b.root_pipelines.Erase(pipeline);
        b.pipeline_ranges.Erase(pipeline);
      });
}

}  // namespace bindery::bindings
