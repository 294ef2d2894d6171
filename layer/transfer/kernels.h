// The compute kernels of the transfer polyfills (shaders/*.comp, embedded at build time)
// and the recipe for recording them inside an application's command buffer.
//
// Recipe (RecordKernels): suspend conditional rendering; barrier TRANSFER -> COMPUTE so
// the kernels chain after whatever transfer-scoped dependency the application recorded
// before its copy/fill; dispatch; barrier COMPUTE -> TRANSFER so the application's next
// transfer-scoped dependency chains after the kernels (and after any native transfer
// recorded alongside them inside the bracket); restore the application's compute
// pipeline, push constants and conditional rendering as they were sent down (the chassis's
// CommandState).
#pragma once

#include <cstdint>

#include <vulkan/vulkan.h>

#include "transfer/kernel_base.h"

namespace bindery {
class CommandState;
}

namespace bindery::transfer {

// kFillEdges: the byte edges of a fill (shaders/fill_edges.comp), one workgroup, its
// parameters all in the record (KernelJob below says where each goes).
enum class KernelKind { kFillVec4 = 0, kCopyVec4 = 1, kCopyShift = 2, kCopyRegions = 3, kFillEdges = 4, kCount = 5 };

// One entry of the region table kCopyRegions reads (shaders/copy_regions.comp).
struct RegionRecord {
  uint32_t src_word[2];
  uint32_t dst_word[2];
  uint32_t size;
  uint32_t src_shift;
  uint32_t dst_shift;
  uint32_t unused;
};
static_assert(sizeof(RegionRecord) == 32, "matches the std430 struct in copy_regions.comp");

// The table entry that copies `size` bytes from `src` to `dst` (any byte addresses).
inline RegionRecord MakeRegionRecord(uint64_t src, uint64_t dst, uint32_t size) {
  const uint64_t src_word = src & ~uint64_t{3}, dst_word = dst & ~uint64_t{3};
  return {{static_cast<uint32_t>(src_word), static_cast<uint32_t>(src_word >> 32)},
          {static_cast<uint32_t>(dst_word), static_cast<uint32_t>(dst_word >> 32)},
          size,
          static_cast<uint32_t>(src & 3),
          static_cast<uint32_t>(dst & 3),
          0};
}

// The parameter record every kernel dispatch reads (TransferParams in
// shaders/transfer_common.glsl), written into staging.
struct KernelParams {
  uint32_t dst[2];
  uint32_t src[2];
  uint32_t count;  // 16-byte blocks
  uint32_t value;  // fill pattern or shift in bits
  uint32_t unused[2];
};
static_assert(sizeof(KernelParams) == 32, "records stay 16-byte aligned in staging");

// Where a dispatch finds its record: base workgroup y and z (15 bits each) carry
// (block index << 18) | (offset in the block / 16); see transfer_common.glsl.
struct KernelParamsName {
  uint32_t base_y;
  uint32_t base_z;
};
inline KernelParamsName NameParams(uint32_t block_index, uint64_t offset_in_block) {
  const uint32_t code = (block_index << 18) | static_cast<uint32_t>(offset_in_block >> 4);
  return {code & 0x7FFFu, code >> 15};
}

struct KernelJob {
  KernelKind kind;
  uint64_t dst_address;  // kCopyRegions: the region table; kFillEdges: the head edge's first word
  uint64_t src_address;  // kFillEdges: the tail edge's first word
  uint64_t blocks;  // 16-byte blocks to write; kCopyRegions: regions in the table; kFillEdges: the head's span
  uint32_t value;   // fills: the pattern
  uint32_t extra = 0;  // kFillEdges: the tail's span (FillEdgeSpan)
};

// kFillEdges: an edge of `size` bytes from device address `address`, as the kernel reads it.
inline uint32_t FillEdgeSpan(uint64_t address, uint64_t size) {
  return static_cast<uint32_t>(address & 3u) | static_cast<uint32_t>(size << 2);
}

class Kernels : public KernelBase {
 public:
  Kernels(DeviceState& device, const VkLayerDispatchTable& next) : KernelBase(device, next) {}
  ~Kernels();

  // Builds the pipelines (at vkCreateDevice, off the application's recording thread);
  // false if that failed (the caller goes native). Parameter records come from `staging`
  // (which must have its block directory) through the TransferCommandData at
  // `command_data_slot` of each command buffer.
  bool Build(StagingPool& staging, uint32_t command_data_slot);

  // Records `jobs` with the barriers and state restoration described above. When staging
  // for the parameter records cannot be had, records nothing and the command buffer keeps
  // VK_ERROR_OUT_OF_DEVICE_MEMORY (vkEndCommandBuffer returns it).
  void Record(VkCommandBuffer cb, const CommandState& state, const KernelJob* jobs, uint32_t count) {
    Record(cb, state, jobs, count, nullptr, nullptr);
  }
  // The same, and calls `alongside(context)` inside the barrier bracket, after the
  // dispatches (or before them: `alongside_first`), for native transfer commands that
  // touch other bytes than the kernels: the leading TRANSFER -> COMPUTE barrier does not
  // hold them back and the trailing one comes after them, so they run beside the kernels
  // instead of after them (a realigned fill's middle beside the kernel writing its byte
  // edges).
  void Record(VkCommandBuffer cb, const CommandState& state, const KernelJob* jobs, uint32_t count,
              void (*alongside)(void*), void* context, bool alongside_first = false);

 private:
  VkShaderModule modules_[static_cast<int>(KernelKind::kCount)] = {};
  VkPipeline pipelines_[static_cast<int>(KernelKind::kCount)] = {};
};

}  // namespace bindery::transfer
