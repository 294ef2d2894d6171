// Large unaligned fills under every `bindery.fill_edges` order: the byte edges written by
// one dispatch before the native middle, after it in the same barrier bracket, after it
// in a bracket of its own, or copied from staging. A kernel order gives every device where
// kernels run NVIDIA's shape (the middle realigned to 256 bytes and filled natively), so
// each order runs here on any driver. Byte for byte against the CPU model, with canary
// bytes around every range, and ordered between the application's own transfers by its
// TRANSFER -> TRANSFER barriers only: validation (with synchronization validation) below
// the layer must stay silent.
#include <string>

#include "integration/transfer_model.h"

namespace bindery::test::transfer {
namespace {

constexpr uint64_t kBig = (16ull << 20) + 3;  // 16 MiB + 3 bytes
constexpr uint64_t kRegion = kBig + 125;     // room for an offset and canary bytes after

class TransferFillEdges : public ::testing::TestWithParam<const char*> {
 protected:
  static RigOptions Options() {
    RigOptions options;
    options.env.emplace_back("BINDERY_FILL_EDGES", GetParam());
    return options;
  }
  // Kernel orders ran a kernel (where the queue has compute); copy ran none and copied.
  static void ExpectEdgesAsAsked(const Summary& summary, bool compute_queue) {
    ASSERT_TRUE(summary.found) << "no BINDERY-summary message at device destruction";
    if (!summary.detailed) return;  // the counters are not in every summary
    std::printf("[ transfer ] fill_edges=%s: %s\n", GetParam(), summary.text.c_str());
    EXPECT_GT(summary.polyfilled, 0u) << summary.text;
    if (std::string(GetParam()) == "copy" || !compute_queue) {
      EXPECT_GT(summary.edge_copies, 0u) << summary.text;
    } else {
      EXPECT_GT(summary.kernels, 0u) << "no edge kernel ran: " << summary.text;
    }
  }
};

TEST_P(TransferFillEdges, Fill16MiBPlus3AtOffsets1And3) {
  Rig rig(kAuto, Options());
  ASSERT_TRUE(rig.ok()) << rig.error();
  const Summary summary = FillTwoAtOffsets1And3(rig, kBig, kRegion);
  ExpectEdgesAsAsked(summary, rig.compute_queue());
}

// An aligned fill, the unaligned fill over it, a copy of the result: each after a
// TRANSFER -> TRANSFER barrier, as an application orders transfers. The layer's own
// barriers must chain its dispatch into both (no hazard, the copy sees every byte), and
// the last reads see the copy through a barrier of transfer writes alone.
TEST_P(TransferFillEdges, OrderedBetweenTheApplicationsTransfers) {
  Rig rig(kAuto, Options());
  ASSERT_TRUE(rig.ok()) << rig.error();
  const uint64_t bytes = kRegion;
  auto [dst, model] = rig.Canary(bytes);
  HostBuffer out = rig.Buffer(bytes);
  ByteModel out_model = CanaryModel(out, bytes);

  VkCommandBuffer cb = rig.h().BeginCommands();
  vkCmdFillBuffer(cb, dst.buffer, 0, bytes & ~uint64_t{3}, 0x11111111u);
  model.Fill(0, bytes & ~uint64_t{3}, 0x11111111u);
  TransferToTransferBarrier(cb);
  vkCmdFillBuffer(cb, dst.buffer, 5, kBig, 0xC0FFEE42u);
  model.Fill(5, kBig, 0xC0FFEE42u);
  TransferToTransferBarrier(cb);
  const VkBufferCopy region{0, 0, bytes};
  vkCmdCopyBuffer(cb, dst.buffer, out.buffer, 1, &region);
  out_model.Copy(model.data(), 0, 0, bytes);
  Rig::TransferHostReadBarrier(cb);
  ASSERT_EQ(rig.h().SubmitAndWait(cb), VK_SUCCESS);
  EXPECT_TRUE(SameBytes(dst.mapped, model.data(), bytes)) << "the filled buffer";
  EXPECT_TRUE(SameBytes(out.mapped, out_model.data(), bytes)) << "its copy";
  const Summary summary = rig.Finish();
  EXPECT_VALIDATION_SILENT(rig.h());
  ExpectEdgesAsAsked(summary, rig.compute_queue());
}

INSTANTIATE_TEST_SUITE_P(Transfer, TransferFillEdges,
                         ::testing::Values("kernel-first", "kernel-last", "kernel-after", "copy"),
                         [](const ::testing::TestParamInfo<const char*>& param) {
                           std::string name = param.param;
                           for (char& c : name) c = c == '-' ? '_' : c;
                           return name;
                         });

}  // namespace
}  // namespace bindery::test::transfer
