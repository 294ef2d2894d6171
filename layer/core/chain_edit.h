// Changing one struct of a pNext chain the application owns, without writing to the
// application's memory (its structs may be const data in read-only pages).
//
// To change struct T in `head -> s1 -> s2 -> T -> s3`, every struct before T must be
// copied too (each one's pNext has to point at the copy of the next); structs after T are
// shared untouched. The prefix can only be copied when the layer knows each struct's
// size: KnownStructSize() knows every struct of the Vulkan headers the layer is built with
// (a table generated from their registry, vk.xml) and the loader's link infos. When the
// prefix holds a struct newer than those headers, the edit fails and the caller falls back.
// Adding a new struct never needs a copy: it goes at the front.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <vector>

#include <vulkan/vulkan.h>

namespace bindery {

// sizeof the struct with this sType, or 0 when the layer does not know it.
std::size_t KnownStructSize(VkStructureType stype);

class ChainEditor {
 public:
  // `first` is the chain to edit (the head struct's pNext).
  explicit ChainEditor(const void* first) : first_(first) {}

  // The edited chain to put in the head struct's pNext.
  const void* chain() const { return first_; }

  // Finds the first struct of type `stype`; nullptr if absent.
  const VkBaseInStructure* Find(VkStructureType stype) const;

  // Puts `s` (owned by the caller, outliving the call down) at the front.
  void Prepend(VkBaseOutStructure* s) {
    s->pNext = static_cast<VkBaseOutStructure*>(const_cast<void*>(first_));
    first_ = s;
  }

  // Returns a writable copy of the first struct of type `stype`, linked in place of the
  // original (prefix copied as explained above), or nullptr if absent or not copyable.
  template <typename T>
  T* Modify(VkStructureType stype) {
    return static_cast<T*>(ModifyStruct(stype, sizeof(T)));
  }
  // The same for a struct whose C type the caller does not name (size given).
  void* ModifyStruct(VkStructureType stype, std::size_t size);

  // Unlinks every struct of type `stype` (copying the structs before each, as for
  // ModifyStruct). False if one is preceded by a struct of unknown size (chain unchanged
  // for that one and any after it).
  bool Remove(VkStructureType stype);

 private:
  // The first struct of `stype` and the structs before it; false if absent or a struct
  // before it has a size the layer does not know (then nothing can be edited).
  bool FindWithCopyablePrefix(VkStructureType stype, const VkBaseInStructure** target,
                              std::vector<const VkBaseInStructure*>* prefix) const;
  // Makes the chain start with copies of `prefix`, the last one pointing at `tail`.
  void CopyPrefixOnto(const std::vector<const VkBaseInStructure*>& prefix, const void* tail);
  void* CopyStruct(const void* s, std::size_t size);

  const void* first_;
  std::vector<std::unique_ptr<unsigned char[]>> storage_;
};

}  // namespace bindery
