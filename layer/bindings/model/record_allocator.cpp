#include "bindings/model/record_allocator.h"

#include <algorithm>

namespace bindery::bindings {

RecordAllocator::RecordAllocator(uint32_t capacity) : capacity_(capacity) { Reset(); }

void RecordAllocator::Reset() {
  free_.clear();
  if (capacity_ != 0) free_.push_back({0, capacity_});
  free_total_ = capacity_;
}

RecordAllocator::Result RecordAllocator::Allocate(uint32_t count, uint32_t* first) {
  if (count == 0) {
    *first = 0;
    return Result::kOk;
  }
  for (size_t i = 0; i < free_.size(); ++i) {
    Run& run = free_[i];
    if (run.count < count) continue;
    *first = run.first;
    run.first += count;
    run.count -= count;
    if (run.count == 0) free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(i));
    free_total_ -= count;
    return Result::kOk;
  }
  return free_total_ >= count ? Result::kFragmented : Result::kOutOfPoolMemory;
}

void RecordAllocator::Free(uint32_t first, uint32_t count) {
  if (count == 0) return;
  auto it = std::lower_bound(free_.begin(), free_.end(), first, [](const Run& r, uint32_t f) { return r.first < f; });
  it = free_.insert(it, {first, count});
  free_total_ += count;
  // Merge with the next run, then with the previous one.
  auto next = it + 1;
  if (next != free_.end() && it->first + it->count == next->first) {
    it->count += next->count;
    free_.erase(next);
  }
  if (it != free_.begin()) {
    auto prev = it - 1;
    if (prev->first + prev->count == it->first) {
      prev->count += it->count;
      free_.erase(it);
    }
  }
}

}  // namespace bindery::bindings
