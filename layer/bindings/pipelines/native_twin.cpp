#include "bindings/pipelines/native_twin.h"

#include <cstring>

#include "bindings/device/hooks.h"
#include "bindings/pipelines/static_use.h"
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
void MakeFullLayout(DeviceBindings& b, NativeTwin& twin) {
  twin.native.sets = twin.base->sets;
  twin.native.ranges = twin.base->layout.native_ranges;
  twin.native.full = b.FullPipelineLayout(twin.base->layout);
  twin.failed = twin.native.full == VK_NULL_HANDLE;
}

// `now`: the twin is made at once (the full layout now); else on first need.
std::unique_ptr<NativeTwin> NewTwin(DeviceBindings& b, VkPipelineBindPoint bind_point, const PipelineLayoutShadow& layout,
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

// A command that no pipeline can run: it is not recorded, and the command buffer's
// vkEndCommandBuffer fails (the one call of a recording that can return an error), so
// the application learns that its work cannot run instead of losing it unseen.
void RefuseCommand(DeviceBindings& b, BindingsCommandData& data, const char* why) {
  BINDERY_LOG(b.device.log(), kError, "bindings-twin",
              "a rewritten pipeline has a set naming a buffer without a device address bound, and no native twin: %s; "
              "the draw or dispatch is not recorded and vkEndCommandBuffer returns VK_ERROR_OUT_OF_DEVICE_MEMORY",
              why);
  data.Fail(VK_ERROR_OUT_OF_DEVICE_MEMORY);
}

// Every push-descriptor set of the twin's layout that its shaders read through records was
// kept as the application made it (PushCopy), so the twin gets it again natively.
bool PushesKept(const BindingsCommandData::BindPoint& point, const NativeTwin& twin) {
  const std::vector<std::shared_ptr<const SetLayoutShadow>>& sets = twin.base->sets;
  for (uint32_t i = 0; i < sets.size(); ++i) {
    if (sets[i] == nullptr || !sets[i]->push_descriptor || !sets[i]->converts()) continue;
    if (i >= BindingsCommandData::kMaxSets || !point.push_copy[i].valid) return false;
  }
  return true;
}

}  // namespace

std::shared_ptr<TwinLayout> MakeTwinLayout(const PipelineLayoutShadow& layout) {
  auto base = std::make_shared<TwinLayout>();
  base->layout.root = layout.root;
  base->layout.native_ranges = layout.native_ranges;
  base->layout.full = layout.full;
  // What a delivery of its root needs (root_delivery.cpp): the stages a root push names.
  base->layout.root_stages[0] = layout.root_stages[0];
  base->layout.root_stages[1] = layout.root_stages[1];
  base->layout.ranges_key = layout.ranges_key;
  for (const SetRoot& r : layout.root.sets) base->sets.push_back(r.layout);
  return base;
}

void NoteUnaddressable(DeviceBindings& b, const char* what) {
  if (b.any_unaddressable.exchange(true, std::memory_order_acq_rel)) return;
  b.MarkWork(DeviceBindings::kWorkTwins);
  BINDERY_LOG(b.device.log(), kWarn, "bindings-unaddressable",
              "%s has no device address (sparse, protected or external memory, or memory the layer could not flag): "
              "draws and dispatches that reach it through a descriptor run their pipeline's native twin",
              what);
}

void MakeTwins(DeviceBindings& b, VkPipelineCache cache, const VkComputePipelineCreateInfo* app,
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

void MakeTwins(DeviceBindings& b, VkPipelineCache cache, const VkGraphicsPipelineCreateInfo* app,
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

namespace {

// The twin's pipeline, made now for a compute pipeline that kept its create info.
VkPipeline TwinPipeline(DeviceBindings& b, NativeTwin& twin) {
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

// Does a set bound or pushed for the twin's layout name a buffer without an address?
bool BoundSetsNeedTwin(DeviceBindings& b, const BindingsCommandData::BindPoint& point, const NativeTwin& twin) {
  const std::vector<std::shared_ptr<const SetLayoutShadow>>& sets = twin.base->sets;
  for (uint32_t i = 0; i < sets.size() && i < BindingsCommandData::kMaxSets; ++i) {
    if (sets[i] == nullptr) continue;
    if (sets[i]->push_descriptor && (point.pushed_unaddressable & BindPointState::SetMask(i, 1)) != 0) return true;
    const VkDescriptorSet set = point.sets[i].set;
    if (set == VK_NULL_HANDLE) continue;
    const SetShadow* shadow = FindSet(b, set);
    if (shadow != nullptr && shadow->unaddressable != 0) return true;
  }
  return false;
}

}  // namespace

bool ApplyTwin(DeviceBindings& b, VkCommandBuffer cb, VkPipelineBindPoint bind_point, BindingsCommandData& data,
               BindPointState& point) {
  if (!NeedsTwins(b)) return true;
  if (point.twin == nullptr || point.untrackable) return true;
  NativeTwin& twin = const_cast<NativeTwin&>(*point.twin);
  if (!BoundSetsNeedTwin(b, point, twin)) {
    if (point.twin_bound) {
      // Back to the rewritten pipeline and the converted binds.
      b.next.CmdBindPipeline(cb, bind_point, point.pipeline);
      RestoreConvertedBinds(b, cb, bind_point, point);
      point.twin_bound = false;
    }
    return true;
  }
  if (point.twin_bound && point.fallback_applied) return true;
  // Pushed storage buffers it reads went to the command buffer's ring
  // (push_descriptor_hooks.cpp); the twin gets the pushes again natively with its full
  // layout (BindFullSets), as they were kept. One not kept (a write that needs its pNext)
  // cannot reach it.
  if (twin.reads_pushed_records && !PushesKept(point, twin)) {
    RefuseCommand(b, data, "its shaders read a pushed set whose pushes could not be kept");
    return false;
  }
  const VkPipeline pipeline = TwinPipeline(b, twin);
  if (pipeline == VK_NULL_HANDLE) {
    RefuseCommand(b, data,
                  twin.lazy_compute || twin.bind_point == VK_PIPELINE_BIND_POINT_COMPUTE
                      ? "it could not be created (its layout goes beyond the driver's limits, or the pipeline's "
                        "create info could not be kept)"
                      : "it was rewritten before the first such buffer existed (or its layout goes beyond the "
                        "driver's limits)");
    return false;
  }
  if (!point.twin_bound) b.next.CmdBindPipeline(cb, bind_point, pipeline);
  BindFullSets(b, cb, bind_point, point, twin.native);
  point.twin_bound = true;
  return true;
}

void DestroyTwin(DeviceBindings& b, VkPipeline pipeline) {
  std::unique_ptr<NativeTwin> twin = b.twins.Erase(pipeline);
  if (twin != nullptr && twin->pipeline != VK_NULL_HANDLE) b.next.DestroyPipeline(b.device.handle, twin->pipeline, nullptr);
}

VKAPI_ATTR VkResult VKAPI_CALL CreateBuffer(VkDevice device, const VkBufferCreateInfo* pCreateInfo,
                                            const VkAllocationCallbacks* pAllocator, VkBuffer* pBuffer) {
  DeviceBindings* found = FindBindings(device);
  if (found == nullptr) return NextOf(device).CreateBuffer(device, pCreateInfo, pAllocator, pBuffer);
  DeviceBindings& b = *found;
  const VkResult result = b.next.CreateBuffer(device, pCreateInfo, pAllocator, pBuffer);
  if (result != VK_SUCCESS || NeedsTwins(b)) return result;
  // The tracking stage below added the address usage wherever it could: a buffer that
  // could be a converted descriptor and still lacks it will have no address.
  const BufferInfo* buffer = b.trackers().buffers.Find(*pBuffer);
  VkBufferUsageFlags converted = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  if (b.plan.convert_uniform_buffers) converted |= VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT;
  if (buffer != nullptr && (buffer->usage & converted) != 0 &&
      (buffer->usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT) == 0) {
    NoteUnaddressable(b, "a buffer the application created");
  }
  return result;
}

}  // namespace bindery::bindings
