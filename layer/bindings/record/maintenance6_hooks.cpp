// VK_KHR_maintenance6's descriptor commands: vkCmdBindDescriptorSets2KHR,
// vkCmdPushConstants2KHR, vkCmdPushDescriptorSet2KHR and
// vkCmdPushDescriptorSetWithTemplate2KHR. The extension is hidden where every layout
// converts; under auto it stays offered, and a layout beyond the driver's limits converts
// there at any time. Until the first layout converts each hook is a tail call down (hot
// path: nothing allocated, no lock). From then on each command becomes its 1-command, once
// per bind point its stageFlags name, through the slow paths of the hooks of those
// (bind_hooks.cpp, push_descriptor_hooks.cpp), handed the device found here: the bind
// point's state and its pre-draw step see exactly what they see for the 1-commands
// (converted sets into the root, layer-owned handles kept from the driver, renumbered
// sets).
//
// vkCmdSetDescriptorBufferOffsets2EXT and vkCmdBindDescriptorBufferEmbeddedSamplers2EXT
// are not hooked: set layouts made for descriptor buffers never convert, and a pipeline
// layout with one holds only such set layouts (the spec allows no mix), so the layout the
// driver gets is the application's, with its own set numbers and push constants.
#include <atomic>

#include "bindings/record/record_store.h"
#include "bindings/record/record_hooks.h"
#include "bindings/record/bind_point_state.h"
#include "chassis/newer_vulkan.h"
#include "chassis/state.h"

namespace bindery::bindings {
namespace {

constexpr VkShaderStageFlags kRayTracingStages =
    VK_SHADER_STAGE_RAYGEN_BIT_KHR | VK_SHADER_STAGE_ANY_HIT_BIT_KHR | VK_SHADER_STAGE_CLOSEST_HIT_BIT_KHR |
    VK_SHADER_STAGE_MISS_BIT_KHR | VK_SHADER_STAGE_INTERSECTION_BIT_KHR | VK_SHADER_STAGE_CALLABLE_BIT_KHR;

const NewerDeviceDispatch& NewerOf(VkCommandBuffer cb) {
  return StateRegistry::Get().FindDevice(cb)->NextNewer(g_bindings_slot.load(std::memory_order_relaxed));
}

// Cold-path notes, once per process each: they say where meaning could not be kept.
std::atomic<bool> g_logged_dynamic_layout{false};
std::atomic<bool> g_logged_dynamic_converting{false};
std::atomic<bool> g_logged_extension_struct{false};
std::atomic<bool> g_logged_ray_tracing{false};

const VkPipelineLayoutCreateInfo* ChainedLayoutInfo(const void* pNext) {
  for (auto* s = static_cast<const VkBaseInStructure*>(pNext); s != nullptr; s = s->pNext) {
    if (s->sType == VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO) {
      return reinterpret_cast<const VkPipelineLayoutCreateInfo*>(s);
    }
  }
  return nullptr;
}

// What to do with a command whose layout is VK_NULL_HANDLE (dynamicPipelineLayout: the
// layout is the VkPipelineLayoutCreateInfo in pNext). The layer does not make layouts for
// such commands, so they are not translated: true when the command may go down as it is
// (none of the chained layout's set layouts converts, so its sets and set numbers are
// native), false when it must be dropped (it would hand the driver layer-owned sets or
// wrong set numbers).
bool DynamicLayoutGoesDown(RecordStore& b, const void* pNext, const char* command) {
  const VkPipelineLayoutCreateInfo* info = ChainedLayoutInfo(pNext);
  bool converts = false;
  for (uint32_t i = 0; info != nullptr && i < info->setLayoutCount && !converts; ++i) {
    const SetLayoutEntry* entry = info->pSetLayouts != nullptr ? b.set_layouts.Find(info->pSetLayouts[i]) : nullptr;
    converts = entry != nullptr && entry->shadow != nullptr && entry->shadow->converts();
  }
  if (converts) {
    if (!g_logged_dynamic_converting.exchange(true, std::memory_order_relaxed)) {
      BINDERY_LOG(b.device.log(), kError, "bindings-maintenance6",
                  "%s with a null layout and a chained VkPipelineLayoutCreateInfo whose set layouts convert is not "
                  "translated: the command is dropped (its sets and set numbers do not exist natively)",
                  command);
    }
    return false;
  }
  if (!g_logged_dynamic_layout.exchange(true, std::memory_order_relaxed)) {
    BINDERY_LOG(b.device.log(), kWarn, "bindings-maintenance6",
                "%s with a null layout and a chained VkPipelineLayoutCreateInfo goes down untranslated (none of its "
                "set layouts converts); pipelines of converting layouts running natively do not see it",
                command);
  }
  return true;
}

// A translated command drops its pNext chain: say so once for anything besides the
// VkPipelineLayoutCreateInfo that a non-null layout makes meaningless.
void NoteDroppedChain(RecordStore& b, const void* pNext, const char* command) {
  for (auto* s = static_cast<const VkBaseInStructure*>(pNext); s != nullptr; s = s->pNext) {
    if (s->sType == VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO) continue;
    if (!g_logged_extension_struct.exchange(true, std::memory_order_relaxed)) {
      BINDERY_LOG(b.device.log(), kWarn, "bindings-maintenance6",
                  "%s: a chained structure of type %d is dropped (the command goes down as its 1-command)", command,
                  static_cast<int>(s->sType));
    }
    return;
  }
}

// Ray-tracing pipelines are never rewritten: their bind point gets the command natively
// while its layout converts nothing; a converting layout there has no native meaning.
bool RayTracingGoesDown(RecordStore& b, VkPipelineLayout layout, const char* command) {
  const PipelineLayoutShadow* pl = b.pipeline_layouts.Find(layout);
  if (pl == nullptr || !pl->root.converts) return true;
  if (!g_logged_ray_tracing.exchange(true, std::memory_order_relaxed)) {
    BINDERY_LOG(b.device.log(), kError, "bindings-maintenance6",
                "%s names ray-tracing stages with a converting pipeline layout: not sent to the ray-tracing bind "
                "point (its pipelines are not rewritten)",
                command);
  }
  return false;
}

[[gnu::noinline]] void BindDescriptorSets2Slow(RecordStore& b, VkCommandBuffer cb,
                                               const BindDescriptorSetsInfo* info) {
  constexpr const char* kName = "vkCmdBindDescriptorSets2KHR";
  if (info->layout == VK_NULL_HANDLE) {
    if (DynamicLayoutGoesDown(b, info->pNext, kName)) b.device.NextNewer(b.slot).CmdBindDescriptorSets2KHR(cb, info);
    return;
  }
  NoteDroppedChain(b, info->pNext, kName);
  auto bind = [&](VkPipelineBindPoint point) {
    BindDescriptorSetsSlow(cb, point, info->layout, info->firstSet, info->descriptorSetCount, info->pDescriptorSets,
                           info->dynamicOffsetCount, info->pDynamicOffsets, &b);
  };
  if ((info->stageFlags & kGraphicsPointStages) != 0) bind(VK_PIPELINE_BIND_POINT_GRAPHICS);
  if ((info->stageFlags & kComputePointStages) != 0) bind(VK_PIPELINE_BIND_POINT_COMPUTE);
  if ((info->stageFlags & kRayTracingStages) != 0 && RayTracingGoesDown(b, info->layout, kName)) {
    bind(VK_PIPELINE_BIND_POINT_RAY_TRACING_KHR);
  }
}

[[gnu::noinline]] void PushConstants2Slow(RecordStore& b, VkCommandBuffer cb, const PushConstantsInfo* info) {
  constexpr const char* kName = "vkCmdPushConstants2KHR";
  if (info->layout == VK_NULL_HANDLE) {
    if (DynamicLayoutGoesDown(b, info->pNext, kName)) b.device.NextNewer(b.slot).CmdPushConstants2KHR(cb, info);
    return;
  }
  NoteDroppedChain(b, info->pNext, kName);
  // Push constants belong to stages, not bind points: one vkCmdPushConstants, as the
  // 1-command would be.
  PushConstantsConverting(b, cb, info->layout, info->stageFlags, info->offset, info->size, info->pValues);
}

[[gnu::noinline]] void PushDescriptorSet2Slow(RecordStore& b, VkCommandBuffer cb, const PushDescriptorSetInfo* info) {
  constexpr const char* kName = "vkCmdPushDescriptorSet2KHR";
  if (info->layout == VK_NULL_HANDLE || b.next.CmdPushDescriptorSetKHR == nullptr) {
    // Without VK_KHR_push_descriptor below the command is invalid anyway: down as it is.
    if (info->layout != VK_NULL_HANDLE || DynamicLayoutGoesDown(b, info->pNext, kName)) {
      b.device.NextNewer(b.slot).CmdPushDescriptorSet2KHR(cb, info);
    }
    return;
  }
  NoteDroppedChain(b, info->pNext, kName);
  auto push = [&](VkPipelineBindPoint point) {
    PushDescriptorSetConverting(b, cb, point, info->layout, info->set, info->descriptorWriteCount,
                                info->pDescriptorWrites);
  };
  if ((info->stageFlags & kGraphicsPointStages) != 0) push(VK_PIPELINE_BIND_POINT_GRAPHICS);
  if ((info->stageFlags & kComputePointStages) != 0) push(VK_PIPELINE_BIND_POINT_COMPUTE);
  if ((info->stageFlags & kRayTracingStages) != 0 && RayTracingGoesDown(b, info->layout, kName)) {
    push(VK_PIPELINE_BIND_POINT_RAY_TRACING_KHR);
  }
}

[[gnu::noinline]] void PushDescriptorSetWithTemplate2Slow(RecordStore& b, VkCommandBuffer cb,
                                                          const PushDescriptorSetWithTemplateInfo* info) {
  constexpr const char* kName = "vkCmdPushDescriptorSetWithTemplate2KHR";
  if (info->layout == VK_NULL_HANDLE || b.next.CmdPushDescriptorSetWithTemplateKHR == nullptr) {
    if (info->layout != VK_NULL_HANDLE || DynamicLayoutGoesDown(b, info->pNext, kName)) {
      b.device.NextNewer(b.slot).CmdPushDescriptorSetWithTemplate2KHR(cb, info);
    }
    return;
  }
  NoteDroppedChain(b, info->pNext, kName);
  // The template names its bind point: one push, as the 1-command would be.
  PushDescriptorSetWithTemplateConverting(b, cb, info->descriptorUpdateTemplate, info->layout, info->set,
                                          info->pData);
}

}  // namespace

VKAPI_ATTR void VKAPI_CALL CmdBindDescriptorSets2KHR(VkCommandBuffer cb, const BindDescriptorSetsInfo* info) {
  RecordStore* b = FindBindings<RecordStore>(cb);
  if (b == nullptr) return NewerOf(cb).CmdBindDescriptorSets2KHR(cb, info);
  if ((b->Work() & RecordStore::kWorkConverting) == 0) {
    return b->device.NextNewer(b->slot).CmdBindDescriptorSets2KHR(cb, info);
  }
  return BindDescriptorSets2Slow(*b, cb, info);
}

VKAPI_ATTR void VKAPI_CALL CmdPushConstants2KHR(VkCommandBuffer cb, const PushConstantsInfo* info) {
  // As CmdPushConstants: layouts that widen the application's pushes need the 1-command too.
  constexpr uint32_t kPushWork = RecordStore::kWorkConverting | RecordStore::kWorkWidenedPushes;
  RecordStore* b = FindBindings<RecordStore>(cb);
  if (b == nullptr) return NewerOf(cb).CmdPushConstants2KHR(cb, info);
  if ((b->Work() & kPushWork) == 0) return b->device.NextNewer(b->slot).CmdPushConstants2KHR(cb, info);
  return PushConstants2Slow(*b, cb, info);
}

VKAPI_ATTR void VKAPI_CALL CmdPushDescriptorSet2KHR(VkCommandBuffer cb, const PushDescriptorSetInfo* info) {
  RecordStore* b = FindBindings<RecordStore>(cb);
  if (b == nullptr) return NewerOf(cb).CmdPushDescriptorSet2KHR(cb, info);
  if (!b->Converting()) return b->device.NextNewer(b->slot).CmdPushDescriptorSet2KHR(cb, info);
  return PushDescriptorSet2Slow(*b, cb, info);
}

VKAPI_ATTR void VKAPI_CALL CmdPushDescriptorSetWithTemplate2KHR(VkCommandBuffer cb,
                                                                const PushDescriptorSetWithTemplateInfo* info) {
  RecordStore* b = FindBindings<RecordStore>(cb);
  if (b == nullptr) return NewerOf(cb).CmdPushDescriptorSetWithTemplate2KHR(cb, info);
  if (!b->Converting()) return b->device.NextNewer(b->slot).CmdPushDescriptorSetWithTemplate2KHR(cb, info);
  return PushDescriptorSetWithTemplate2Slow(*b, cb, info);
}

}  // namespace bindery::bindings
