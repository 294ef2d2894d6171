// Devices created and destroyed while other threads record on another device (issue 34,
// for ThreadSanitizer: scripts/test step 3b runs this binary in build-tsan). What the
// threads share in the layer: the registry of devices (dispatch-key maps), the bindings'
// per-device key table and the process-wide handle indexes (sets, pools, command buffers),
// the per-thread lookup caches that every device's teardown invalidates, the rewrite cache
// (threads rewrite the same module and new ones at once), and the logger.
//
// Three threads each record three rounds on device A (a round: its own layouts, pipeline
// from a module variant of that round, pools, 16 converted dispatches); meanwhile a fourth
// thread makes devices (each with its own instance), records and submits on each, checks
// its results, summary and validation, and destroys it, until the recorders are done (at
// least two devices). Then A runs everything recorded; every word is checked.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>

#include "integration/test_env.h"
#include "support/vk_objects.h"
#include "threads_rig.h"

namespace bindery::test {
namespace {

constexpr uint32_t kRecorders = 3;
constexpr uint32_t kRounds = 3;
constexpr uint32_t kMinDevices = 2;

// One device's life on the churn thread: "" or what went wrong.
std::string OneChurnDevice(uint32_t n) {
  VkHarness other;
  if (!other.ok()) return "device " + std::to_string(n) + ": " + other.error();
  ThreadWorker w;
  MakeThreadBuffers(other, w, 7000000 + n * 1000);
  RecordThreadWork(other, ThreadShader(100 + n), w);
  if (!w.error.empty()) return "device " + std::to_string(n) + ": " + w.error;
  if (SubmitAndWaitIdle(other.queue(), {w.cb}) != VK_SUCCESS) return "device " + std::to_string(n) + ": submit failed";
  std::string error = CheckThreadWork(w);
  DestroyThreadWork(other, w);
  other.DestroyDevice();
  if (!error.empty()) return "device " + std::to_string(n) + ": " + error;
  if (!other.ValidationProblems().empty()) return VkHarness::Format(other.ValidationProblems());
  const std::string summary = other.BinderySummary();
  if (SummaryCounter(summary, "pipelines rewritten") != 1 ||
      SummaryCounter(summary, "descriptor sets converted") != kThreadDispatches) {
    return "device " + std::to_string(n) + " summary: " + summary;
  }
  return "";
}

TEST(BindingsThreads, DevicesComeAndGoWhileOthersRecord) {
  ScopedEnv bindings("BINDERY_INDIRECT_BINDINGS", "force");
  ScopedEnv level("BINDERY_LOG_LEVEL", "info");
  VkHarness h;
  ASSERT_TRUE(h.ok()) << h.error();
  std::vector<ThreadWorker> workers(kRecorders * kRounds);
  for (uint32_t i = 0; i < workers.size(); ++i) MakeThreadBuffers(h, workers[i], i * 100000);
  std::vector<std::vector<uint32_t>> codes;
  for (uint32_t r = 0; r < kRounds; ++r) codes.push_back(ThreadShader(r));

  std::atomic<uint32_t> recording{kRecorders};
  std::vector<std::string> churn_errors;
  uint32_t devices = 0;
  std::thread churn([&] {
    while (devices < kMinDevices || recording.load() != 0) {
      const std::string error = OneChurnDevice(devices++);
      if (!error.empty()) churn_errors.push_back(error);
    }
  });
  std::vector<std::thread> recorders;
  for (uint32_t t = 0; t < kRecorders; ++t) {
    recorders.emplace_back([&, t] {
      for (uint32_t r = 0; r < kRounds; ++r) RecordThreadWork(h, codes[r], workers[t * kRounds + r]);
      recording.fetch_sub(1);
    });
  }
  for (std::thread& t : recorders) t.join();
  churn.join();
  for (const std::string& e : churn_errors) ADD_FAILURE() << "churn thread: " << e;
  EXPECT_GE(devices, kMinDevices);

  for (const ThreadWorker& w : workers) ASSERT_TRUE(w.error.empty()) << w.error;
  std::vector<VkCommandBuffer> cbs;
  for (const ThreadWorker& w : workers) cbs.push_back(w.cb);
  ASSERT_EQ(SubmitAndWaitIdle(h.queue(), cbs), VK_SUCCESS);
  for (const ThreadWorker& w : workers) EXPECT_EQ(CheckThreadWork(w), "");
  for (ThreadWorker& w : workers) DestroyThreadWork(h, w);
  h.DestroyDevice();
  EXPECT_VALIDATION_SILENT(h);
  const std::string summary = h.BinderySummary();
  EXPECT_EQ(SummaryCounter(summary, "pipelines rewritten"), kRecorders * kRounds) << summary;
  EXPECT_EQ(SummaryCounter(summary, "descriptor sets converted"), kRecorders * kRounds * kThreadDispatches) << summary;
}

}  // namespace
}  // namespace bindery::test
