// The layer's logger: one per instance.
//
// Messages go to the application's VK_EXT_debug_utils messengers when it has any (those
// created with vkCreateDebugUtilsMessengerEXT, and during vkCreateInstance /
// vkDestroyInstance those chained into VkInstanceCreateInfo), to the log file when one
// is set, and to stderr when neither exists. Every message carries a message ID name
// starting "BINDERY-" so applications and tests can tell them from validation's.
//
// BINDERY_LOG rate-limits per call site: a burst of kBurst messages, then silence until
// the window passes, after which the next message says how many were dropped.
#pragma once

#include <atomic>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

#include "core/settings.h"

namespace bindery {

class Logger {
 public:
  Logger(LogLevel level, const std::string& log_file);
  ~Logger();
  Logger(const Logger&) = delete;
  Logger& operator=(const Logger&) = delete;

  bool Enabled(LogLevel level) const { return static_cast<int>(level) <= static_cast<int>(level_); }

  // `id` is appended to "BINDERY-" to form the message ID name.
  void Log(LogLevel level, const char* id, const char* format, ...) __attribute__((format(printf, 4, 5)));
  void LogV(LogLevel level, const char* id, const char* format, va_list args);

  // Messengers created by the application through the layer.
  void AddMessenger(VkDebugUtilsMessengerEXT handle, const VkDebugUtilsMessengerCreateInfoEXT& info);
  void RemoveMessenger(VkDebugUtilsMessengerEXT handle);
  // Messengers from VkInstanceCreateInfo::pNext: active only while `active` is true
  // (the spec scopes them to vkCreateInstance and vkDestroyInstance).
  void SetInstanceLifetimeMessengers(const void* instance_create_pnext);
  void SetInstanceLifetimeScope(bool active) { lifetime_scope_.store(active); }

 private:
  struct Messenger {
    VkDebugUtilsMessengerEXT handle;
    VkDebugUtilsMessageSeverityFlagsEXT severities;
    VkDebugUtilsMessageTypeFlagsEXT types;
    PFN_vkDebugUtilsMessengerCallbackEXT callback;
    void* user_data;
  };

  const LogLevel level_;
  FILE* file_ = nullptr;
  std::mutex mutex_;
  std::vector<Messenger> messengers_;
  std::vector<Messenger> lifetime_messengers_;
  std::atomic<bool> lifetime_scope_{false};
};

// Logger used before any instance exists (negotiation) or when the instance is unknown.
Logger& FallbackLogger();

// Per-call-site rate limit. Not exact under contention; it need not be.
class RateLimit {
 public:
  static constexpr uint32_t kBurst = 8;
  static constexpr uint64_t kWindowNs = 10ull * 1000 * 1000 * 1000;
  explicit RateLimit(uint64_t window_ns = kWindowNs) : window_ns_(window_ns) {}
  // True if this message may be emitted; `*dropped` gets how many were suppressed
  // since the last emitted one.
  bool Allow(uint32_t* dropped);

 private:
  const uint64_t window_ns_;
  std::atomic<uint64_t> window_start_ns_{0};
  std::atomic<uint32_t> in_window_{0};
  std::atomic<uint32_t> dropped_{0};
};

}  // namespace bindery

// BINDERY_LOG(logger, kWarn, "id", "format", args...)
#define BINDERY_LOG(logger, level, id, ...)                                             \
  do {                                                                                  \
    ::bindery::Logger& bindery_logger_ = (logger);                                      \
    if (bindery_logger_.Enabled(::bindery::LogLevel::level)) {                          \
      static ::bindery::RateLimit bindery_rate_limit_;                                  \
      uint32_t bindery_dropped_ = 0;                                                    \
      if (bindery_rate_limit_.Allow(&bindery_dropped_)) {                               \
        if (bindery_dropped_ != 0)                                                      \
          bindery_logger_.Log(::bindery::LogLevel::level, id,                           \
                              "(%u earlier messages from this site were suppressed)",   \
                              bindery_dropped_);                                        \
        bindery_logger_.Log(::bindery::LogLevel::level, id, __VA_ARGS__);               \
      }                                                                                 \
    }                                                                                   \
  } while (0)
