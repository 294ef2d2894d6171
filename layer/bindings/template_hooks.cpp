// Descriptor update templates on sets whose layout converts bindings. The application gets
// a layer-owned handle (the template's shadow): its converted entries write records, the
// rest go down through a native template of the smaller layout (none when every entry is
// converted: a native template cannot be empty). Templates of layouts that convert
// nothing, and push-descriptor templates (their layouts stay native), pass through.
#include <cstring>
#include <vector>

#include "bindings/bindings_device.h"
#include "bindings/hooks.h"
#include "bindings/set_records.h"

namespace bindery::bindings {
namespace {

template <typename CreateFn>
VkResult CreateTemplate(CreateFn create, VkDevice device, const VkDescriptorUpdateTemplateCreateInfo* pCreateInfo,
                        const VkAllocationCallbacks* pAllocator, VkDescriptorUpdateTemplate* pTemplate) {
  DeviceBindings& b = BindingsOf(device);
  const SetLayoutEntry* layout = pCreateInfo->templateType == VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_DESCRIPTOR_SET
                                     ? b.set_layouts.Find(pCreateInfo->descriptorSetLayout)
                                     : nullptr;
  if (layout == nullptr || !layout->shadow->converts()) return create(device, pCreateInfo, pAllocator, pTemplate);
  auto shadow = std::make_unique<TemplateShadow>();
  shadow->layout = layout->shadow;
  std::vector<VkDescriptorUpdateTemplateEntry> native;
  for (uint32_t i = 0; i < pCreateInfo->descriptorUpdateEntryCount; ++i) {
    const VkDescriptorUpdateTemplateEntry& e = pCreateInfo->pDescriptorUpdateEntries[i];
    if (layout->shadow->Find(e.dstBinding) != nullptr) {
      shadow->converted.push_back(e);
    } else {
      native.push_back(e);
    }
  }
  if (!native.empty()) {
    VkDescriptorUpdateTemplateCreateInfo info = *pCreateInfo;
    info.descriptorUpdateEntryCount = static_cast<uint32_t>(native.size());
    info.pDescriptorUpdateEntries = native.data();
    const VkResult r = create(device, &info, pAllocator, &shadow->native);
    if (r != VK_SUCCESS) return r;
  }
  *pTemplate = reinterpret_cast<VkDescriptorUpdateTemplate>(shadow.get());
  b.templates.Insert(*pTemplate, std::move(shadow));
  return VK_SUCCESS;
}

template <typename DestroyFn>
void DestroyTemplate(DestroyFn destroy, VkDevice device, VkDescriptorUpdateTemplate handle,
                     const VkAllocationCallbacks* pAllocator) {
  DeviceBindings& b = BindingsOf(device);
  std::unique_ptr<TemplateShadow> shadow = handle != VK_NULL_HANDLE ? b.templates.Erase(handle) : nullptr;
  if (shadow == nullptr) return destroy(device, handle, pAllocator);
  if (shadow->native != VK_NULL_HANDLE) destroy(device, shadow->native, pAllocator);
}

template <typename UpdateFn>
void UpdateWithTemplate(UpdateFn update, VkDevice device, VkDescriptorSet set, VkDescriptorUpdateTemplate handle,
                        const void* pData) {
  DeviceBindings& b = BindingsOf(device);
  if (!b.Converting()) return update(device, set, handle, pData);
  const TemplateShadow* shadow = b.templates.Find(handle);
  SetShadow* owned = OwnedSet(set);
  // A layer-owned set never goes down: with a template that writes no records (invalid
  // for its layout, which has only converted bindings) nothing happens.
  if (shadow == nullptr) {
    if (owned == nullptr) update(device, set, handle, pData);
    return;
  }
  if (SetShadow* s = owned != nullptr ? owned : b.sets.Find(set)) {
    s->full_stale = true;
    ThreadLookups& lookups = Lookups();
    const uint8_t* data = static_cast<const uint8_t*>(pData);
    for (const VkDescriptorUpdateTemplateEntry& e : shadow->converted) {
      ForEachRecord(*s->layout, e.dstBinding, e.dstArrayElement, e.descriptorCount, [&](uint32_t record, uint32_t k) {
        VkDescriptorBufferInfo info;
        std::memcpy(&info, data + e.offset + static_cast<size_t>(k) * e.stride, sizeof(info));
        WriteRecord(b, lookups, *s, record, info);
      });
    }
  }
  if (shadow->native != VK_NULL_HANDLE && owned == nullptr) update(device, set, shadow->native, pData);
}

}  // namespace

VKAPI_ATTR VkResult VKAPI_CALL CreateDescriptorUpdateTemplate(VkDevice device,
                                                              const VkDescriptorUpdateTemplateCreateInfo* pCreateInfo,
                                                              const VkAllocationCallbacks* pAllocator,
                                                              VkDescriptorUpdateTemplate* pTemplate) {
  return CreateTemplate(BindingsOf(device).next.CreateDescriptorUpdateTemplate, device, pCreateInfo, pAllocator,
                        pTemplate);
}

VKAPI_ATTR VkResult VKAPI_CALL CreateDescriptorUpdateTemplateKHR(
    VkDevice device, const VkDescriptorUpdateTemplateCreateInfo* pCreateInfo, const VkAllocationCallbacks* pAllocator,
    VkDescriptorUpdateTemplate* pTemplate) {
  return CreateTemplate(BindingsOf(device).next.CreateDescriptorUpdateTemplateKHR, device, pCreateInfo, pAllocator,
                        pTemplate);
}

VKAPI_ATTR void VKAPI_CALL DestroyDescriptorUpdateTemplate(VkDevice device, VkDescriptorUpdateTemplate handle,
                                                           const VkAllocationCallbacks* pAllocator) {
  DestroyTemplate(BindingsOf(device).next.DestroyDescriptorUpdateTemplate, device, handle, pAllocator);
}

VKAPI_ATTR void VKAPI_CALL DestroyDescriptorUpdateTemplateKHR(VkDevice device, VkDescriptorUpdateTemplate handle,
                                                              const VkAllocationCallbacks* pAllocator) {
  DestroyTemplate(BindingsOf(device).next.DestroyDescriptorUpdateTemplateKHR, device, handle, pAllocator);
}

VKAPI_ATTR void VKAPI_CALL UpdateDescriptorSetWithTemplate(VkDevice device, VkDescriptorSet set,
                                                           VkDescriptorUpdateTemplate handle, const void* pData) {
  UpdateWithTemplate(BindingsOf(device).next.UpdateDescriptorSetWithTemplate, device, set, handle, pData);
}

VKAPI_ATTR void VKAPI_CALL UpdateDescriptorSetWithTemplateKHR(VkDevice device, VkDescriptorSet set,
                                                              VkDescriptorUpdateTemplate handle, const void* pData) {
  UpdateWithTemplate(BindingsOf(device).next.UpdateDescriptorSetWithTemplateKHR, device, set, handle, pData);
}

}  // namespace bindery::bindings
