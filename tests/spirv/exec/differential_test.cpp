// The rewrite proven by execution. Every corpus compute shader runs on
// lavapipe twice — the original with descriptors, the rewrite with hand-built argument
// blocks pointing at the same buffers — and every buffer must come back byte identical,
// under each option variant (addresses as uint64 / as uvec2 on a device without
// shaderInt64; bounds checks off / on; small sets' records in push constants instead of
// argument blocks). Every shader, graphics stages included, is also
// rewritten and checked with spirv-val under each variant (RewriteValidates).
#include <gtest/gtest.h>

#include <map>

#include "compute_run.h"
#include "corpus_entry.h"
#include "exec_device.h"
#include "rewrite_case.h"
#include "spirv_validate.h"

namespace bindery::spirv_exec {
namespace {

struct CaseParam {
  std::string path;
  std::string file;
  Variant variant;
};

void PrintTo(const CaseParam& p, std::ostream* os) { *os << p.file << " " << p.variant.Name(); }

std::vector<CaseParam> Cases(bool compute_only) {
  std::vector<CaseParam> out;
  for (const std::string& path : ListCorpus(BINDERY_SPIRV_CORPUS_SRC)) {
    CorpusEntry e = ParseCorpusEntry(path);
    if (compute_only && !e.IsCompute()) continue;
    for (bool int64 : {true, false}) {
      for (bool bounds : {false, true}) out.push_back({path, e.file, {int64, bounds}});
    }
    // Records in the root (small sets' records in push constants).
    out.push_back({path, e.file, {true, false, true}});
    out.push_back({path, e.file, {false, true, true}});
  }
  return out;
}

std::string CaseName(const testing::TestParamInfo<CaseParam>& info) {
  std::string name = info.param.file + "_" + info.param.variant.Name();
  for (char& c : name) {
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

// A case's corpus entry and its compiled shader, as every parameterized test starts;
// `error` says what could not be read (the entry, or the compiled module).
struct LoadedCase {
  CorpusEntry entry;
  std::vector<uint32_t> original;
  std::string error;
};

LoadedCase LoadCase(const CaseParam& p) {
  LoadedCase c;
  c.entry = ParseCorpusEntry(p.path);
  if (!c.entry.error.empty()) {
    c.error = c.entry.error;
    return c;
  }
  c.original = LoadSpirv(std::string(BINDERY_SPIRV_CORPUS_DIR) + "/" + c.entry.file + ".spv", c.error);
  if (c.original.empty() && c.error.empty()) c.error = "empty module: " + c.entry.file;
  return c;
}

// Where two runs' buffers first differ, for the failure message.
std::string Compare(const CorpusEntry& entry, const RunOutput& native, const RunOutput& rewritten) {
  std::string diff;
  for (size_t i = 0; i < entry.buffers.size(); ++i) {
    if (!entry.buffers[i].compare) continue;
    const auto& a = native.buffers[i];
    const auto& b = rewritten.buffers[i];
    for (size_t k = 0; k < a.size(); ++k) {
      if (a[k] == b[k]) continue;
      size_t count = 0;
      for (size_t j = k; j < a.size(); ++j) count += a[j] != b[j];
      diff += "buffer " + std::to_string(i) + " (set " + std::to_string(entry.buffers[i].set) + " binding " +
              std::to_string(entry.buffers[i].binding) + " index " + std::to_string(entry.buffers[i].index) +
              "): first difference at byte " + std::to_string(k) + " (native " + std::to_string(a[k]) +
              ", rewritten " + std::to_string(b[k]) + "), " + std::to_string(count) + " bytes differ\n";
      break;
    }
  }
  return diff;
}

// Native outputs do not depend on the variant: run each (file, entry point) once.
const RunOutput& NativeRun(ExecDevice& device, const CorpusEntry& entry, const std::vector<uint32_t>& module,
                           const std::string& entry_point) {
  static std::map<std::string, RunOutput> cache;
  const std::string key = entry.file + "/" + entry_point;
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, RunCompute(device, entry, module, entry_point, nullptr, 0)).first;
  return it->second;
}

class Differential : public testing::TestWithParam<CaseParam> {};

TEST_P(Differential, OutputsAreByteIdentical) {
  const CaseParam& p = GetParam();
  const LoadedCase c = LoadCase(p);
  ASSERT_TRUE(c.error.empty()) << c.error;
  const CorpusEntry& entry = c.entry;
  const std::string original_invalid = ValidateSpirv(c.original, entry.target, entry.Requires("scalar"));
  ASSERT_TRUE(original_invalid.empty()) << "the corpus shader itself is invalid:\n" << original_invalid;

  // The uvec2 variant runs on a device without shaderInt64, unless the shader needs it itself.
  const bool shader_needs_int64 = entry.Requires("int64") || entry.Requires("int64atomics");
  ExecDevice& device = SharedDevice(p.variant.int64 || shader_needs_int64);
  ASSERT_TRUE(device.ok()) << device.error();
  const std::string missing = device.Missing(entry);
  if (!missing.empty()) GTEST_SKIP() << "lavapipe lacks " << missing << " for " << entry.file;
  device.TakeValidationProblems();

  for (const std::string& ep : entry.entries) {
    const RunOutput& native = NativeRun(device, entry, c.original, ep);
    ASSERT_TRUE(native.error.empty()) << ep << ": native run: " << native.error;
  }
  std::string problems = device.TakeValidationProblems();
  ASSERT_TRUE(problems.empty()) << "validation, native run:\n" << problems;

  for (const std::string& ep : entry.entries) {
    // A module of several entry points is rewritten for each (each may have its own push constants).
    RewriteCase rc = RewriteAndCheck(entry, c.original, p.variant, RewriteEntryPoint(entry, ep));
    if (!rc.skip.empty()) GTEST_SKIP() << rc.skip << " (native run done, validation silent)";
    ASSERT_TRUE(rc.error.empty()) << ep << ": " << rc.error;
    if (entry.expect_not_converted) return;
    const RunOutput& native = NativeRun(device, entry, c.original, ep);
    RunOutput rewritten =
        RunCompute(device, entry, rc.result.module, ep, &rc.layout, rc.result.report.push_constant_end);
    ASSERT_TRUE(rewritten.error.empty()) << ep << ": rewritten run: " << rewritten.error;
    problems = device.TakeValidationProblems();
    ASSERT_TRUE(problems.empty()) << "validation, rewritten run:\n" << problems;
    const std::string diff = Compare(entry, native, rewritten);
    if (!diff.empty() && !entry.driver_bug.empty()) GTEST_SKIP() << "driver: " << entry.driver_bug << "\n" << diff;
    EXPECT_TRUE(diff.empty()) << ep << ":\n" << diff << rc.result.report.ToString();
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, Differential, testing::ValuesIn(Cases(true)), CaseName);

// Every shader (graphics stages and fixtures that do not run, too): the rewrite is valid
// SPIR-V for its target under every variant. No device needed.
class RewriteValidates : public testing::TestWithParam<CaseParam> {};

TEST_P(RewriteValidates, SpirvValAccepts) {
  const CaseParam& p = GetParam();
  const LoadedCase c = LoadCase(p);
  ASSERT_TRUE(c.error.empty()) << c.error;
  const CorpusEntry& entry = c.entry;
  for (const std::string& ep : entry.entries) {
    RewriteCase rc = RewriteAndCheck(entry, c.original, p.variant, RewriteEntryPoint(entry, ep));
    if (!rc.skip.empty()) GTEST_SKIP() << rc.skip;
    EXPECT_TRUE(rc.error.empty()) << ep << ": " << rc.error;
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, RewriteValidates, testing::ValuesIn(Cases(false)), CaseName);

// The corpus must stay what the rewrite was built against: at least 40 compute shaders, vertex and fragment
// stages, and every header readable.
TEST(CorpusShape, SizeAndStages) {
  int compute = 0, vertex = 0, fragment = 0;
  for (const std::string& path : ListCorpus(BINDERY_SPIRV_CORPUS_SRC)) {
    CorpusEntry e = ParseCorpusEntry(path);
    EXPECT_TRUE(e.error.empty()) << e.error;
    compute += e.IsCompute();
    vertex += e.stage == "vert";
    fragment += e.stage == "frag";
    if (e.IsCompute()) {
      EXPECT_FALSE(e.buffers.empty()) << e.file << " declares no @buffer";
    }
  }
  EXPECT_GE(compute, 40);
  EXPECT_GE(vertex, 1);
  EXPECT_GE(fragment, 1);
}

}  // namespace
}  // namespace bindery::spirv_exec
