// Array indices 4 GiB into a buffer stay exact through the rewrite (with shaderInt64): the
// rewritten far_index_base.comp runs with its records moved back 4 GiB and a pushed base
// of 2^28 uvec4 elements (4 GiB), so every access lands on the words the native run (base 0)
// used only if the element's byte offset is formed in 64 bits. Lavapipe forms chain offsets
// in 64 bits anyway; what this proves anywhere is the emitted arithmetic (element 0's
// address plus index x stride in 64-bit integers), for records in argument blocks and in
// push constants. A 32-bit offset would wrap to 4 GiB before the buffer (a fault or a
// difference).
#include <gtest/gtest.h>

#include "compute_run.h"
#include "corpus_entry.h"
#include "exec_device.h"
#include "rewrite_case.h"
#include "wide_index_check.h"

namespace bindery::spirv_exec {
namespace {

constexpr int64_t kFourGiB = int64_t{1} << 32;
constexpr uint32_t kFourGiBOfUvec4 = 1u << 28;

class FarIndices : public testing::TestWithParam<bool> {};

TEST_P(FarIndices, AnIndexFourGiBInReachesTheSameWords) {
  const bool records_in_root = GetParam();
  CorpusEntry e = ParseCorpusEntry(std::string(BINDERY_SPIRV_CORPUS_SRC) + "/far_index_base.comp");
  ASSERT_TRUE(e.error.empty()) << e.error;
  std::string error;
  const std::vector<uint32_t> module =
      LoadSpirv(std::string(BINDERY_SPIRV_CORPUS_DIR) + "/far_index_base.comp.spv", error);
  ASSERT_FALSE(module.empty()) << error;
  ExecDevice& device = SharedDevice(true);
  ASSERT_TRUE(device.ok()) << device.error();
  device.TakeValidationProblems();

  RewriteCase rc = RewriteAndCheck(e, module, Variant{true, false, records_in_root});
  if (!rc.skip.empty()) GTEST_SKIP() << rc.skip;
  ASSERT_TRUE(rc.error.empty()) << rc.error;
  EXPECT_EQ(NarrowBufferIndex(rc.result.module, module), "");

  const RunOutput reference = RunCompute(device, e, module, "main", nullptr, 0);
  ASSERT_TRUE(reference.error.empty()) << reference.error;
  ASSERT_EQ(reference.buffers.size(), 2u);

  for (BufferSpec& b : e.buffers) b.record_bias = -kFourGiB;
  e.rewritten_push_words.push_back({0, kFourGiBOfUvec4});
  const RunOutput far = RunCompute(device, e, rc.result.module, "main", &rc.layout, rc.result.report.push_constant_end);
  ASSERT_TRUE(far.error.empty()) << far.error;
  EXPECT_EQ(far.buffers, reference.buffers) << "the words 4 GiB in are not the words at 0";
  EXPECT_EQ(device.TakeValidationProblems(), "");

  // The comparison can fail: the source's record one element off (reads v[i + 1]).
  e.buffers[0].record_bias = -kFourGiB + 16;
  const RunOutput shifted =
      RunCompute(device, e, rc.result.module, "main", &rc.layout, rc.result.report.push_constant_end);
  ASSERT_TRUE(shifted.error.empty()) << shifted.error;
  EXPECT_NE(shifted.buffers, reference.buffers) << "a record one element off went unnoticed";
  device.TakeValidationProblems();
}

INSTANTIATE_TEST_SUITE_P(Records, FarIndices, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& param) {
                           return param.param ? std::string("InPushConstants") : std::string("InArgumentBlocks");
                         });

}  // namespace
}  // namespace bindery::spirv_exec
