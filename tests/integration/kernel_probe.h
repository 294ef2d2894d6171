// An unaligned copy big enough that the compute strategy runs it as a kernel (src + 1 ->
// dst + 3, 256 KiB): tests record it between the application's state changes and its
// draws/dispatches to put a layer kernel there, then check its bytes.
#pragma once

#include <cstring>

#include "integration/transfer_model.h"

namespace bindery::test::transfer {

class KernelCopyProbe {
 public:
  static constexpr uint64_t kBytes = 256 << 10;

  explicit KernelCopyProbe(Rig& rig, uint32_t seed = 7)
      : src_(rig.Buffer(kBytes + 16)), dst_(rig.Buffer(kBytes + 16)), model_(kBytes + 16) {
    source_ = RandomBytes(kBytes + 16, seed);
    std::memcpy(src_.mapped, source_.data(), source_.size());
    WriteCanary(dst_.mapped, kBytes + 16);
  }

  // Records the copy with the transfer barriers an application would put around it
  // (earlier transfers -> it; it -> later transfers and host reads are the caller's).
  void Record(VkCommandBuffer cb) {
    const VkBufferCopy region{1, 3, kBytes - 8};
    vkCmdCopyBuffer(cb, src_.buffer, dst_.buffer, 1, &region);
    model_.Copy(source_.data(), region.srcOffset, region.dstOffset, region.size);
  }

  ::testing::AssertionResult Check() const { return SameBytes(dst_.mapped, model_.data(), kBytes + 16); }

 private:
  HostBuffer src_, dst_;
  ByteModel model_;
  std::vector<uint8_t> source_;
};

}  // namespace bindery::test::transfer
