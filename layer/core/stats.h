// What the layer did on one device: counters bumped by the capabilities and printed as
// one summary line when the device is destroyed.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace bindery {

struct Stats {
  std::atomic<uint64_t> pipelines_rewritten{0};
  std::atomic<uint64_t> pipelines_fallen_back{0};
  std::atomic<uint64_t> transfers_polyfilled{0};
  std::atomic<uint64_t> transfers_passed_through{0};
  std::atomic<uint64_t> transfer_kernels{0};       // compute dispatches recorded for transfers
  std::atomic<uint64_t> transfer_edge_copies{0};   // staging/edge copies recorded
  std::atomic<uint64_t> submissions_parked{0};

  static void Bump(std::atomic<uint64_t>& counter, uint64_t n = 1) { counter.fetch_add(n, std::memory_order_relaxed); }

  std::string Summary() const;
};

}  // namespace bindery
