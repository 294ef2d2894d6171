#include "core/chain_edit.h"

#include <vulkan/vk_layer.h>

#include "core/pnext.h"

namespace bindery {

std::size_t KnownStructSize(VkStructureType stype) {
  switch (stype) {
    // The loader's link infos (vk_layer.h, not in the registry).
    case VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO: return sizeof(VkLayerDeviceCreateInfo);
    case VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO: return sizeof(VkLayerInstanceCreateInfo);
    // Every struct of vulkan_core.h, from the registry these headers come with.
#include "core/struct_sizes.inc"
    default:
      // VkBufferUsageFlags2CreateInfoKHR (maintenance5) is newer than these headers.
      if (stype == static_cast<VkStructureType>(1000470006)) return 24;
      return 0;
  }
}

const VkBaseInStructure* ChainEditor::Find(VkStructureType stype) const {
  return FindInChain<VkBaseInStructure>(first_, stype);
}

void* ChainEditor::CopyStruct(const void* s, std::size_t size) {
  storage_.emplace_back(new unsigned char[size]);
  std::memcpy(storage_.back().get(), s, size);
  return storage_.back().get();
}

bool ChainEditor::FindWithCopyablePrefix(VkStructureType stype, const VkBaseInStructure** target,
                                         std::vector<const VkBaseInStructure*>* prefix) const {
  for (auto* s = static_cast<const VkBaseInStructure*>(first_); s != nullptr; s = s->pNext) {
    if (s->sType == stype) {
      *target = s;
      return true;
    }
    if (KnownStructSize(s->sType) == 0) return false;
    prefix->push_back(s);
  }
  return false;
}

void ChainEditor::CopyPrefixOnto(const std::vector<const VkBaseInStructure*>& prefix, const void* tail) {
  // Copy back to front, each copy pointing at the copy after it; the last at `tail`.
  const void* next = tail;
  for (auto it = prefix.rbegin(); it != prefix.rend(); ++it) {
    auto* c = static_cast<VkBaseOutStructure*>(CopyStruct(*it, KnownStructSize((*it)->sType)));
    c->pNext = static_cast<VkBaseOutStructure*>(const_cast<void*>(next));
    next = c;
  }
  first_ = next;
}

void* ChainEditor::ModifyStruct(VkStructureType stype, std::size_t size) {
  std::vector<const VkBaseInStructure*> prefix;
  const VkBaseInStructure* target = nullptr;
  if (!FindWithCopyablePrefix(stype, &target, &prefix)) return nullptr;
  void* copy = CopyStruct(target, size);
  CopyPrefixOnto(prefix, copy);
  return copy;
}

bool ChainEditor::Remove(VkStructureType stype) {
  while (Find(stype) != nullptr) {
    std::vector<const VkBaseInStructure*> prefix;
    const VkBaseInStructure* target = nullptr;
    if (!FindWithCopyablePrefix(stype, &target, &prefix)) return false;
    CopyPrefixOnto(prefix, target->pNext);  // the prefix now skips the target
  }
  return true;
}

}  // namespace bindery
