// Memory the layer holds for itself, now and at its peak: the device summary shows the
// peak ("layer GPU bytes peak", "layer host bytes peak"). A Counter only grows, so the
// peak counter is raised by the difference whenever a new peak is reached.
#pragma once

#include <atomic>
#include <cstdint>

#include "core/stats.h"

namespace bindery::bindings {

class MemoryGauge {
 public:
  void Attach(Counter* peak_counter) { peak_counter_ = peak_counter; }
  void Add(uint64_t bytes) {
    const uint64_t now = now_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
    uint64_t peak = peak_.load(std::memory_order_relaxed);
    while (now > peak) {
      // On failure `peak` is reloaded; on success it is the peak this one replaced.
      if (peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
        if (peak_counter_ != nullptr) peak_counter_->Add(now - peak);
        break;
      }
    }
  }
  void Sub(uint64_t bytes) { now_.fetch_sub(bytes, std::memory_order_relaxed); }
  uint64_t Now() const { return now_.load(std::memory_order_relaxed); }
  uint64_t Peak() const { return peak_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> now_{0};
  std::atomic<uint64_t> peak_{0};
  Counter* peak_counter_ = nullptr;
};

}  // namespace bindery::bindings
