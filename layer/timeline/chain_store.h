// Owned copies of pNext structs and of the arrays they point to, linked into one chain.
// Work the layer holds back (a parked present or submit batch) outlives the application's
// structs, so what must still reach the driver is copied here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include <vulkan/vulkan.h>

namespace bindery::timeline {

class ChainStore {
 public:
  ChainStore() = default;
  ChainStore(const ChainStore&) = delete;
  ChainStore& operator=(const ChainStore&) = delete;

  // The first copied struct (null while nothing was copied).
  const void* head() const { return head_; }

  // A copy of `s`, linked at the end of the chain (its pNext is rewritten).
  template <typename T>
  T* Append(const T& s) {
    return static_cast<T*>(AppendBytes(&s, sizeof(T)));
  }
  // A copy of the array a copied struct points to.
  template <typename T>
  const T* Keep(const T* data, uint32_t count) {
    if (data == nullptr || count == 0) return data;
    auto copy = std::make_unique<unsigned char[]>(sizeof(T) * count);
    std::memcpy(copy.get(), data, sizeof(T) * count);
    arrays_.push_back(std::move(copy));
    return reinterpret_cast<const T*>(arrays_.back().get());
  }

 private:
  void* AppendBytes(const void* s, std::size_t size) {
    auto copy = std::make_unique<unsigned char[]>(size);
    std::memcpy(copy.get(), s, size);
    auto* out = reinterpret_cast<VkBaseOutStructure*>(copy.get());
    out->pNext = nullptr;
    if (tail_ == nullptr) head_ = out;
    else tail_->pNext = out;
    tail_ = out;
    structs_.push_back(std::move(copy));
    return out;
  }

  std::vector<std::unique_ptr<unsigned char[]>> structs_;
  std::vector<std::unique_ptr<unsigned char[]>> arrays_;
  VkBaseOutStructure* head_ = nullptr;
  VkBaseOutStructure* tail_ = nullptr;
};

}  // namespace bindery::timeline
