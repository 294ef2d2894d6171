// The SPIR-V corpus through the whole layer. Each eligible compute
// shader runs as an application would run it (set layouts, pool, sets, updates, binds,
// push constants; descriptors written by vkUpdateDescriptorSets or by a template), once with indirect_bindings=off and once forced, and every buffer must
// come back byte identical, with validation (synchronization validation on) silent below
// the layer. The forced run must really have rewritten the pipeline (the device summary
// counts it), so the comparison cannot pass by both runs being native.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>

#include "compute_run.h"
#include "corpus_entry.h"
#include "integration/test_env.h"
#include "layer_run.h"

namespace bindery::test {
namespace {

using spirv_exec::CorpusEntry;

struct CorpusCase {
  std::string path;
  std::string file;
  bool dynamic;
  bool whole_size;
  bool use_template = false;
  // bindings_root_split=on: the compute copy of the root after the graphics one (forced
  // on lavapipe, whose 128 bytes of push constants leave the split off under auto).
  bool root_split = false;
};

void PrintTo(const CorpusCase& c, std::ostream* os) { *os << c.file; }

// Shaders that need nothing the plain harness device lacks and that the pass converts.
bool Eligible(const CorpusEntry& e) {
  return e.error.empty() && e.IsCompute() && !e.dispatch_missing && e.requires_features.empty() && e.keep.empty() &&
         !e.expect_not_converted && e.push_addresses.empty() && e.addresses.empty() && !e.convert_ubo &&
         e.driver_bug.empty() &&
         // LocalSizeId needs maintenance4, which the plain harness device does not enable.
         e.target != "vulkan1.3";
}

bool SourceContains(const std::string& path, const std::string& needle) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str().find(needle) != std::string::npos;
}

std::vector<CorpusCase> Cases() {
  std::vector<CorpusCase> out;
  for (const std::string& path : spirv_exec::ListCorpus(BINDERY_SPIRV_CORPUS_SRC)) {
    const CorpusEntry e = spirv_exec::ParseCorpusEntry(path);
    if (!Eligible(e)) continue;
    out.push_back({path, e.file, false, true});
    out.push_back({path, e.file, false, false});
    out.push_back({path, e.file, true, false});
    out.push_back({path, e.file, false, true, true});
    out.push_back({path, e.file, false, true, false, true});
  }
  return out;
}

std::string CaseName(const testing::TestParamInfo<CorpusCase>& info) {
  std::string name = info.param.file + (info.param.root_split     ? "_split"
                                        : info.param.use_template ? "_template"
                                        : info.param.dynamic      ? "_dynamic"
                                        : info.param.whole_size   ? "_whole"
                                                                  : "_range");
  for (char& c : name) {
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

struct ModeRun : ModeRunResult {
  LayerRunOutput output;
};

ModeRun RunInMode(const char* mode, const CorpusEntry& entry, const std::vector<uint32_t>& module,
                  const std::string& entry_point, const LayerRunOptions& options) {
  ModeRun run = RunWithBindings<ModeRun>(mode, HarnessOptions{}, [&](VkHarness& h, ModeRun& r) {
    r.output = RunThroughLayer(h, entry, module, entry_point, options);
  });
  if (!run.error.empty()) run.output.error = "harness: " + run.error;
  return run;
}

class CorpusThroughLayer : public testing::TestWithParam<CorpusCase> {};

TEST_P(CorpusThroughLayer, ForcedMatchesNative) {
  const CorpusCase& c = GetParam();
  const CorpusEntry entry = spirv_exec::ParseCorpusEntry(c.path);
  // SPIR-V library gap: the rewrite subtracts a dynamic offset from the record's size, so
  // .length() of a dynamic storage buffer would differ from native: the layer runs such
  // pipelines natively (a fallback), which this case checks.
  const bool expect_fallback = c.dynamic && SourceContains(c.path, ".length()");
  std::string error;
  const std::vector<uint32_t> module =
      spirv_exec::LoadSpirv(std::string(BINDERY_SPIRV_CORPUS_DIR) + "/" + entry.file + ".spv", error);
  ASSERT_TRUE(error.empty()) << error;
  LayerRunOptions options;
  options.dynamic = c.dynamic;
  options.whole_size = c.whole_size;
  options.use_template = c.use_template;
  const std::vector<std::string> entries = entry.entries.empty() ? std::vector<std::string>{"main"} : entry.entries;
  for (const std::string& ep : entries) {
    SCOPED_TRACE("entry point " + ep);
    const ModeRun native = RunInMode("off", entry, module, ep, options);
    ScopedEnv split("BINDERY_BINDINGS_ROOT_SPLIT", c.root_split ? "on" : "auto");
    const ModeRun forced = RunInMode("force", entry, module, ep, options);
    ASSERT_TRUE(native.output.error.empty()) << native.output.error;
    ASSERT_TRUE(forced.output.error.empty()) << forced.output.error;
    EXPECT_TRUE(native.validation.empty()) << native.validation;
    EXPECT_TRUE(forced.validation.empty()) << forced.validation;
    EXPECT_NE(forced.summary.find(expect_fallback ? "pipelines rewritten 0, fallen back 1"
                                                  : "pipelines rewritten 1, fallen back 0"),
              std::string::npos)
        << forced.summary;
    ASSERT_EQ(native.output.buffers.size(), forced.output.buffers.size());
    for (size_t i = 0; i < native.output.buffers.size(); ++i) {
      if (!entry.buffers[i].compare) continue;
      EXPECT_EQ(native.output.buffers[i], forced.output.buffers[i])
          << "buffer " << i << " (set " << entry.buffers[i].set << " binding " << entry.buffers[i].binding << ")";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusThroughLayer, testing::ValuesIn(Cases()), CaseName);

}  // namespace
}  // namespace bindery::test
