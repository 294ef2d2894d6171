#include "core/log.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include <unistd.h>
#include <sstream>
#include <string>
#include <vector>

namespace bindery {
namespace {

struct Captured {
  std::vector<std::string> ids;
  std::vector<std::string> texts;
  std::vector<VkDebugUtilsMessageSeverityFlagBitsEXT> severities;
};

VKAPI_ATTR VkBool32 VKAPI_CALL Capture(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                       VkDebugUtilsMessageTypeFlagsEXT, const VkDebugUtilsMessengerCallbackDataEXT* data,
                                       void* user) {
  auto* c = static_cast<Captured*>(user);
  c->ids.push_back(data->pMessageIdName);
  c->texts.push_back(data->pMessage);
  c->severities.push_back(severity);
  return VK_FALSE;
}

VkDebugUtilsMessengerCreateInfoEXT MessengerInfo(Captured* c, VkDebugUtilsMessageSeverityFlagsEXT severities) {
  VkDebugUtilsMessengerCreateInfoEXT info{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  info.messageSeverity = severities;
  info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT;
  info.pfnUserCallback = &Capture;
  info.pUserData = c;
  return info;
}

// A log file of this process's own: two runs of the suite on one machine (two clones'
// scripts/test) must not write each other's.
std::string ScratchLogPath(const char* name) {
  return ::testing::TempDir() + name + "." + std::to_string(::getpid()) + ".log";
}

constexpr VkDebugUtilsMessageSeverityFlagsEXT kAll =
    VK_DEBUG_UTILS_MESSAGE_SEVERITY_VERBOSE_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT |
    VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;

TEST(Logger, DeliversToMessengersWithIdAndSeverityAndRespectsLevel) {
  Logger logger(LogLevel::kInfo, "");
  Captured c;
  logger.AddMessenger(reinterpret_cast<VkDebugUtilsMessengerEXT>(uintptr_t{1}), MessengerInfo(&c, kAll));
  logger.Log(LogLevel::kWarn, "fallback", "pipeline %d fell back", 3);
  logger.Log(LogLevel::kDebug, "noise", "not shown at info level");
  ASSERT_EQ(c.ids.size(), 1u);
  EXPECT_EQ(c.ids[0], "BINDERY-fallback");
  EXPECT_EQ(c.texts[0], "pipeline 3 fell back");
  EXPECT_EQ(c.severities[0], VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT);
}

TEST(Logger, MessengerSeverityFilterAndRemoval) {
  Logger logger(LogLevel::kDebug, "");
  Captured errors_only;
  auto handle = reinterpret_cast<VkDebugUtilsMessengerEXT>(uintptr_t{2});
  logger.AddMessenger(handle, MessengerInfo(&errors_only, VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT));
  logger.Log(LogLevel::kInfo, "i", "info");
  logger.Log(LogLevel::kError, "e", "error");
  ASSERT_EQ(errors_only.ids.size(), 1u);
  EXPECT_EQ(errors_only.ids[0], "BINDERY-e");
  logger.RemoveMessenger(handle);
  ::testing::internal::CaptureStderr();
  logger.Log(LogLevel::kError, "e", "after removal");
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(errors_only.ids.size(), 1u);
  EXPECT_NE(err.find("after removal"), std::string::npos) << "no messenger left: stderr";
}

TEST(Logger, InstanceCreateInfoMessengersOnlyInsideTheirScope) {
  Logger logger(LogLevel::kInfo, "");
  Captured c;
  VkDebugUtilsMessengerCreateInfoEXT info = MessengerInfo(&c, kAll);
  logger.SetInstanceLifetimeMessengers(&info);
  logger.SetInstanceLifetimeScope(true);
  logger.Log(LogLevel::kInfo, "in", "inside create");
  logger.SetInstanceLifetimeScope(false);
  ::testing::internal::CaptureStderr();
  logger.Log(LogLevel::kInfo, "out", "outside");
  ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(c.ids.size(), 1u);
  EXPECT_EQ(c.ids[0], "BINDERY-in");
}

TEST(Logger, WritesToLogFile) {
  const std::string path = ScratchLogPath("bindery_log_test");
  std::remove(path.c_str());
  {
    Logger logger(LogLevel::kWarn, path);
    logger.Log(LogLevel::kWarn, "file", "to the file %s", "ok");
  }
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_NE(s.str().find("BINDERY-file: to the file ok"), std::string::npos) << s.str();
  std::remove(path.c_str());
}

TEST(Logger, RateLimitPerCallSite) {
  Logger logger(LogLevel::kInfo, "");
  Captured c;
  logger.AddMessenger(reinterpret_cast<VkDebugUtilsMessengerEXT>(uintptr_t{3}), MessengerInfo(&c, kAll));
  for (int i = 0; i < 100; ++i) BINDERY_LOG(logger, kWarn, "spam", "message %d", i);
  EXPECT_EQ(c.ids.size(), RateLimit::kBurst) << "one call site emits at most a burst per window";
  BINDERY_LOG(logger, kWarn, "other", "another site is not limited by the first");
  EXPECT_EQ(c.ids.size(), RateLimit::kBurst + 1);
}

TEST(RateLimit, ReportsDroppedCountWhenWindowReopens) {
  RateLimit limit(/*window_ns=*/2'000'000);
  uint32_t dropped = 0;
  for (uint32_t i = 0; i < RateLimit::kBurst; ++i) EXPECT_TRUE(limit.Allow(&dropped));
  EXPECT_EQ(dropped, 0u);
  EXPECT_FALSE(limit.Allow(&dropped));
  EXPECT_FALSE(limit.Allow(&dropped));
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE(limit.Allow(&dropped));
  EXPECT_EQ(dropped, 2u) << "the first message of a new window says how many were dropped";
}

VKAPI_ATTR VkBool32 VKAPI_CALL Count(VkDebugUtilsMessageSeverityFlagBitsEXT, VkDebugUtilsMessageTypeFlagsEXT,
                                     const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  if (std::string(data->pMessageIdName).rfind("BINDERY-", 0) == 0) {
    static_cast<std::atomic<long>*>(user)->fetch_add(1, std::memory_order_relaxed);
  }
  return VK_FALSE;
}

TEST(Logger, ConcurrentLoggingWhileMessengersComeAndGo) {
  // Threads of every device log through their instance's logger at once (pipeline creation,
  // fallbacks, teardown summaries) while the application creates and destroys messengers and
  // the instance-lifetime scope opens and closes. Every message reaches the file exactly
  // once, whole; messengers get a share. ThreadSanitizer checks it (scripts/test step 3b).
  const std::string path = ScratchLogPath("bindery_log_threads_test");
  std::remove(path.c_str());
  constexpr int kThreads = 4, kMessages = 300;
  std::atomic<long> delivered{0};
  {
    Logger logger(LogLevel::kInfo, path);
    VkDebugUtilsMessengerCreateInfoEXT info{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    info.messageSeverity = kAll;
    info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT;
    info.pfnUserCallback = &Count;
    info.pUserData = &delivered;
    logger.SetInstanceLifetimeMessengers(&info);
    std::atomic<bool> stop{false};
    std::thread churn([&] {
      for (uintptr_t i = 1; !stop.load(); ++i) {
        const auto handle = reinterpret_cast<VkDebugUtilsMessengerEXT>(i);
        logger.AddMessenger(handle, info);
        logger.SetInstanceLifetimeScope(i % 2 == 0);
        logger.RemoveMessenger(handle);
      }
    });
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int m = 0; m < kMessages; ++m) {
          logger.Log(LogLevel::kInfo, "threads", "thread %d message %d", t, m);
          BINDERY_LOG(logger, kWarn, "threads-limited", "rate-limited site, thread %d", t);
        }
      });
    }
    for (std::thread& t : threads) t.join();
    stop = true;
    churn.join();
  }
  std::ifstream in(path);
  std::string line;
  long whole = 0;
  while (std::getline(in, line)) {
    if (line.rfind("bindery [info] BINDERY-threads: thread ", 0) == 0) ++whole;
  }
  EXPECT_EQ(whole, kThreads * kMessages) << "every message once, whole, one per line";
  EXPECT_LE(delivered.load(), 2L * kThreads * kMessages + kThreads * kMessages);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace bindery
