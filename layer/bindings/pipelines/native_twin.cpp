#include "bindings/pipelines/native_twin.h"

#include <cstring>

#include "bindings/pipelines/static_use_of.h"
#include "chassis/newer_vulkan.h"

namespace bindery::bindings {
namespace {

// The layout's shared twin part (made with the layout; made here for a layout that has
// none, which a converting layout always has).
std::shared_ptr<TwinLayout> BaseOf(const PipelineLayoutShadow& layout) {
  return layout.twin_layout != nullptr ? layout.twin_layout : MakeTwinLayout(layout);
}

// A record saying the pipeline has no twin: its draws with such a set are skipped rather
// than following a null address.
std::unique_ptr<NativeTwin> NoTwin(VkPipelineBindPoint bind_point, const PipelineLayoutShadow& layout) {
  auto twin = std::make_unique<NativeTwin>();
  twin->bind_point = bind_point;
  twin->base = BaseOf(layout);
  twin->failed = true;
  return twin;
}

// The twin's full layout and sets (under the twin's mutex, or before it is shared).
void MakeFullLayout(PipelineStore& b, NativeTwin& twin) {
  twin.native.sets = twin.base->sets;
  twin.native.ranges = twin.base->layout.native_ranges;
  twin.native.full = b.FullPipelineLayout(twin.base->layout);
  twin.failed = twin.native.full == VK_NULL_HANDLE;
}

// `now`: the twin is made at once (the full layout now); else on first need.
std::unique_ptr<NativeTwin> NewTwin(PipelineStore& b, VkPipelineBindPoint bind_point, const PipelineLayoutShadow& layout,
                                    bool now) {
  auto twin = std::make_unique<NativeTwin>();
  twin->bind_point = bind_point;
  twin->base = BaseOf(layout);
  if (now) MakeFullLayout(b, *twin);
  return twin;
}

// The application's create info made native: its own stages (`stage` for compute), the
// full layout, no derivative (the base was created on another layout).
template <typename Info>
void MakeNative(Info& info, VkPipelineLayout full) {
  info.layout = full;
  info.flags &= ~static_cast<VkPipelineCreateFlags>(VK_PIPELINE_CREATE_DERIVATIVE_BIT);
  info.basePipelineHandle = VK_NULL_HANDLE;
  info.basePipelineIndex = -1;
}

}  // namespace

void MakeTwins(PipelineStore& b, VkPipelineCache cache, const VkComputePipelineCreateInfo* app,
               const PipelineLayoutShadow* const* layouts, const uint8_t* rewritten, const VkPipeline* pipelines,
               uint32_t count) {
  const bool now = NeedsTwins(b);
  for (uint32_t i = 0; i < count; ++i) {
    if (!rewritten[i] || pipelines[i] == VK_NULL_HANDLE || layouts[i] == nullptr) continue;
    const ModuleEntry* module = nullptr;  // the stage's module, when the layer keeps it
    std::unique_ptr<NativeTwin> twin = NewTwin(b, VK_PIPELINE_BIND_POINT_COMPUTE, *layouts[i], now);
    if (!twin->failed && now) {
      VkComputePipelineCreateInfo info = app[i];
      MakeNative(info, twin->native.full);
      twin->failed = b.next.CreateComputePipelines(b.device.handle, cache, 1, &info, nullptr, &twin->pipeline) !=
                     VK_SUCCESS;
    } else if (!twin->failed) {
      // Kept for a twin on first need, when nothing but the code, the entry point and the
      // specialisation is given (other structs could not be kept faithfully).
      const VkPipelineShaderStageCreateInfo& stage = app[i].stage;
      module = stage.module != VK_NULL_HANDLE ? b.modules.Find(stage.module) : nullptr;
      if (module != nullptr && stage.pNext == nullptr && app[i].pNext == nullptr) {
        twin->lazy_compute = true;
        twin->words = module->words;
        twin->entry = stage.pName;
        twin->stage_flags = stage.flags;
        twin->flags = app[i].flags & ~static_cast<VkPipelineCreateFlags>(VK_PIPELINE_CREATE_DERIVATIVE_BIT);
        if (const VkSpecializationInfo* s = stage.pSpecializationInfo) {
          twin->has_specialization = true;
          twin->map_entries.assign(s->pMapEntries, s->pMapEntries + s->mapEntryCount);
          const uint8_t* data = static_cast<const uint8_t*>(s->pData);
          twin->specialization_data.assign(data, data + s->dataSize);
        }
      } else {
        twin = NoTwin(VK_PIPELINE_BIND_POINT_COMPUTE, *layouts[i]);
      }
    }
    // What its full sets get written (only a twin that runs needs it).
    if (!twin->failed) {
      twin->native.uses = module != nullptr ? StaticUseOf(b, *module, app[i].stage) : StaticUseOf(b, 1, &app[i].stage);
    }
    b.twins.Insert(pipelines[i], std::move(twin));
  }
}

void MakeTwins(PipelineStore& b, VkPipelineCache cache, const VkGraphicsPipelineCreateInfo* app,
               const PipelineLayoutShadow* const* layouts, const uint8_t* rewritten, const VkPipeline* pipelines,
               uint32_t count) {
  const bool now = NeedsTwins(b);  // graphics create infos are not kept: twins now or never
  for (uint32_t i = 0; i < count; ++i) {
    if (!rewritten[i] || pipelines[i] == VK_NULL_HANDLE || layouts[i] == nullptr) continue;
    std::unique_ptr<NativeTwin> twin = now ? NewTwin(b, VK_PIPELINE_BIND_POINT_GRAPHICS, *layouts[i], true)
                                           : NoTwin(VK_PIPELINE_BIND_POINT_GRAPHICS, *layouts[i]);
    if (!twin->failed) {
      VkGraphicsPipelineCreateInfo info = app[i];
      MakeNative(info, twin->native.full);
      twin->failed = b.next.CreateGraphicsPipelines(b.device.handle, cache, 1, &info, nullptr, &twin->pipeline) !=
                     VK_SUCCESS;
    }
    if (!twin->failed) twin->native.uses = StaticUseOf(b, app[i].stageCount, app[i].pStages);
    b.twins.Insert(pipelines[i], std::move(twin));
  }
}

// The twin's pipeline, made now for a compute pipeline that kept its create info.
VkPipeline TwinPipeline(PipelineStore& b, NativeTwin& twin) {
  std::lock_guard<std::mutex> lock(twin.mutex);
  if (twin.pipeline != VK_NULL_HANDLE || twin.failed || !twin.lazy_compute) return twin.pipeline;
  MakeFullLayout(b, twin);
  if (twin.failed) return VK_NULL_HANDLE;
  VkShaderModuleCreateInfo code{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  code.codeSize = twin.words->size() * sizeof(uint32_t);
  code.pCode = twin.words->data();
  VkShaderModule module = VK_NULL_HANDLE;
  if (b.next.CreateShaderModule(b.device.handle, &code, nullptr, &module) != VK_SUCCESS) {
    twin.failed = true;
    return VK_NULL_HANDLE;
  }
  VkSpecializationInfo specialization{static_cast<uint32_t>(twin.map_entries.size()), twin.map_entries.data(),
                                      twin.specialization_data.size(), twin.specialization_data.data()};
  VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.flags = twin.flags;
  info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  info.stage.flags = twin.stage_flags;
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module;
  info.stage.pName = twin.entry.c_str();
  info.stage.pSpecializationInfo = twin.has_specialization ? &specialization : nullptr;
  info.layout = twin.native.full;
  info.basePipelineIndex = -1;
  twin.failed = b.next.CreateComputePipelines(b.device.handle, VK_NULL_HANDLE, 1, &info, nullptr, &twin.pipeline) !=
                VK_SUCCESS;
  b.next.DestroyShaderModule(b.device.handle, module, nullptr);
  return twin.pipeline;
}

void DestroyTwin(PipelineStore& b, VkPipeline pipeline) {
  std::unique_ptr<NativeTwin> twin = b.twins.Erase(pipeline);
  if (twin != nullptr && twin->pipeline != VK_NULL_HANDLE) b.next.DestroyPipeline(b.device.handle, twin->pipeline, nullptr);
}

}  // namespace bindery::bindings
