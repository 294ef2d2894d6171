#include "core/log.h"

#include <chrono>

#include "core/pnext.h"

namespace bindery {
namespace {

VkDebugUtilsMessageSeverityFlagBitsEXT ToSeverity(LogLevel level) {
  switch (level) {
    case LogLevel::kError: return VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    case LogLevel::kWarn: return VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT;
    case LogLevel::kInfo: return VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT;
    case LogLevel::kDebug: return VK_DEBUG_UTILS_MESSAGE_SEVERITY_VERBOSE_BIT_EXT;
  }
  return VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT;
}

uint64_t NowNs() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

}  // namespace

Logger::Logger(LogLevel level, const std::string& log_file) : level_(level) {
  if (!log_file.empty()) {
    file_ = std::fopen(log_file.c_str(), "a");
    if (file_ == nullptr) {
      std::fprintf(stderr, "bindery [warn] BINDERY-log-file: cannot open log file '%s'; logging to stderr\n",
                   log_file.c_str());
    }
  }
}

Logger::~Logger() {
  if (file_ != nullptr) std::fclose(file_);
}

void Logger::Log(LogLevel level, const char* id, const char* format, ...) {
  va_list args;
  va_start(args, format);
  LogV(level, id, format, args);
  va_end(args);
}

void Logger::LogV(LogLevel level, const char* id, const char* format, va_list args) {
  if (!Enabled(level)) return;
  char text[1024];
  std::vsnprintf(text, sizeof(text), format, args);
  std::string id_name = std::string("BINDERY-") + id;

  // Copy the messengers so the callbacks run without our lock held: a callback may call
  // back into Vulkan, and through us, and log again.
  std::vector<Messenger> targets;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    targets = messengers_;
    if (lifetime_scope_.load()) targets.insert(targets.end(), lifetime_messengers_.begin(), lifetime_messengers_.end());
  }
  const VkDebugUtilsMessageSeverityFlagBitsEXT severity = ToSeverity(level);
  bool delivered = false;
  for (const Messenger& m : targets) {
    if ((m.severities & severity) == 0 || (m.types & VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT) == 0) continue;
    VkDebugUtilsMessengerCallbackDataEXT data{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CALLBACK_DATA_EXT};
    data.pMessageIdName = id_name.c_str();
    data.messageIdNumber = 0;
    data.pMessage = text;
    m.callback(severity, VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT, &data, m.user_data);
    delivered = true;
  }
  if (file_ != nullptr) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::fprintf(file_, "bindery [%s] %s: %s\n", ToString(level), id_name.c_str(), text);
    std::fflush(file_);
  } else if (!delivered && targets.empty()) {
    std::fprintf(stderr, "bindery [%s] %s: %s\n", ToString(level), id_name.c_str(), text);
  }
}

void Logger::AddMessenger(VkDebugUtilsMessengerEXT handle, const VkDebugUtilsMessengerCreateInfoEXT& info) {
  std::lock_guard<std::mutex> lock(mutex_);
  messengers_.push_back({handle, info.messageSeverity, info.messageType, info.pfnUserCallback, info.pUserData});
}

void Logger::RemoveMessenger(VkDebugUtilsMessengerEXT handle) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = messengers_.begin(); it != messengers_.end(); ++it) {
    if (it->handle == handle) {
      messengers_.erase(it);
      return;
    }
  }
}

void Logger::SetInstanceLifetimeMessengers(const void* instance_create_pnext) {
  std::lock_guard<std::mutex> lock(mutex_);
  lifetime_messengers_.clear();
  ForEachInChain<VkDebugUtilsMessengerCreateInfoEXT>(
      instance_create_pnext, VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
      [&](const VkDebugUtilsMessengerCreateInfoEXT& info) {
        if (info.pfnUserCallback == nullptr) return;
        lifetime_messengers_.push_back(
            {VK_NULL_HANDLE, info.messageSeverity, info.messageType, info.pfnUserCallback, info.pUserData});
      });
}

Logger& FallbackLogger() {
  // Never destroyed, as the registry is not (chassis/state.cpp): exit() runs static
  // destructors before a program's own atexit teardown, which may still call the layer.
  static Logger& logger = *new Logger(LogLevel::kWarn, "");
  return logger;
}

bool RateLimit::Allow(uint32_t* dropped) {
  const uint64_t now = NowNs();
  uint64_t start = window_start_ns_.load(std::memory_order_relaxed);
  if (start == 0 || now - start >= window_ns_) {
    if (window_start_ns_.compare_exchange_strong(start, now, std::memory_order_relaxed)) {
      in_window_.store(0, std::memory_order_relaxed);
    }
  }
  if (in_window_.fetch_add(1, std::memory_order_relaxed) < kBurst) {
    *dropped = dropped_.exchange(0, std::memory_order_relaxed);
    return true;
  }
  dropped_.fetch_add(1, std::memory_order_relaxed);
  return false;
}

}  // namespace bindery
