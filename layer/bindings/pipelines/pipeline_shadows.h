// What the capability keeps for each shader module and for the pipelines that run
// natively or read their root from where binds put it: found by the handles the
// application holds (PipelineStore's handle maps, pipeline_store.h).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <vulkan/vulkan.h>

#include "bindings/descriptors/shadows.h"
#include "bindings/model/set_layout_shadow.h"
#include "bindings/pipelines/rewrite_cache.h"
#include "bindings/model/static_use.h"
#include "spirv/rewrite.h"

namespace bindery::bindings {

// A pipeline rewritten for a layout whose root lives in the ring: where it reads the
// root, so a draw or dispatch can put the reserved set back when binds through other
// layouts disturbed it (root_delivery.cpp).
struct RingPipeline {
  VkPipelineLayout layout = VK_NULL_HANDLE;  // the application's (native) layout handle
  VkPipelineLayout copy = VK_NULL_HANDLE;    // keep_copy's handle (read by draws)
  std::shared_ptr<const RingLayoutCopy> keep_copy;  // PipelineLayoutShadow::ring_copy
  uint32_t buffer_set = 0;                   // the reserved set's number in the native layout
  uint32_t root_end = 0;
  // The root's address in push constants instead of the reserved set
  // (RootLayout::address_in_push): pushed per bind point (graphics 0, compute 1) at
  // `address_at` naming `address_stages`, through ranges `ranges_key`.
  bool address_in_push = false;
  uint32_t address_at[2] = {0, 0};
  VkShaderStageFlags address_stages[2] = {0, 0};
  uint64_t ranges_key = 0;
};

// A rewritten pipeline of a converting layout: where it reads each set's root slot, so a
// draw or dispatch can deliver slots that binds through compatible layouts put in the
// other place (push constants or the ring: root_delivery.cpp, DeliverMovedSlots). Its
// layout's shared part outlives the application's layout.
struct RootPipeline {
  std::shared_ptr<const TwinLayout> base;  // the layout's root and ranges (native_twin.h)
  uint32_t slot_sets = 0;                  // the sets with a root slot (bit i: set i < 32)
};

// A pipeline created natively (its shaders could not be rewritten): binding it makes the
// sets bound at its bind point be materialised as full native sets at the next draw or
// dispatch.
struct FallbackPipeline {
  VkPipelineLayout full = VK_NULL_HANDLE;  // the full native layout it was created with
  std::vector<std::shared_ptr<const SetLayoutShadow>> sets;  // its layout's sets
  // Its layout's push-constant ranges as sent down (PipelineLayoutShadow::native_ranges):
  // with `sets`, what decides which binds and pushes are compatible with it.
  std::vector<VkPushConstantRange> ranges;
  // The bindings its shaders statically use: the only ones its full sets get written
  // (static_use.h); nullptr: unknown, every binding.
  std::shared_ptr<const StaticUse> uses;
};

// Is `layout` compatible for set `set` with the layout of `f` (a pipeline running
// natively), as the spec defines it? A push or bind through a layout that is not does not
// reach that set for `f` (pipeline_shadows.cpp).
bool CompatibleWithFallback(const PipelineLayoutShadow& layout, const FallbackPipeline& f, uint32_t set);

struct ModuleEntry {
  std::shared_ptr<const std::vector<uint32_t>> words;
  // What the module uses, found by the module's handle: a second pipeline from it neither
  // parses nor hashes its words again. Its rewrites live in the device's rewrite cache
  // (rewrite_cache.h), keyed by these words.
  mutable std::mutex mutex;
  mutable std::shared_ptr<const spirv::ModuleInfo> info;  // Info() makes it
  // The module's inspection (spirv::Inspect), made on first need under `mutex` and never
  // replaced: pipeline creation (stage_rewriter.cpp) and static use (static_use_of.cpp)
  // share it. `parse`: the parse of these words the rewrite then reads (one parse for
  // both, spirv::ModuleParse); without one, a parse of its own.
  const std::shared_ptr<const spirv::ModuleInfo>& Info(spirv::ModuleParse& parse) const;
  const std::shared_ptr<const spirv::ModuleInfo>& Info() const;
  // The words' hash as the rewrite cache keys them (WordsHash), made on first need.
  uint64_t WordsHash() const;
  mutable std::atomic<uint64_t> words_hash{0};  // 0: not made yet
  // Per entry point: the bindings it statically uses (static_use.h), found by its name.
  mutable std::vector<std::pair<std::string, std::shared_ptr<const StaticUse>>> static_uses;
};

}  // namespace bindery::bindings
