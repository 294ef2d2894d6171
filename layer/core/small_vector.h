// A vector whose first N elements live inside it (on the caller's stack for a local):
// per-call scratch of paths that must not allocate in the common case (pipeline creation
// from the rewrite cache: one pipeline per call, one stage) and stay correct for any count.
// Only what those paths need: default-constructible, move-assignable elements.
#pragma once

#include <array>
#include <cstddef>
#include <utility>
#include <vector>

namespace bindery {

template <typename T, std::size_t N>
class SmallVector {
 public:
  SmallVector() = default;
  // `count` value-initialised elements.
  explicit SmallVector(std::size_t count) { resize(count); }
  // A copy of [first, first + count).
  SmallVector(const T* first, std::size_t count) {
    if (count <= N) {
      for (std::size_t i = 0; i < count; ++i) inline_[i] = first[i];
    } else {
      heap_.assign(first, first + count);
      on_heap_ = true;
    }
    size_ = count;
  }
  SmallVector(const SmallVector&) = delete;
  SmallVector& operator=(const SmallVector&) = delete;

  void push_back(T value) {
    if (!on_heap_ && size_ == N) SpillToHeap(N + 1);
    if (on_heap_) {
      heap_.push_back(std::move(value));
    } else {
      inline_[size_] = std::move(value);
    }
    ++size_;
  }
  // Grows or shrinks to `count`; new elements are value-initialised.
  void resize(std::size_t count) {
    if (!on_heap_ && count > N) SpillToHeap(count);
    if (on_heap_) {
      heap_.resize(count);
    } else {
      for (std::size_t i = count; i < size_; ++i) inline_[i] = T{};  // released now
      for (std::size_t i = size_; i < count; ++i) inline_[i] = T{};
    }
    size_ = count;
  }
  void clear() { resize(0); }

  T* data() { return on_heap_ ? heap_.data() : inline_.data(); }
  const T* data() const { return on_heap_ ? heap_.data() : inline_.data(); }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](std::size_t i) { return data()[i]; }
  const T& operator[](std::size_t i) const { return data()[i]; }
  T& back() { return data()[size_ - 1]; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }

 private:
  // Moves the inline elements to the heap (reserving for `capacity`); from then on the
  // heap holds them all.
  void SpillToHeap(std::size_t capacity) {
    heap_.reserve(capacity);
    for (std::size_t i = 0; i < size_; ++i) {
      heap_.push_back(std::move(inline_[i]));
      inline_[i] = T{};
    }
    on_heap_ = true;
  }

  std::array<T, N> inline_{};
  std::vector<T> heap_;
  std::size_t size_ = 0;
  bool on_heap_ = false;
};

}  // namespace bindery
