// Pure arithmetic of the transfer polyfills: how a fill, update or copy at arbitrary
// byte offsets splits into an aligned middle (native command or compute kernel) and
// short edges (copied from a staging block, or copied natively). No Vulkan calls here,
// so all of it is unit-tested without a GPU.
#pragma once

#include <cstdint>

namespace bindery::transfer {

struct ByteRange {
  uint64_t offset = 0;
  uint64_t size = 0;
  uint64_t end() const { return offset + size; }
  bool empty() const { return size == 0; }
};

// Byte `absolute` of a fill of `data` that starts at `fill_offset` (vkCmdFillBuffer
// semantics: byte fill_offset + i is byte i % 4 of data, little-endian).
inline uint8_t FillByteAt(uint32_t data, uint64_t fill_offset, uint64_t absolute) {
  return static_cast<uint8_t>(data >> (8 * ((absolute - fill_offset) % 4)));
}

// The 32-bit pattern to fill a word-aligned range starting at `absolute` with, so that
// it continues a fill of `data` begun at `fill_offset`.
inline uint32_t RotatedPattern(uint32_t data, uint64_t fill_offset, uint64_t absolute) {
  const uint32_t shift = static_cast<uint32_t>(8 * ((absolute - fill_offset) % 4));
  return shift == 0 ? data : (data >> shift) | (data << (32 - shift));
}

// A range split at `alignment` boundaries of (bias + offset): `middle` starts and ends on
// such a boundary; `head` and `tail` are the bytes before and after it (each shorter
// than `alignment`). When no whole aligned block fits, everything is in `head`.
// bias lets callers align device addresses (bias = buffer address) rather than offsets.
struct Split {
  ByteRange head;
  ByteRange middle;
  ByteRange tail;
};
Split SplitAligned(ByteRange range, uint64_t alignment, uint64_t bias = 0);

// Native vkCmdFillBuffer / vkCmdUpdateBuffer rules (VUID-vkCmdFillBuffer-dstOffset-00025,
// -size-00028, VUID-vkCmdUpdateBuffer-dstOffset-00036, -dataSize-00037, -00038).
inline bool NativeFillAllowed(uint64_t offset, uint64_t size) { return offset % 4 == 0 && size % 4 == 0 && size > 0; }
inline bool NativeUpdateAllowed(uint64_t offset, uint64_t size) {
  return offset % 4 == 0 && size % 4 == 0 && size > 0 && size <= 65536;
}

// Resolves VK_WHOLE_SIZE (to the end of the buffer, not rounded down) and clamps
// nothing else: returns the byte count the fill covers.
inline uint64_t ResolveFillSize(uint64_t buffer_size, uint64_t offset, uint64_t size) {
  constexpr uint64_t kWholeSize = ~0ull;
  if (size != kWholeSize) return size;
  return offset >= buffer_size ? 0 : buffer_size - offset;
}

// A copy's middle, as the shifting kernel needs it: destination 16-byte aligned (by
// address), source read as 32-bit words from `src_word_address` shifted right by
// `shift_bits`.
struct KernelCopy {
  uint64_t dst_address = 0;
  uint64_t src_word_address = 0;
  uint32_t shift_bits = 0;  // 0, 8, 16 or 24
  uint64_t bytes = 0;       // multiple of 16
  bool src_vec4_aligned = false;
};
KernelCopy PlanKernelCopy(uint64_t src_address, uint64_t dst_address, uint64_t bytes);

}  // namespace bindery::transfer
