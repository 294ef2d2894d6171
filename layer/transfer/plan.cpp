#include "transfer/plan.h"

namespace bindery::transfer {

Split SplitAligned(ByteRange range, uint64_t alignment, uint64_t bias) {
  Split s;
  const uint64_t start = bias + range.offset;
  const uint64_t end = start + range.size;
  const uint64_t aligned_start = (start + alignment - 1) / alignment * alignment;
  const uint64_t aligned_end = end / alignment * alignment;
  if (aligned_end <= aligned_start) {
    s.head = range;
    return s;
  }
  s.head = {range.offset, aligned_start - start};
  s.middle = {aligned_start - bias, aligned_end - aligned_start};
  s.tail = {aligned_end - bias, end - aligned_end};
  return s;
}

KernelCopy PlanKernelCopy(uint64_t src_address, uint64_t dst_address, uint64_t bytes) {
  KernelCopy k;
  k.dst_address = dst_address;
  k.bytes = bytes;
  k.src_word_address = src_address & ~uint64_t{3};
  k.shift_bits = static_cast<uint32_t>(8 * (src_address & 3));
  k.src_vec4_aligned = src_address % 16 == 0;
  return k;
}

}  // namespace bindery::transfer
