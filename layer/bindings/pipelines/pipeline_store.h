// The pipelines store: what the capability keeps of shader modules and pipelines — the
// modules' inspections and rewrites (rewrite_cache.h), the pipelines that run natively
// (fallbacks, twins), those that read a ring root, and every pipeline's push-constant
// ranges — on top of the descriptors store it reads (model/device_core.h has the order).
// The hooks of pipelines/ own it.
#pragma once

#include <cstdint>

#include <vulkan/vulkan.h>

#include "bindings/descriptors/descriptor_store.h"
#include "bindings/pipelines/pipeline_libraries.h"
#include "bindings/pipelines/pipeline_shadows.h"
#include "bindings/pipelines/rewrite_cache.h"
#include "core/handle_map.h"

namespace bindery::bindings {

struct NativeTwin;  // native_twin.h

class PipelineStore : public DescriptorStore {
 public:
  using DescriptorStore::DescriptorStore;

  ShardedHandleMap<VkShaderModule, ModuleEntry> modules;
  RewriteCache rewrites;
  ShardedHandleMap<VkPipeline, FallbackPipeline> fallback_pipelines;
  // Graphics pipeline libraries made while layouts convert: what the pipelines linked
  // from them run with (pipeline_libraries.h).
  ShardedHandleMap<VkPipeline, PipelineLibrary> pipeline_libraries;
  // Native twins of rewritten pipelines (native_twin.h), once a buffer without an
  // address exists (DeviceCore::any_unaddressable).
  ShardedHandleMap<VkPipeline, NativeTwin> twins;
  // Pipelines whose root lives in the ring (record/root_delivery.cpp): looked for once the
  // first pipeline layout with such a root exists (DeviceCore::any_ring).
  ShardedHandleMap<VkPipeline, RingPipeline> ring_pipelines;
  // Every rewritten pipeline: where it reads its root (RootPipeline). Looked up only on a
  // device with a ring root, once per pipeline bind (record/root_delivery.cpp).
  ShardedHandleMap<VkPipeline, RootPipeline> root_pipelines;
  // Every pipeline made with a known layout: its layout's push-constant ranges
  // (PipelineLayoutShadow::ranges_key), so a draw knows whether the bound pipeline reads
  // the root or the application's bytes where the two were pushed over each other
  // (record/bind_point_state.h). Looked up only when such bytes are stale.
  ShardedHandleValues<VkPipeline, uint64_t> pipeline_ranges;
};

}  // namespace bindery::bindings
