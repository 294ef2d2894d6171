// Transfers at any byte, exhaustively for small ranges: every dstOffset 0..7 x size
// 0..33 for vkCmdFillBuffer (three patterns) and vkCmdUpdateBuffer, every src x dst
// offset 0..7 x a set of sizes for vkCmdCopyBuffer / vkCmdCopyBuffer2. Each case owns a
// slot of one big canary-filled buffer, so one command buffer and one submit cover all
// of them (distinct slots: no hazards between cases), and the result is compared byte
// for byte with the CPU model. Runs on every kind of queue family that can transfer.
//
// The fill and update runs also run with a TRANSFER -> TRANSFER barrier after every case.
//
// Configurations: LayerOff / TransfersOff record only the calls Vulkan allows natively
// (the differential baseline: the driver agrees with the model); ForceNative,
// ForceCompute and Auto record every case, and the layer's summary must show that the
// strategy under test ran. Validation below the layer must stay silent everywhere.
//
// The host reads after a TRANSFER -> HOST barrier only, as an application that records
// nothing but transfers does: the layer's kernels must make their writes visible through
// it (their closing COMPUTE -> TRANSFER barrier chains into it).
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "integration/transfer_model.h"

namespace bindery::test::transfer {
namespace {

constexpr uint32_t kPatterns[] = {0xA5A5A5A5u, 0x5AC35AC3u, 0x44332211u};
constexpr uint64_t kSmallSlot = 64;  // >= max offset 7 + max size 33, and a canary gap
constexpr uint64_t kCopySlot = 128;  // >= max offset 7 + max size 100
constexpr uint64_t kCopySizes[] = {1, 3, 4, 5, 15, 16, 17, 33, 100};

bool Aligned4(uint64_t v) { return v % 4 == 0; }

std::string SlotName(uint64_t byte, uint64_t slot_size, const std::vector<std::string>& names) {
  const uint64_t slot = byte / slot_size;
  const std::string rel = "byte " + std::to_string(byte % slot_size) + " of the slot";
  return slot < names.size() ? names[slot] + ", " + rel : "past the last slot";
}

// Runs `body` once per kind of queue family that can transfer, on its first family.
template <typename Body>
void ForEachFamily(const Config& config, const char* test, Body body) {
  const std::vector<Family> families = TransferFamilies();
  ASSERT_FALSE(families.empty()) << "no queue family";
  for (const Family& family : families) {
    SCOPED_TRACE("queue family " + std::to_string(family.index) + " (" + family.kind + ")");
    std::printf("[ transfer ] %s/%s: ran on queue family %u (%s)\n", test, config.name, family.index,
                family.kind.c_str());
    body(family);
  }
}

class TransferExhaustive : public ::testing::TestWithParam<Config> {};

// The end of a fill or update run (one slot of kSmallSlot bytes per case): submits `cb`,
// compares every byte with the model, and checks validation and the strategy that ran.
void CheckSmallWrites(Rig& rig, VkCommandBuffer cb, const HostBuffer& dst, const ByteModel& model,
                      const std::vector<std::string>& names, const Config& config, const Family& family) {
  ASSERT_EQ(rig.h().SubmitAndWait(cb), VK_SUCCESS);
  EXPECT_TRUE(SameBytes(dst.mapped, model.data(), model.size(),
                        [&](uint64_t b) { return SlotName(b, kSmallSlot, names); }));
  const Summary summary = rig.Finish();
  EXPECT_VALIDATION_SILENT(rig.h());
  ExpectStrategyRan(config, summary, family.HasCompute(), !config.NativeOnly(), true);
}

// `barriers`: a TRANSFER -> TRANSFER barrier after every case, as an application that orders
// each write before the next command records it (where small writes are coalesced, they wait
// past those barriers: transfer/transfer_only_barriers.h).
void RunFills(const Config& config, bool barriers) {
  struct Case {
    uint64_t offset, size;
    uint32_t data;
  };
  std::vector<Case> cases;
  std::vector<std::string> names;
  for (uint32_t data : kPatterns) {
    for (uint64_t offset = 0; offset < 8; ++offset) {
      for (uint64_t size = 0; size <= 33; ++size) {
        if (config.NativeOnly() && !(Aligned4(offset) && Aligned4(size) && size > 0)) continue;
        cases.push_back({offset, size, data});
        char name[96];
        std::snprintf(name, sizeof(name), "fill offset %" PRIu64 " size %" PRIu64 " data 0x%08x", offset, size, data);
        names.push_back(name);
      }
    }
  }
  ForEachFamily(config, "Fill", [&](const Family& family) {
    Rig rig(config, family.index);
    ASSERT_TRUE(rig.ok()) << rig.error();
    const uint64_t bytes = cases.size() * kSmallSlot;
    auto [dst, model] = rig.Canary(bytes);

    VkCommandBuffer cb = rig.h().BeginCommands();
    for (size_t i = 0; i < cases.size(); ++i) {
      const uint64_t at = i * kSmallSlot + cases[i].offset;
      vkCmdFillBuffer(cb, dst.buffer, at, cases[i].size, cases[i].data);
      model.Fill(at, cases[i].size, cases[i].data);
      if (barriers) TransferToTransferBarrier(cb);
    }
    Rig::TransferHostReadBarrier(cb);  // names no compute stage: the kernels chain into it
    CheckSmallWrites(rig, cb, dst, model, names, config, family);
  });
}

TEST_P(TransferExhaustive, FillEveryOffsetSizeAndPattern) { RunFills(GetParam(), false); }

TEST_P(TransferExhaustive, FillEveryOffsetSizeAndPatternBehindBarriers) { RunFills(GetParam(), true); }

void RunUpdates(const Config& config, bool barriers) {
  struct Case {
    uint64_t offset, size;
    std::vector<uint8_t> data;
  };
  std::vector<Case> cases;
  std::vector<std::string> names;
  uint32_t seed = 1;
  for (uint64_t offset = 0; offset < 8; ++offset) {
    for (uint64_t size = 0; size <= 33; ++size) {
      if (config.NativeOnly() && !(Aligned4(offset) && Aligned4(size) && size > 0)) continue;
      cases.push_back({offset, size, RandomBytes(size, seed++)});
      names.push_back("update offset " + std::to_string(offset) + " size " + std::to_string(size));
    }
  }
  ForEachFamily(config, "Update", [&](const Family& family) {
    Rig rig(config, family.index);
    ASSERT_TRUE(rig.ok()) << rig.error();
    const uint64_t bytes = cases.size() * kSmallSlot;
    auto [dst, model] = rig.Canary(bytes);

    // The host arrays the calls read from; overwritten after recording, before submit:
    // vkCmdUpdateBuffer takes its data at record time.
    std::vector<std::vector<uint8_t>> host(cases.size());
    VkCommandBuffer cb = rig.h().BeginCommands();
    for (size_t i = 0; i < cases.size(); ++i) {
      host[i] = cases[i].data;
      host[i].push_back(0);  // a valid pointer even for size 0
      const uint64_t at = i * kSmallSlot + cases[i].offset;
      vkCmdUpdateBuffer(cb, dst.buffer, at, cases[i].size, host[i].data());
      model.Update(at, cases[i].data.data(), cases[i].size);
      if (barriers) TransferToTransferBarrier(cb);
    }
    Rig::TransferHostReadBarrier(cb);  // names no compute stage: the kernels chain into it
    for (auto& h : host) std::memset(h.data(), 0x99, h.size());
    CheckSmallWrites(rig, cb, dst, model, names, config, family);
  });
}

TEST_P(TransferExhaustive, UpdateEveryOffsetAndSize) { RunUpdates(GetParam(), false); }

TEST_P(TransferExhaustive, UpdateEveryOffsetAndSizeBehindBarriers) { RunUpdates(GetParam(), true); }

struct CopyCase {
  uint64_t src_offset, dst_offset, size;
};

std::vector<CopyCase> CopyCases(std::vector<std::string>* names) {
  std::vector<CopyCase> cases;
  for (uint64_t src = 0; src < 8; ++src) {
    for (uint64_t dst = 0; dst < 8; ++dst) {
      for (uint64_t size : kCopySizes) {
        cases.push_back({src, dst, size});
        names->push_back("copy src+" + std::to_string(src) + " dst+" + std::to_string(dst) + " size " +
                         std::to_string(size));
      }
    }
  }
  return cases;
}

// `use_copy2`: one vkCmdCopyBuffer2 per case; else one vkCmdCopyBuffer per source
// offset carrying all of its regions (aligned and unaligned mixed in one call).
void RunCopies(const Config& config, bool use_copy2) {
  std::vector<std::string> names;
  const std::vector<CopyCase> cases = CopyCases(&names);
  ForEachFamily(config, use_copy2 ? "Copy2" : "Copy", [&](const Family& family) {
    Rig rig(config, family.index);
    ASSERT_TRUE(rig.ok()) << rig.error();
    const uint64_t bytes = cases.size() * kCopySlot;
    auto [src, dst, src_bytes, model] = rig.Copy(bytes, use_copy2 ? 77 : 78);

    VkCommandBuffer cb = rig.h().BeginCommands();
    std::vector<VkBufferCopy> regions;
    for (size_t i = 0; i < cases.size(); ++i) {
      const VkBufferCopy region{i * kCopySlot + cases[i].src_offset, i * kCopySlot + cases[i].dst_offset,
                                cases[i].size};
      model.Copy(src_bytes.data(), region.srcOffset, region.dstOffset, region.size);
      if (use_copy2) {
        CopyBuffer2(cb, src.buffer, dst.buffer, region);
      } else {
        regions.push_back(region);
        const bool last_of_src_offset = i + 1 == cases.size() || cases[i + 1].src_offset != cases[i].src_offset;
        if (last_of_src_offset) {
          vkCmdCopyBuffer(cb, src.buffer, dst.buffer, static_cast<uint32_t>(regions.size()), regions.data());
          regions.clear();
        }
      }
    }
    Rig::TransferHostReadBarrier(cb);  // names no compute stage: the kernels chain into it
    ASSERT_EQ(rig.h().SubmitAndWait(cb), VK_SUCCESS);
    EXPECT_TRUE(SameBytes(dst.mapped, model.data(), bytes,
                          [&](uint64_t b) { return SlotName(b, kCopySlot, names); }));
    EXPECT_TRUE(SameBytes(src.mapped, src_bytes.data(), bytes)) << "the source changed";
    const Summary summary = rig.Finish();
    EXPECT_VALIDATION_SILENT(rig.h());
    ExpectStrategyRan(config, summary, family.HasCompute(), false, false);
  });
}

TEST_P(TransferExhaustive, CopyEverySrcAndDstOffset) { RunCopies(GetParam(), false); }

TEST_P(TransferExhaustive, Copy2EverySrcAndDstOffset) { RunCopies(GetParam(), true); }

INSTANTIATE_TEST_SUITE_P(Transfer, TransferExhaustive,
                         ::testing::Values(kLayerOff, kTransfersOff, kForceNative, kForceCompute, kAuto), ConfigName);

}  // namespace
}  // namespace bindery::test::transfer
