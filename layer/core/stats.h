// What the layer did on one device: named counters that each capability registers when
// it starts on the device, printed as one summary line when the device is destroyed.
// Core names no counter: the list is whatever the capabilities registered.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>

namespace bindery {

class Counter {
 public:
  void Add(uint64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  uint64_t Get() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

class CounterSet {
 public:
  static constexpr std::size_t kCapacity = 32;

  // Registers a counter named `name` (a string literal: kept, not copied) and returns it;
  // the same name twice returns the same counter. Registration happens at device creation
  // (one thread); the counters themselves are bumped from any thread.
  Counter& Register(const char* name);

  // "name value, name value, ..." in registration order; "nothing" when empty.
  std::string Summary() const;
  std::size_t Size() const { return size_; }

 private:
  std::array<const char*, kCapacity> names_{};
  std::array<Counter, kCapacity> counters_{};
  std::size_t size_ = 0;
  Counter overflow_;  // returned when more than kCapacity are registered (never printed)
};

}  // namespace bindery
