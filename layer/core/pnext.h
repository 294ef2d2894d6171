// The one pNext finder: every walk of a Vulkan pNext chain in the layer goes through
// FindFirstIf (the chain editor's prefix copy, which must see every struct, excepted).
#pragma once

#include <vulkan/vulkan.h>

namespace bindery {

// First struct of the chain for which pred(const VkBaseInStructure&) is true, or nullptr.
template <typename Pred>
const VkBaseInStructure* FindFirstIf(const void* chain, Pred&& pred) {
  for (auto* s = static_cast<const VkBaseInStructure*>(chain); s != nullptr; s = s->pNext) {
    if (pred(*s)) return s;
  }
  return nullptr;
}

// First struct of type `stype` in the chain starting at `chain`, or nullptr.
template <typename T>
const T* FindInChain(const void* chain, VkStructureType stype) {
  return reinterpret_cast<const T*>(FindFirstIf(chain, [stype](const VkBaseInStructure& s) { return s.sType == stype; }));
}

// Calls fn(const T&) for every struct of type `stype` in the chain.
template <typename T, typename Fn>
void ForEachInChain(const void* chain, VkStructureType stype, Fn&& fn) {
  FindFirstIf(chain, [&](const VkBaseInStructure& s) {
    if (s.sType == stype) fn(reinterpret_cast<const T&>(s));
    return false;
  });
}

}  // namespace bindery
