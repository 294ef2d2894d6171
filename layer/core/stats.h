// What the layer did on one device: named counters that each capability registers when
// it starts on the device, printed as one summary line when the device is destroyed.
// Core names no counter: the list is whatever the capabilities registered.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace bindery {

class Counter {
 public:
  void Add(uint64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  uint64_t Get() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

// How often each distinct reason behind a counter occurred (which shader features made
// pipelines fall back, for instance), printed after the counter in the summary:
// "fallen back 3: {reason a × 2; reason b × 1}". Not for hot paths: one mutex.
class ReasonTally {
 public:
  void Add(const std::string& reason);
  // "reason × n; ..." most frequent first (ties in first-seen order); "" when empty.
  std::string Summary() const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::pair<std::string, uint64_t>> counts_;
};

class CounterSet {
 public:
  static constexpr std::size_t kCapacity = 32;

  // Registers a counter named `name` (a string literal: kept, not copied) and returns it;
  // the same name twice returns the same counter. Registration happens at device creation
  // (one thread); the counters themselves are bumped from any thread.
  Counter& Register(const char* name);
  // The same, with the reasons behind the counter printed after its value (the tally is
  // kept by the caller and must outlive the summary).
  Counter& Register(const char* name, const ReasonTally* reasons);

  // "name value, name value, ..." in registration order; "nothing" when empty.
  std::string Summary() const;
  std::size_t Size() const { return size_; }

 private:
  std::array<const char*, kCapacity> names_{};
  std::array<Counter, kCapacity> counters_{};
  std::array<const ReasonTally*, kCapacity> reasons_{};
  std::size_t size_ = 0;
  Counter overflow_;  // returned when more than kCapacity are registered (never printed)
};

}  // namespace bindery
