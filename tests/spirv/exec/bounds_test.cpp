// Bounds checks (RewriteOptions::bounds_checks): records smaller than the buffers, so the
// rewritten shader's out-of-bounds reads must give 0 and its out-of-bounds writes and
// atomics must be dropped; the native run cannot serve as the reference here, so the
// expected bytes are computed on the CPU. Also the harness's own self-checks: the native
// path really computes, and a wrong argument block really shows up as a difference.
#include <gtest/gtest.h>

#include <cstring>

#include "compute_run.h"
#include "corpus_entry.h"
#include "exec_device.h"
#include "rewrite_case.h"

namespace bindery::spirv_exec {
namespace {

CorpusEntry Load(const std::string& file, std::vector<uint32_t>& module) {
  CorpusEntry e = ParseCorpusEntry(std::string(BINDERY_SPIRV_CORPUS_SRC) + "/" + file);
  std::string error;
  module = LoadSpirv(std::string(BINDERY_SPIRV_CORPUS_DIR) + "/" + file + ".spv", error);
  if (module.empty()) e.error = error;
  return e;
}

// A corpus shader and the shared device it runs on, as each test here starts.
struct Prepared {
  CorpusEntry e;
  std::vector<uint32_t> module;
  ExecDevice* device = nullptr;
};

// Loads `file` and takes the shared device (with or without shaderInt64) with its
// validation log emptied, so that what the log holds next is the test's own. A failure
// says which could not be had.
::testing::AssertionResult Prepare(const std::string& file, bool with_int64, Prepared& p) {
  p.e = Load(file, p.module);
  if (!p.e.error.empty()) return ::testing::AssertionFailure() << p.e.error;
  p.device = &SharedDevice(with_int64);
  if (!p.device->ok()) return ::testing::AssertionFailure() << p.device->error();
  p.device->TakeValidationProblems();
  return ::testing::AssertionSuccess();
}

uint32_t Word(const std::vector<uint8_t>& bytes, size_t index) {
  uint32_t v = 0;
  std::memcpy(&v, &bytes[index * 4], 4);
  return v;
}

TEST(HarnessSelfCheck, NativeRunComputesWhatTheShaderSays) {
  Prepared p;
  ASSERT_TRUE(Prepare("ssbo_copy.comp", true, p));
  ExecDevice& device = *p.device;
  RunOutput out = RunCompute(device, p.e, p.module, "main", nullptr, 0);
  ASSERT_TRUE(out.error.empty()) << out.error;
  for (uint32_t i = 0; i < 256; ++i) ASSERT_EQ(Word(out.buffers[1], i), i * 3u + 1u) << "dst[" << i << "]";
  EXPECT_EQ(device.TakeValidationProblems(), "");
}

// Swapping the two records of the rewritten ssbo_copy must change the output: the
// comparison is able to fail.
TEST(HarnessSelfCheck, WrongRecordsAreCaught) {
  Prepared p;
  ASSERT_TRUE(Prepare("ssbo_copy.comp", true, p));
  CorpusEntry& e = p.e;
  RewriteCase rc = RewriteAndCheck(e, p.module, Variant{true, false});
  if (!rc.skip.empty()) GTEST_SKIP() << rc.skip;
  ASSERT_TRUE(rc.error.empty()) << rc.error;
  ExecDevice& device = *p.device;
  // The reference: records as they should be.
  RunOutput good = RunCompute(device, e, p.module, "main", nullptr, 0);
  ASSERT_TRUE(good.error.empty()) << good.error;
  std::swap(e.buffers[0].binding, e.buffers[1].binding);  // source record now points at dst and back
  RunOutput bad = RunCompute(device, e, rc.result.module, "main", &rc.layout, rc.result.report.push_constant_end);
  ASSERT_TRUE(bad.error.empty()) << bad.error;
  EXPECT_NE(good.buffers[1], bad.buffers[0]) << "a swapped argument block went unnoticed";
  EXPECT_EQ(device.TakeValidationProblems(), "");
}

// The uvec2 variants run on a device without shaderInt64: a module that still declared
// Int64 there would be a validation error, as this one (the shader's own int64) is.
TEST(HarnessSelfCheck, NoInt64DeviceRejectsInt64) {
  Prepared p;
  ASSERT_TRUE(Prepare("storage_int64_values.comp", false, p));
  ExecDevice& device = *p.device;
  ASSERT_FALSE(device.features().int64);
  RunOutput out = RunCompute(device, p.e, p.module, "main", nullptr, 0);
  const std::string problems = device.TakeValidationProblems();
  EXPECT_NE(problems.find("Int64"), std::string::npos) << "no complaint about Int64 on the no-int64 device:\n"
                                                       << problems << out.error;
}

// The same shader with descriptors and with the app's own buffer_reference pointer, both
// native (no rewrite): the descriptor version must give what the CPU says (id.y = 2i + 1);
// when only the pointer version is wrong, the driver mishandles the pattern through
// PhysicalStorageBuffer pointers, and vec3_store_then_component_rmw.comp's @driverbug skip
// is justified (the test then skips, saying so).
TEST(DriverCheck, Vec3StoreThenComponentIncrement) {
  std::string pointer_wrong;
  for (const char* file : {"vec3_stores_descriptor.comp", "vec3_stores_app_pointer.comp"}) {
    Prepared p;
    ASSERT_TRUE(Prepare(file, true, p));
    ExecDevice& device = *p.device;
    RunOutput out = RunCompute(device, p.e, p.module, "main", nullptr, 0);
    ASSERT_TRUE(out.error.empty()) << out.error;
    EXPECT_EQ(device.TakeValidationProblems(), "");
    const bool pointer = std::string(file) == "vec3_stores_app_pointer.comp";
    for (uint32_t i = 0; i < 32; ++i) {
      const uint32_t got[3] = {Word(out.buffers[1], i * 8 + 4), Word(out.buffers[1], i * 8 + 5),
                               Word(out.buffers[1], i * 8 + 6)};
      const uint32_t want[3] = {i, 2 * i + 1, 3 * i};
      for (int c = 0; c < 3; ++c) {
        if (got[c] == want[c]) continue;
        const std::string what = std::string(file) + ": p[" + std::to_string(i) + "].id[" + std::to_string(c) +
                                  "] = " + std::to_string(got[c]) + ", expected " + std::to_string(want[c]);
        if (!pointer) ADD_FAILURE() << what;
        else if (pointer_wrong.empty()) pointer_wrong = what;
      }
    }
  }
  if (!pointer_wrong.empty()) GTEST_SKIP() << "driver bug through buffer_reference pointers: " << pointer_wrong;
}

class BoundsChecks : public testing::TestWithParam<bool> {};

TEST_P(BoundsChecks, ShortRecordsReadZeroAndDropWrites) {
  const bool int64 = GetParam();
  Prepared p;
  ASSERT_TRUE(Prepare("bounds_probe.comp", int64, p));
  CorpusEntry& e = p.e;
  // In: 25 of 64 words visible; Out: 32 of 64; Aux: length_seen + 14 counters (60 bytes).
  e.buffers[0].record_size = 100;
  e.buffers[1].record_size = 128;
  e.buffers[2].record_size = 60;
  RewriteCase rc = RewriteAndCheck(e, p.module, Variant{int64, true});
  if (!rc.skip.empty()) GTEST_SKIP() << rc.skip;
  ASSERT_TRUE(rc.error.empty()) << rc.error;
  ExecDevice& device = *p.device;
  RunOutput out = RunCompute(device, e, rc.result.module, "main", &rc.layout, rc.result.report.push_constant_end);
  ASSERT_TRUE(out.error.empty()) << out.error;
  EXPECT_EQ(device.TakeValidationProblems(), "");
  for (uint32_t i = 0; i < 64; ++i) {
    const uint32_t in = i < 25 ? i : 0;  // iota fill, zero beyond the record
    const uint32_t expected = i < 32 ? in + 100u : 0xffffffffu;  // write dropped: the fill stays
    EXPECT_EQ(Word(out.buffers[1], i), expected) << "out[" << i << "]";
  }
  EXPECT_EQ(Word(out.buffers[2], 0), 25u) << ".length() must come from the record's size";
  for (uint32_t i = 0; i < 63; ++i) {
    EXPECT_EQ(Word(out.buffers[2], 1 + i), i < 14 ? i + 1u : 0u) << "counters[" << i << "]";
  }
  // The input buffer is read-only: untouched.
  for (uint32_t i = 0; i < 64; ++i) EXPECT_EQ(Word(out.buffers[0], i), i);
}

INSTANTIATE_TEST_SUITE_P(Addresses, BoundsChecks, testing::Values(true, false),
                         [](const testing::TestParamInfo<bool>& p) { return p.param ? "int64" : "uvec2"; });

}  // namespace
}  // namespace bindery::spirv_exec
