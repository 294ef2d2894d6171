// Descriptor update templates on sets whose layout converts bindings. The application gets
// a layer-owned handle (the template's shadow): its converted entries write records, the
// rest go down through a native template of the smaller layout (none when every entry is
// converted: a native template cannot be empty). Push-descriptor templates are shadowed
// the same way (their records go to the command buffer's ring when pushed) and also get a
// template of every entry against the full native layout, for pushes that must reach a
// pipeline running natively. Templates of layouts that convert nothing pass through.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "bindings/descriptors/descriptor_store.h"
#include "bindings/descriptors/descriptor_hooks.h"
#include "bindings/descriptors/set_records.h"
#include "bindings/descriptors/push_coverage.h"

namespace bindery::bindings {
namespace {

// The set layout a template writes: its descriptorSetLayout, or for a push-descriptor
// template the layout of set `set` of its pipeline layout.
std::shared_ptr<const SetLayoutShadow> TemplateLayout(DescriptorStore& b, const VkDescriptorUpdateTemplateCreateInfo& info,
                                                      PipelineLayoutShadow** pipeline_layout) {
  *pipeline_layout = nullptr;
  if (info.templateType == VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_DESCRIPTOR_SET) {
    const SetLayoutEntry* e = b.set_layouts.Find(info.descriptorSetLayout);
    return e != nullptr ? e->shadow : nullptr;
  }
  if (info.templateType != VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_PUSH_DESCRIPTORS_KHR) return nullptr;
  PipelineLayoutShadow* pl = b.pipeline_layouts.Find(info.pipelineLayout);
  if (pl == nullptr || info.set >= pl->root.sets.size()) return nullptr;
  *pipeline_layout = pl;
  return pl->root.sets[info.set].layout;
}

// One past the last byte of pData an entry reads.
uint32_t TemplateEntryEnd(const VkDescriptorUpdateTemplateEntry& e) {
  if (e.descriptorCount == 0) return 0;
  size_t element = std::max(sizeof(VkDescriptorBufferInfo), sizeof(VkDescriptorImageInfo));
  switch (e.descriptorType) {
    case VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER:
    case VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER:
      element = sizeof(VkBufferView);
      break;
    case VK_DESCRIPTOR_TYPE_INLINE_UNIFORM_BLOCK:
      return static_cast<uint32_t>(e.offset + e.descriptorCount);  // descriptorCount bytes, stride ignored
    case VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR:
      element = sizeof(VkAccelerationStructureKHR);
      break;
    default:
      break;
  }
  return static_cast<uint32_t>(e.offset + static_cast<size_t>(e.descriptorCount - 1) * e.stride + element);
}

// A template writing native sets whose buffer descriptors are kept (native_buffer_sets.h):
// its buffer entries, so that its updates are kept too.
void KeepNativeTemplate(DescriptorStore& b, const VkDescriptorUpdateTemplateCreateInfo& info,
                        VkDescriptorUpdateTemplate handle) {
  auto kept = std::make_unique<NativeTemplate>();
  for (uint32_t i = 0; i < info.descriptorUpdateEntryCount; ++i) {
    const VkDescriptorUpdateTemplateEntry& e = info.pDescriptorUpdateEntries[i];
    if (IsConvertedType(e.descriptorType, b.plan.convert_uniform_buffers)) kept->buffer_entries.push_back(e);
  }
  if (!kept->buffer_entries.empty()) b.native_templates.Insert(handle, std::move(kept));
}

// An update through a native template of a set whose buffer descriptors are kept.
void KeepNativeTemplateUpdate(DescriptorStore& b, VkDescriptorSet handle, const NativeTemplate& t, const void* pData) {
  NativeBufferSet* set = b.native_buffer_sets.Find(handle);
  if (set == nullptr) return;
  const uint8_t* data = static_cast<const uint8_t*>(pData);
  for (const VkDescriptorUpdateTemplateEntry& e : t.buffer_entries) {
    ForEachAppDescriptor(*set->layout, e.dstBinding, e.dstArrayElement, e.descriptorCount,
                         [&](uint32_t binding, uint32_t element, uint32_t k) {
                           VkDescriptorBufferInfo info;
                           std::memcpy(&info, data + e.offset + static_cast<size_t>(k) * e.stride, sizeof(info));
                           set->descriptors[NativeBufferSet::Key(binding, element)] = info;
                         });
  }
}

// What a push template against a full layout is made of: equal strings, interchangeable
// templates.
std::string FullTemplateContent(const VkDescriptorUpdateTemplateCreateInfo& info) {
  std::string key;
  auto put = [&](const void* p, size_t n) { key.append(static_cast<const char*>(p), n); };
  put(&info.pipelineLayout, sizeof(info.pipelineLayout));
  put(&info.set, sizeof(info.set));
  put(&info.pipelineBindPoint, sizeof(info.pipelineBindPoint));
  put(&info.flags, sizeof(info.flags));
  for (uint32_t i = 0; i < info.descriptorUpdateEntryCount; ++i) {
    put(&info.pDescriptorUpdateEntries[i], sizeof(VkDescriptorUpdateTemplateEntry));
  }
  return key;
}

// A push template's twin of every entry against the full native layout (created here
// once if not yet), for pushes that must reach a pipeline running natively; and whether a
// push with it writes every descriptor.
template <typename CreateFn>
VkResult MakeFullPushTemplate(DescriptorStore& b, CreateFn create, VkDevice device,
                              const VkDescriptorUpdateTemplateCreateInfo& app, PipelineLayoutShadow& pipeline_layout,
                              TemplateShadow& shadow) {
  shadow.writes_every_descriptor = WritesEveryDescriptor(*shadow.layout, [&](auto&& visit) {
    for (uint32_t i = 0; i < app.descriptorUpdateEntryCount; ++i) {
      const VkDescriptorUpdateTemplateEntry& e = app.pDescriptorUpdateEntries[i];
      visit(e.dstBinding, e.dstArrayElement, e.descriptorCount);
    }
  });
  shadow.full_layout = b.FullPipelineLayout(pipeline_layout);
  if (shadow.full_layout == VK_NULL_HANDLE) return VK_ERROR_OUT_OF_HOST_MEMORY;
  VkDescriptorUpdateTemplateCreateInfo info = app;
  info.pipelineLayout = shadow.full_layout;
  // The layer's own object (no application allocator): a recorded push may still be
  // replayed through it after the application destroys its template (DestroyTemplate).
  // One retired with the same content is taken back.
  shadow.full_content = FullTemplateContent(info);
  {
    std::lock_guard<std::mutex> lock(b.fallback_mutex);
    for (auto it = b.retired_templates.begin(); it != b.retired_templates.end(); ++it) {
      if (it->content != shadow.full_content || it->destroy != shadow.destroy) continue;
      shadow.full = it->full;
      b.retired_templates.erase(it);
      break;
    }
  }
  if (shadow.full == VK_NULL_HANDLE) return create(device, &info, nullptr, &shadow.full);
  return VK_SUCCESS;
}

// A push template of a set layout that converts nothing, in a pipeline layout that
// converts (`handle`: the application's, passed down): its full-layout twin is kept, so
// that its pushes reach pipelines of the layout that run natively (their full layout numbers
// and lays out the sets otherwise). Without a twin (no full layout) nothing is kept.
template <typename CreateFn>
void KeepNativePushTemplate(DescriptorStore& b, CreateFn create, PFN_vkDestroyDescriptorUpdateTemplate destroy,
                            VkDevice device, const VkDescriptorUpdateTemplateCreateInfo& app,
                            std::shared_ptr<const SetLayoutShadow> layout, PipelineLayoutShadow& pipeline_layout,
                            VkDescriptorUpdateTemplate handle) {
  auto shadow = std::make_unique<TemplateShadow>();
  shadow->layout = std::move(layout);
  shadow->push = true;
  shadow->native = handle;
  shadow->bind_point = app.pipelineBindPoint;
  shadow->destroy = destroy;
  for (uint32_t i = 0; i < app.descriptorUpdateEntryCount; ++i) {
    shadow->data_size = std::max(shadow->data_size, TemplateEntryEnd(app.pDescriptorUpdateEntries[i]));
  }
  if (MakeFullPushTemplate(b, create, device, app, pipeline_layout, *shadow) != VK_SUCCESS) return;
  b.native_push_templates.Insert(handle, std::move(shadow));
}

template <typename CreateFn>
VkResult CreateTemplate(DescriptorStore& b, CreateFn create, PFN_vkDestroyDescriptorUpdateTemplate destroy,
                        VkDevice device, const VkDescriptorUpdateTemplateCreateInfo* pCreateInfo,
                        const VkAllocationCallbacks* pAllocator, VkDescriptorUpdateTemplate* pTemplate) {
  PipelineLayoutShadow* pipeline_layout = nullptr;
  std::shared_ptr<const SetLayoutShadow> layout = TemplateLayout(b, *pCreateInfo, &pipeline_layout);
  const VkDescriptorUpdateTemplateCreateInfo native_info = NativePushTemplateInfo(b, *pCreateInfo);
  if (layout == nullptr || !layout->converts()) {
    const VkResult r = create(device, &native_info, pAllocator, pTemplate);
    if (r == VK_SUCCESS && layout != nullptr && pipeline_layout == nullptr &&
        HasConvertibleNativeBuffers(*layout, b.plan.convert_uniform_buffers)) {
      KeepNativeTemplate(b, *pCreateInfo, *pTemplate);
    }
    if (r == VK_SUCCESS && layout != nullptr && pipeline_layout != nullptr && pipeline_layout->root.converts &&
        pipeline_layout->root.fits) {
      KeepNativePushTemplate(b, create, destroy, device, *pCreateInfo, layout, *pipeline_layout, *pTemplate);
    }
    if (r == VK_SUCCESS && pCreateInfo->templateType == VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_PUSH_DESCRIPTORS_KHR) {
      b.native_push_bind_points.Insert(*pTemplate, pCreateInfo->pipelineBindPoint);
    }
    return r;
  }
  auto shadow = std::make_unique<TemplateShadow>();
  shadow->layout = layout;
  shadow->push = pipeline_layout != nullptr;
  shadow->bind_point = pCreateInfo->pipelineBindPoint;
  shadow->destroy = destroy;
  std::vector<VkDescriptorUpdateTemplateEntry> native;
  for (uint32_t i = 0; i < pCreateInfo->descriptorUpdateEntryCount; ++i) {
    const VkDescriptorUpdateTemplateEntry& e = pCreateInfo->pDescriptorUpdateEntries[i];
    shadow->data_size = std::max(shadow->data_size, TemplateEntryEnd(e));
    if (layout->Find(e.dstBinding) != nullptr) {
      shadow->converted.push_back(e);
    } else {
      native.push_back(e);
    }
  }
  auto fail = [&](VkResult r) {
    if (shadow->native != VK_NULL_HANDLE) destroy(device, shadow->native, pAllocator);
    return r;
  };
  shadow->native_entries = native;
  if (!native.empty()) {
    VkDescriptorUpdateTemplateCreateInfo info = native_info;
    info.descriptorUpdateEntryCount = static_cast<uint32_t>(native.size());
    info.pDescriptorUpdateEntries = native.data();
    const VkResult r = create(device, &info, pAllocator, &shadow->native);
    if (r != VK_SUCCESS) return fail(r);
  }
  if (shadow->push) {
    const VkResult r = MakeFullPushTemplate(b, create, device, *pCreateInfo, *pipeline_layout, *shadow);
    if (r != VK_SUCCESS) return fail(r);
  }
  *pTemplate = reinterpret_cast<VkDescriptorUpdateTemplate>(shadow.get());
  b.templates.Insert(*pTemplate, std::move(shadow));
  return VK_SUCCESS;
}

template <typename DestroyFn>
void DestroyTemplate(DescriptorStore& b, DestroyFn destroy, VkDevice device, VkDescriptorUpdateTemplate handle,
                     const VkAllocationCallbacks* pAllocator) {
  std::unique_ptr<TemplateShadow> shadow = handle != VK_NULL_HANDLE ? b.templates.Erase(handle) : nullptr;
  // Command buffers remember the converting templates they pushed with (TemplateShadowOf,
  // record/record_store.h) while the lookup generation holds.
  if (shadow != nullptr) InvalidateLookupCaches();
  if (shadow == nullptr) {
    if (handle != VK_NULL_HANDLE) {
      b.native_templates.Erase(handle);
      b.native_push_bind_points.Erase(handle);
      if (std::unique_ptr<TemplateShadow> kept = b.native_push_templates.Erase(handle)) {
        // Its twin may still be replayed by a recorded push (as below).
        std::lock_guard<std::mutex> lock(b.fallback_mutex);
        b.retired_templates.push_back({std::move(kept->full_content), kept->full, kept->destroy});
      }
    }
    return destroy(device, handle, pAllocator);
  }
  if (b.template_private_data.load(std::memory_order_acquire)) {
    const uint64_t key = reinterpret_cast<uint64_t>(handle);
    b.ForgetOwnedData(key, key + 1);  // a later template may get the same address
  }
  if (shadow->native != VK_NULL_HANDLE) destroy(device, shadow->native, pAllocator);
  if (shadow->full != VK_NULL_HANDLE) {
    // A push recorded with it may be replayed for a pipeline running natively later in
    // that recording (push_descriptor_hooks.cpp): kept until the device goes.
    std::lock_guard<std::mutex> lock(b.fallback_mutex);
    b.retired_templates.push_back({std::move(shadow->full_content), shadow->full, shadow->destroy});
  }
}

template <typename UpdateFn>
void UpdateWithTemplate(DescriptorStore& b, UpdateFn update, VkDevice device, VkDescriptorSet set,
                        VkDescriptorUpdateTemplate handle, const void* pData) {
  if (!b.Converting()) return update(device, set, handle, pData);
  const TemplateShadow* shadow = b.templates.Find(handle);
  SetShadow* owned = OwnedSet(set);
  // A layer-owned set never goes down: with a template that writes no records (invalid
  // for its layout, which has only converted bindings) nothing happens.
  if (shadow == nullptr) {
    if (owned != nullptr) return;
    update(device, set, handle, pData);
    if (b.any_native_buffer_sets.load(std::memory_order_acquire)) {
      if (const NativeTemplate* kept = b.native_templates.Find(handle)) KeepNativeTemplateUpdate(b, set, *kept, pData);
    }
    return;
  }
  SetShadow* s = owned != nullptr ? owned : b.sets.Find(set);
  // A set with a full native set (a pipeline running natively read it): what the update
  // changes is mirrored into it, as writes are (full_set_mirror.cpp); where that cannot be
  // done it is rewritten from the shadow at its next use.
  const bool mirror = s != nullptr && s->full != VK_NULL_HANDLE;
  bool mirrored = true;
  if (s != nullptr) {
    ThreadLookups& lookups = Lookups();
    const uint8_t* data = static_cast<const uint8_t*>(pData);
    std::vector<VkDescriptorBufferInfo> values;
    for (const VkDescriptorUpdateTemplateEntry& e : shadow->converted) {
      if (mirror) values.assign(e.descriptorCount, VkDescriptorBufferInfo{});
      ForEachRecord(*s->layout, e.dstBinding, e.dstArrayElement, e.descriptorCount, [&](uint32_t record, uint32_t k) {
        VkDescriptorBufferInfo info;
        std::memcpy(&info, data + e.offset + static_cast<size_t>(k) * e.stride, sizeof(info));
        WriteRecord(b, lookups, *s, record, info);
        if (mirror) values[k] = info;
      });
      if (mirror && mirrored) {
        mirrored = b.MirrorBufferDescriptors(*s, e.dstBinding, e.dstArrayElement, e.descriptorType, values.data(),
                                             e.descriptorCount);
      }
    }
  }
  if (shadow->native != VK_NULL_HANDLE && owned == nullptr) update(device, set, shadow->native, pData);
  if (mirror && mirrored) {
    for (const VkDescriptorUpdateTemplateEntry& e : shadow->native_entries) {
      if (!mirrored) break;
      mirrored = b.MirrorNativeRange(*s, set, e.dstBinding, e.dstArrayElement, e.descriptorCount);
    }
  }
  if (s != nullptr && !(mirror && mirrored)) s->full_stale = true;
}

}  // namespace

VKAPI_ATTR VkResult VKAPI_CALL CreateDescriptorUpdateTemplate(VkDevice device,
                                                              const VkDescriptorUpdateTemplateCreateInfo* pCreateInfo,
                                                              const VkAllocationCallbacks* pAllocator,
                                                              VkDescriptorUpdateTemplate* pTemplate) {
  DescriptorStore* b = FindBindings<DescriptorStore>(device);
  if (b == nullptr) return NextOf(device).CreateDescriptorUpdateTemplate(device, pCreateInfo, pAllocator, pTemplate);
  return CreateTemplate(*b, b->next.CreateDescriptorUpdateTemplate, b->next.DestroyDescriptorUpdateTemplate, device,
                        pCreateInfo, pAllocator, pTemplate);
}

VKAPI_ATTR VkResult VKAPI_CALL CreateDescriptorUpdateTemplateKHR(
    VkDevice device, const VkDescriptorUpdateTemplateCreateInfo* pCreateInfo, const VkAllocationCallbacks* pAllocator,
    VkDescriptorUpdateTemplate* pTemplate) {
  DescriptorStore* b = FindBindings<DescriptorStore>(device);
  if (b == nullptr) return NextOf(device).CreateDescriptorUpdateTemplateKHR(device, pCreateInfo, pAllocator, pTemplate);
  return CreateTemplate(*b, b->next.CreateDescriptorUpdateTemplateKHR, b->next.DestroyDescriptorUpdateTemplateKHR,
                        device, pCreateInfo, pAllocator, pTemplate);
}

VKAPI_ATTR void VKAPI_CALL DestroyDescriptorUpdateTemplate(VkDevice device, VkDescriptorUpdateTemplate handle,
                                                           const VkAllocationCallbacks* pAllocator) {
  DescriptorStore* b = FindBindings<DescriptorStore>(device);
  if (b == nullptr) return NextOf(device).DestroyDescriptorUpdateTemplate(device, handle, pAllocator);
  DestroyTemplate(*b, b->next.DestroyDescriptorUpdateTemplate, device, handle, pAllocator);
}

VKAPI_ATTR void VKAPI_CALL DestroyDescriptorUpdateTemplateKHR(VkDevice device, VkDescriptorUpdateTemplate handle,
                                                              const VkAllocationCallbacks* pAllocator) {
  DescriptorStore* b = FindBindings<DescriptorStore>(device);
  if (b == nullptr) return NextOf(device).DestroyDescriptorUpdateTemplateKHR(device, handle, pAllocator);
  DestroyTemplate(*b, b->next.DestroyDescriptorUpdateTemplateKHR, device, handle, pAllocator);
}

namespace {

[[gnu::noinline]] void UpdateWithTemplateSlow(VkDevice device, VkDescriptorSet set, VkDescriptorUpdateTemplate handle,
                                              const void* pData) {
  DescriptorStore* b = FindBindings<DescriptorStore>(device);
  if (b == nullptr) return NextOf(device).UpdateDescriptorSetWithTemplate(device, set, handle, pData);
  UpdateWithTemplate(*b, b->next.UpdateDescriptorSetWithTemplate, device, set, handle, pData);
}

[[gnu::noinline]] void UpdateWithTemplateKHRSlow(VkDevice device, VkDescriptorSet set,
                                                 VkDescriptorUpdateTemplate handle, const void* pData) {
  DescriptorStore* b = FindBindings<DescriptorStore>(device);
  if (b == nullptr) return NextOf(device).UpdateDescriptorSetWithTemplateKHR(device, set, handle, pData);
  UpdateWithTemplate(*b, b->next.UpdateDescriptorSetWithTemplateKHR, device, set, handle, pData);
}

}  // namespace

// Until a layout converts on the device: the lookup, one test and a tail call.
VKAPI_ATTR void VKAPI_CALL UpdateDescriptorSetWithTemplate(VkDevice device, VkDescriptorSet set,
                                                           VkDescriptorUpdateTemplate handle, const void* pData) {
  DescriptorStore* cached = FindBindingsIndexed<DescriptorStore>(device);
  if (cached != nullptr && !cached->Converting()) {
    return cached->next.UpdateDescriptorSetWithTemplate(device, set, handle, pData);
  }
  return UpdateWithTemplateSlow(device, set, handle, pData);
}

// Until a layout converts on the device: the lookup, one test and a tail call.
VKAPI_ATTR void VKAPI_CALL UpdateDescriptorSetWithTemplateKHR(VkDevice device, VkDescriptorSet set,
                                                              VkDescriptorUpdateTemplate handle, const void* pData) {
  DescriptorStore* cached = FindBindingsIndexed<DescriptorStore>(device);
  if (cached != nullptr && !cached->Converting()) {
    return cached->next.UpdateDescriptorSetWithTemplateKHR(device, set, handle, pData);
  }
  return UpdateWithTemplateKHRSlow(device, set, handle, pData);
}

VkDescriptorUpdateTemplateCreateInfo NativePushTemplateInfo(DescriptorStore& b,
                                                            const VkDescriptorUpdateTemplateCreateInfo& app) {
  VkDescriptorUpdateTemplateCreateInfo info = app;
  if (app.templateType != VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_PUSH_DESCRIPTORS_KHR || !b.Converting()) return info;
  if (const PipelineLayoutShadow* pl = b.pipeline_layouts.Find(app.pipelineLayout)) info.set = pl->NativeSet(app.set);
  return info;
}

}  // namespace bindery::bindings
