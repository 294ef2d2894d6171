// Many threads creating pipelines (one shared rewrite cache) and
// recording converted binds and dispatches at once, each into its own command buffer
// from its own pools. Every thread's results are checked word by word; validation
// (synchronization validation on) silent.
#include <gtest/gtest.h>

#include <thread>

#include "integration/test_env.h"
#include "support/vk_objects.h"
#include "threads_rig.h"

namespace bindery::test {
namespace {

constexpr uint32_t kThreads = 4;

TEST(BindingsThreads, ManyThreadsCreateAndRecordAtOnce) {
  ScopedEnv bindings("BINDERY_INDIRECT_BINDINGS", "force");
  ScopedEnv level("BINDERY_LOG_LEVEL", "info");
  VkHarness h;
  ASSERT_TRUE(h.ok()) << h.error();
  const std::vector<uint32_t> code = ThreadShader();
  std::vector<ThreadWorker> workers(kThreads);
  for (uint32_t t = 0; t < kThreads; ++t) MakeThreadBuffers(h, workers[t], t * 100000);
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < kThreads; ++t) threads.emplace_back([&, t] { RecordThreadWork(h, code, workers[t]); });
  for (std::thread& t : threads) t.join();
  for (const ThreadWorker& w : workers) ASSERT_TRUE(w.error.empty()) << w.error;
  std::vector<VkCommandBuffer> cbs;
  for (const ThreadWorker& w : workers) cbs.push_back(w.cb);
  ASSERT_EQ(SubmitAndWaitIdle(h.queue(), cbs), VK_SUCCESS);
  for (const ThreadWorker& w : workers) EXPECT_EQ(CheckThreadWork(w), "");
  for (ThreadWorker& w : workers) DestroyThreadWork(h, w);
  h.DestroyDevice();
  EXPECT_VALIDATION_SILENT(h);
  const std::string summary = h.BinderySummary();
  EXPECT_EQ(SummaryCounter(summary, "pipelines rewritten"), kThreads) << summary;
  EXPECT_EQ(SummaryCounter(summary, "descriptor sets converted"), kThreads * kThreadDispatches) << summary;
}

}  // namespace
}  // namespace bindery::test
