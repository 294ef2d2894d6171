// What the demo programs print at the end: the validation messages the harness caught
// (validation sits below every other layer) and a one-line verdict that scripts/demo reads.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "support/vk_harness.h"

namespace bindery::demo {

// Prints the validation messages caught since the last call (`*printed` counts those
// already printed), so they are on screen before a driver that crashes on the call.
inline void PrintNewValidation(const char* tag, const test::VkHarness& h, size_t* printed) {
  const std::vector<test::Message> problems = h.ValidationProblems();
  for (; *printed < problems.size(); ++*printed) {
    const test::Message& m = problems[*printed];
    std::printf("%s:   validation: %s: %s%s\n", tag, m.id.c_str(), m.text.substr(0, 240).c_str(),
                m.text.size() > 240 ? " ..." : "");
  }
}

// Prints the messages not printed yet and "<tag>: validation: N message(s)"; returns N.
inline size_t ReportValidation(const char* tag, const test::VkHarness& h, size_t* printed) {
  PrintNewValidation(tag, h, printed);
  std::printf("%s: validation: %zu message(s)\n", tag, *printed);
  return *printed;
}

// "<tag>: RESULT: PASS|FAIL (why)"; returns the exit code (0 for a pass).
inline int Verdict(const char* tag, bool pass, const std::string& why) {
  std::printf("%s: RESULT: %s (%s)\n", tag, pass ? "PASS" : "FAIL", why.c_str());
  std::fflush(stdout);
  return pass ? 0 : 1;
}

}  // namespace bindery::demo
