// Helpers for walking Vulkan pNext chains without knowing every struct.
#pragma once

#include <vulkan/vulkan.h>

namespace bindery {

// First struct of type `stype` in the chain starting at `chain`, or nullptr.
template <typename T>
const T* FindInChain(const void* chain, VkStructureType stype) {
  for (auto* s = static_cast<const VkBaseInStructure*>(chain); s != nullptr; s = s->pNext) {
    if (s->sType == stype) return reinterpret_cast<const T*>(s);
  }
  return nullptr;
}

// Calls fn(const T&) for every struct of type `stype` in the chain.
template <typename T, typename Fn>
void ForEachInChain(const void* chain, VkStructureType stype, Fn&& fn) {
  for (auto* s = static_cast<const VkBaseInStructure*>(chain); s != nullptr; s = s->pNext) {
    if (s->sType == stype) fn(*reinterpret_cast<const T*>(s));
  }
}

}  // namespace bindery
