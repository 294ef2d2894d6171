#include "transfer_checks.h"

#include <cstdio>
#include <cstring>
#include <string>

namespace bindery::bench {
namespace {

constexpr uint64_t kC = kCheckBytes;
constexpr uint32_t kFillData = 0xA1B2C3D4u;
constexpr uint64_t kUpdateChunk = 65536;  // the most one native vkCmdUpdateBuffer takes

// Source bytes: not periodic with any small period, so a copy that is off by a few bytes
// or shifts the wrong way shows.
uint8_t Pattern(uint64_t i) { return static_cast<uint8_t>(i * 7 + (i >> 8) * 13 + (i >> 16) * 29 + 0x35); }

struct Op {
  TransferOp kind;
  uint64_t src_offset;  // copies: into the source buffer; updates: into the update data
  uint64_t dst_offset;
  uint64_t size;
};

class Checker {
 public:
  explicit Checker(TransferDevice& d) : d_(d) {}
  ~Checker() {
    if (host_.buffer != VK_NULL_HANDLE) d_.harness().Destroy(host_);
  }
  Checker(const Checker&) = delete;
  Checker& operator=(const Checker&) = delete;

  std::string Init() {
    source_.resize(kC);
    for (uint64_t i = 0; i < kC; ++i) source_[i] = Pattern(i);
    update_data_.resize(256);
    for (uint64_t i = 0; i < update_data_.size(); ++i) update_data_[i] = static_cast<uint8_t>(~Pattern(i * 3 + 1));
    zeros_.assign(kC, 0);
    host_ = d_.harness().CreateHostBuffer(kC, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    if (host_.buffer == VK_NULL_HANDLE || host_.mapped == nullptr) return "could not create a host-visible buffer";
    // The source pattern goes in through aligned vkCmdUpdateBuffer, which every
    // configuration passes to the driver unchanged.
    if (d_.Begin(true) != VK_SUCCESS) return "vkBeginCommandBuffer failed";
    d_.Barrier();
    Upload(d_.src().buffer, source_.data());
    d_.Barrier();
    if (d_.End() != VK_SUCCESS) return "vkEndCommandBuffer failed";
    return d_.SubmitAndWait();
  }

  // Zeroes (or, with `pattern_first`, fills with the source pattern) dst[0, kC), records
  // `ops`, reads dst[0, kC) back and compares with what the ops should have written.
  CheckResult Run(const char* name, const std::vector<Op>& ops, bool pattern_first = false) {
    CheckResult result;
    result.name = name;
    const TransferFns& fn = d_.fn();
    const VkCommandBuffer cb = d_.command_buffer();
    if (d_.Begin(true) != VK_SUCCESS) {
      result.detail = "vkBeginCommandBuffer failed";
      return result;
    }
    d_.Barrier();
    Upload(d_.dst().buffer, pattern_first ? source_.data() : zeros_.data());
    d_.Barrier();
    std::vector<uint8_t> expected = pattern_first ? source_ : zeros_;
    for (const Op& op : ops) {
      switch (op.kind) {
        case TransferOp::kFill:
          fn.CmdFillBuffer(cb, d_.dst().buffer, op.dst_offset, op.size, kFillData);
          for (uint64_t i = 0; i < op.size; ++i) {
            expected[op.dst_offset + i] = static_cast<uint8_t>(kFillData >> (8 * (i % 4)));
          }
          break;
        case TransferOp::kCopy: {
          const VkBufferCopy region{op.src_offset, op.dst_offset, op.size};
          fn.CmdCopyBuffer(cb, d_.src().buffer, d_.dst().buffer, 1, &region);
          std::memcpy(&expected[op.dst_offset], &source_[op.src_offset], op.size);
          break;
        }
        case TransferOp::kUpdate:
          fn.CmdUpdateBuffer(cb, d_.dst().buffer, op.dst_offset, op.size, &update_data_[op.src_offset]);
          std::memcpy(&expected[op.dst_offset], &update_data_[op.src_offset], op.size);
          break;
      }
    }
    d_.Barrier();
    const VkBufferCopy readback{0, 0, kC};
    fn.CmdCopyBuffer(cb, d_.dst().buffer, host_.buffer, 1, &readback);
    d_.BarrierToHost();
    if (d_.End() != VK_SUCCESS) {
      result.detail = "vkEndCommandBuffer failed";
      return result;
    }
    const std::string error = d_.SubmitAndWait();
    if (!error.empty()) {
      result.detail = error;
      return result;
    }
    const auto* got = static_cast<const uint8_t*>(host_.mapped);
    uint64_t wrong = 0, first = 0, last = 0;
    for (uint64_t i = 0; i < kC; ++i) {
      if (got[i] == expected[i]) continue;
      if (wrong++ == 0) first = i;
      last = i;
    }
    if (wrong == 0) {
      result.ok = true;
      return result;
    }
    char buf[256];
    std::snprintf(buf, sizeof(buf), "%llu of %llu bytes wrong in [%llu, %llu]; byte %llu: expected 0x%02x, got 0x%02x",
                  static_cast<unsigned long long>(wrong), static_cast<unsigned long long>(kC),
                  static_cast<unsigned long long>(first), static_cast<unsigned long long>(last),
                  static_cast<unsigned long long>(first), expected[first], got[first]);
    result.detail = buf;
    return result;
  }

 private:
  void Upload(VkBuffer buffer, const uint8_t* data) {
    for (uint64_t at = 0; at < kC; at += kUpdateChunk) {
      const uint64_t n = kC - at < kUpdateChunk ? kC - at : kUpdateChunk;
      d_.fn().CmdUpdateBuffer(d_.command_buffer(), buffer, at, n, data + at);
    }
  }

  TransferDevice& d_;
  test::HostBuffer host_;
  std::vector<uint8_t> source_;
  std::vector<uint8_t> update_data_;
  std::vector<uint8_t> zeros_;
};

}  // namespace

std::vector<CheckResult> CheckTransfers(TransferDevice& device) {
  std::vector<CheckResult> results;
  Checker checker(device);
  const std::string error = checker.Init();
  if (!error.empty()) {
    results.push_back({"set-up", false, error});
    return results;
  }
  // The read-back path itself (an aligned copy): if it is wrong, nothing else can be judged.
  results.push_back(checker.Run("aligned copy (read-back)", {}, true));
  if (!results.back().ok) return results;
  results.push_back(checker.Run("fill aligned", {{TransferOp::kFill, 0, 4, kC - 8}}));
  results.push_back(checker.Run("copy aligned", {{TransferOp::kCopy, 16, 32, kC - 64}}));
  results.push_back(checker.Run("copy unaligned", {{TransferOp::kCopy, 1, 3, kC - 4}}));
  results.push_back(checker.Run("copy unaligned 2", {{TransferOp::kCopy, 6, 1, kC - 8}}));
  if (!UsesBindery(device.config())) return results;
  results.push_back(checker.Run("fill unaligned", {{TransferOp::kFill, 0, 1, kC - 2}}));
  results.push_back(checker.Run(
      "fill unaligned small",
      {{TransferOp::kFill, 0, 4097, 2}, {TransferOp::kFill, 0, 8195, 7}, {TransferOp::kFill, 0, 12289, 63}}));
  results.push_back(checker.Run(
      "update unaligned",
      {{TransferOp::kUpdate, 0, 4097, 63}, {TransferOp::kUpdate, 64, 8194, 5}, {TransferOp::kUpdate, 80, 12291, 130}}));
  return results;
}

}  // namespace bindery::bench
