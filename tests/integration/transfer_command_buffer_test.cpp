// Polyfilled transfers across command-buffer lifetimes: a SIMULTANEOUS_USE command
// buffer submitted three times, a command buffer reset and re-recorded with other
// offsets, and polyfills recorded into a secondary command buffer executed from a
// primary. Each round compares every destination byte with the CPU model; validation
// below the layer must stay silent.
//
// LayerOff records aligned variants of the same operations (fill/update offsets and
// sizes rounded to 4, update <= 65536): a baseline proving the tests' own
// synchronization is clean.
#include <algorithm>
#include <cstring>

#include "integration/transfer_model.h"

namespace bindery::test::transfer {
namespace {

constexpr uint64_t kBytes = (256 << 10) + 64;

// One fill, one update and one copy, each into its own buffer.
struct Ops {
  uint64_t fill_offset, fill_size;
  uint32_t fill_data;
  uint64_t update_offset, update_size;
  uint64_t copy_src, copy_dst, copy_size;
  uint32_t seed;
};

Ops Aligned(Ops ops) {
  auto down = [](uint64_t v) { return v & ~uint64_t{3}; };
  ops.fill_offset = down(ops.fill_offset);
  ops.fill_size = std::max<uint64_t>(4, down(ops.fill_size));
  ops.update_offset = down(ops.update_offset);
  ops.update_size = std::min<uint64_t>(down(ops.update_size), 65536);
  return ops;
}

const Ops kOpsA{1, 70001, 0x44332211u, 3, 1001, 1, 2, 100003, 11};
const Ops kOpsB{3, 50002, 0x5AC35AC3u, 6, 777, 3, 1, 99999, 12};
const Ops kOpsC{2, 3, 0xA5A5A5A5u, 1, 70000, 0, 0, 131072, 13};  // tiny fill, update > 64 KiB, aligned copy

struct Targets {
  HostBuffer fill, update, src, dst;
};

// The models of the four buffers after a round, given the bytes the source held.
struct Models {
  ByteModel fill{kBytes}, update{kBytes}, dst{kBytes};
};

class Recorder {
 public:
  Recorder(Rig& rig, const Config& config) : native_only_(config.NativeOnly()) {
    t_.fill = rig.Buffer(kBytes);
    t_.update = rig.Buffer(kBytes);
    t_.src = rig.Buffer(kBytes);
    t_.dst = rig.Buffer(kBytes);
  }

  // Records `ops` into `cb`; the update's host data is overwritten right after.
  void Record(VkCommandBuffer cb, Ops ops) {
    if (native_only_) ops = Aligned(ops);
    recorded_.push_back(ops);
    const std::vector<uint8_t> data = RandomBytes(ops.update_size, ops.seed);
    std::vector<uint8_t> host = data;
    host.push_back(0);
    vkCmdFillBuffer(cb, t_.fill.buffer, ops.fill_offset, ops.fill_size, ops.fill_data);
    vkCmdUpdateBuffer(cb, t_.update.buffer, ops.update_offset, ops.update_size, host.data());
    const VkBufferCopy region{ops.copy_src, ops.copy_dst, ops.copy_size};
    vkCmdCopyBuffer(cb, t_.src.buffer, t_.dst.buffer, 1, &region);
    std::memset(host.data(), 0x99, host.size());
  }

  // Host side before a submit: destinations back to canary, a new source.
  void Reset(uint32_t source_seed) {
    for (HostBuffer* b : {&t_.fill, &t_.update, &t_.dst}) WriteCanary(b->mapped, kBytes);
    source_ = RandomBytes(kBytes, source_seed);
    std::memcpy(t_.src.mapped, source_.data(), kBytes);
  }

  // Checks the destinations against what the ops recorded since `first` do.
  void Check(size_t first, const std::string& round) {
    Models m;
    for (size_t i = first; i < recorded_.size(); ++i) {
      const Ops& ops = recorded_[i];
      m.fill.Fill(ops.fill_offset, ops.fill_size, ops.fill_data);
      const std::vector<uint8_t> data = RandomBytes(ops.update_size, ops.seed);
      m.update.Update(ops.update_offset, data.data(), ops.update_size);
      m.dst.Copy(source_.data(), ops.copy_src, ops.copy_dst, ops.copy_size);
    }
    EXPECT_TRUE(SameBytes(t_.fill.mapped, m.fill.data(), kBytes)) << round << ": fill";
    EXPECT_TRUE(SameBytes(t_.update.mapped, m.update.data(), kBytes)) << round << ": update";
    EXPECT_TRUE(SameBytes(t_.dst.mapped, m.dst.data(), kBytes)) << round << ": copy";
  }

  size_t recorded() const { return recorded_.size(); }

 private:
  bool native_only_;
  Targets t_;
  std::vector<Ops> recorded_;
  std::vector<uint8_t> source_;
};

void Begin(VkCommandBuffer cb, VkCommandBufferUsageFlags flags,
           const VkCommandBufferInheritanceInfo* inheritance = nullptr) {
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = flags;
  begin.pInheritanceInfo = inheritance;
  ASSERT_EQ(vkBeginCommandBuffer(cb, &begin), VK_SUCCESS);
}

class TransferCommandBuffers : public ::testing::TestWithParam<Config> {};

TEST_P(TransferCommandBuffers, SimultaneousUseSubmittedThreeTimes) {
  const Config& config = GetParam();
  Rig rig(config);
  ASSERT_TRUE(rig.ok()) << rig.error();
  Recorder rec(rig, config);
  VkCommandBuffer cb = rig.Allocate();
  Begin(cb, VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT);
  rec.Record(cb, kOpsA);
  TransferToTransferBarrier(cb);  // C overlaps A's ranges
  rec.Record(cb, kOpsC);
  rig.HostReadBarrier(cb);
  ASSERT_EQ(vkEndCommandBuffer(cb), VK_SUCCESS);
  for (uint32_t round = 0; round < 3; ++round) {
    rec.Reset(100 + round);
    ASSERT_EQ(rig.Submit(cb, false), VK_SUCCESS);
    rec.Check(0, "submit " + std::to_string(round + 1));
  }
  const Summary summary = rig.Finish();
  EXPECT_VALIDATION_SILENT(rig.h());
  ExpectStrategyRan(config, summary, rig.compute_queue(), !config.NativeOnly(), true);
}

TEST_P(TransferCommandBuffers, ResetAndReRecordedWithOtherOffsets) {
  const Config& config = GetParam();
  Rig rig(config);
  ASSERT_TRUE(rig.ok()) << rig.error();
  Recorder rec(rig, config);
  VkCommandBuffer cb = rig.Allocate();
  const Ops rounds[] = {kOpsA, kOpsB, kOpsC, kOpsA};
  const VkCommandBufferResetFlags resets[] = {0, 0, VK_COMMAND_BUFFER_RESET_RELEASE_RESOURCES_BIT, 0};
  for (uint32_t round = 0; round < 4; ++round) {
    if (round > 0) {
      ASSERT_EQ(vkResetCommandBuffer(cb, resets[round]), VK_SUCCESS);
    }
    Begin(cb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
    const size_t first = rec.recorded();
    rec.Record(cb, rounds[round]);
    rig.HostReadBarrier(cb);
    rec.Reset(200 + round);
    ASSERT_EQ(rig.Submit(cb), VK_SUCCESS);
    rec.Check(first, "recording " + std::to_string(round + 1));
  }
  const Summary summary = rig.Finish();
  EXPECT_VALIDATION_SILENT(rig.h());
  ExpectStrategyRan(config, summary, rig.compute_queue(), !config.NativeOnly(), true);
}

TEST_P(TransferCommandBuffers, RecordedIntoSecondaries) {
  const Config& config = GetParam();
  Rig rig(config);
  ASSERT_TRUE(rig.ok()) << rig.error();
  Recorder rec(rig, config);
  VkCommandBufferInheritanceInfo inheritance{VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO};
  VkCommandBuffer secondaries[2] = {rig.Allocate(VK_COMMAND_BUFFER_LEVEL_SECONDARY),
                                    rig.Allocate(VK_COMMAND_BUFFER_LEVEL_SECONDARY)};
  // A in one secondary, C (overlapping A's ranges) in another, ordered by a barrier in the
  // primary between them.
  Begin(secondaries[0], VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, &inheritance);
  rec.Record(secondaries[0], kOpsA);
  ASSERT_EQ(vkEndCommandBuffer(secondaries[0]), VK_SUCCESS);
  Begin(secondaries[1], VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, &inheritance);
  rec.Record(secondaries[1], kOpsC);
  ASSERT_EQ(vkEndCommandBuffer(secondaries[1]), VK_SUCCESS);

  VkCommandBuffer primary = rig.Allocate();
  Begin(primary, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
  vkCmdExecuteCommands(primary, 1, &secondaries[0]);
  TransferToTransferBarrier(primary);
  vkCmdExecuteCommands(primary, 1, &secondaries[1]);
  rig.HostReadBarrier(primary);
  rec.Reset(300);
  ASSERT_EQ(rig.Submit(primary), VK_SUCCESS);
  rec.Check(0, "secondaries");
  const Summary summary = rig.Finish();
  EXPECT_VALIDATION_SILENT(rig.h());
  ExpectStrategyRan(config, summary, rig.compute_queue(), !config.NativeOnly(), true);
}

INSTANTIATE_TEST_SUITE_P(Transfer, TransferCommandBuffers,
                         ::testing::Values(kLayerOff, kForceNative, kForceCompute, kAuto), ConfigName);

}  // namespace
}  // namespace bindery::test::transfer
