// Carves a descriptor pool's argument-block memory into per-set runs of records:
// first fit over a sorted list of free runs. Distinguishes "not enough records left"
// (VK_ERROR_OUT_OF_POOL_MEMORY) from "enough in total, but not in one run"
// (VK_ERROR_FRAGMENTED_POOL), as vkAllocateDescriptorSets must. Not thread-safe: a pool
// is externally synchronised by the application.
#pragma once

#include <cstdint>
#include <vector>

namespace bindery::bindings {

class RecordAllocator {
 public:
  enum class Result { kOk, kOutOfPoolMemory, kFragmented };

  explicit RecordAllocator(uint32_t capacity);
  Result Allocate(uint32_t count, uint32_t* first);
  void Free(uint32_t first, uint32_t count);
  void Reset();
  uint32_t capacity() const { return capacity_; }
  uint32_t free_total() const { return free_total_; }

 private:
  struct Run {
    uint32_t first;
    uint32_t count;
  };
  uint32_t capacity_;
  uint32_t free_total_ = 0;
  std::vector<Run> free_;  // sorted by `first`, never adjacent
};

}  // namespace bindery::bindings
