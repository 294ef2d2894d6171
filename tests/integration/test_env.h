// Helpers shared by the integration tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "support/mode_run.h"
#include "support/scoped_env.h"
#include "support/vk_harness.h"

namespace bindery::test {

// The driver's own limits: read through a device with indirect bindings off (under force
// the layer reports raised ones) and no validation.
inline VkPhysicalDeviceLimits DriverLimits() {
  ScopedEnv off("BINDERY_INDIRECT_BINDINGS", "off");
  HarnessOptions options;
  options.validation = false;
  VkHarness probe(options);
  VkPhysicalDeviceProperties props{};
  if (probe.ok()) vkGetPhysicalDeviceProperties(probe.physical_device(), &props);
  return props.limits;
}

inline bool HasMessage(const std::vector<Message>& messages, const std::string& id, const std::string& needle = "") {
  for (const Message& m : messages) {
    if (m.id == id && m.text.find(needle) != std::string::npos) return true;
  }
  return false;
}

}  // namespace bindery::test

// Fails the test on any validation warning or error captured by the harness.
#define EXPECT_VALIDATION_SILENT(harness)                                       \
  EXPECT_TRUE((harness).ValidationProblems().empty())                          \
      << "validation reported:\n"                                               \
      << ::bindery::test::VkHarness::Format((harness).ValidationProblems())

// A forced-vs-off comparison's two runs (structs with `error` and `validation` strings):
// both were made, and validation below the layer stayed silent in both.
#define ASSERT_BOTH_RAN_SILENTLY(native, forced)                  \
  ASSERT_TRUE((native).error.empty()) << (native).error;          \
  ASSERT_TRUE((forced).error.empty()) << (forced).error;          \
  EXPECT_TRUE((native).validation.empty()) << (native).validation; \
  EXPECT_TRUE((forced).validation.empty()) << (forced).validation
