// One run of a forced-vs-off comparison: the program runs on a fresh harness with indirect
// bindings in one mode, and the comparison then needs, besides what the program produced,
// whether the run could be made, what validation below the layer said, and the layer's
// per-device summary (counters such as "pipelines rewritten"). Every indirect-bindings
// test that compares modes starts and ends its runs here.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>

#include "support/scoped_env.h"
#include "support/vk_harness.h"

namespace bindery::test {

// What every run reports; a test's result type derives from it and adds its outputs.
struct ModeRunResult {
  std::string error;       // why the run could not be made (empty: it was)
  std::string validation;  // validation messages below the layer, formatted
  std::string summary;     // the layer's per-device summary line
};

// Runs `body(h, result)` with indirect bindings in `mode` ("off", "force", "auto") and the
// layer logging at info (where it writes the summary), on a harness made with `options`.
// When the harness cannot start, result.error says why and the body does not run.
// After the body (which destroys what it created) the device is destroyed, so the
// summary is complete, and validation and summary are read into the result.
template <typename Result, typename Body>
Result RunWithBindings(const char* mode, const HarnessOptions& options, Body&& body) {
  ScopedEnv bindings("BINDERY_INDIRECT_BINDINGS", mode);
  ScopedEnv level("BINDERY_LOG_LEVEL", "info");
  Result result;
  auto harness = std::make_unique<VkHarness>(options);
  VkHarness& h = *harness;
  if (!h.ok()) {
    result.error = h.error();
    return result;
  }
  std::forward<Body>(body)(h, result);
  h.DestroyDevice();
  result.validation = VkHarness::Format(h.ValidationProblems());
  result.summary = h.BinderySummary();
  return result;
}

// Expects each named counter of a per-device summary to be exactly its value (a failure
// names the counter and shows the whole summary).
inline void ExpectSummaryCounters(const std::string& summary,
                                  std::initializer_list<std::pair<const char*, uint64_t>> counters) {
  for (const auto& counter : counters) {
    EXPECT_EQ(SummaryCounter(summary, counter.first), counter.second) << counter.first << " in: " << summary;
  }
}

}  // namespace bindery::test
