#include "transfer_benchmarks.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include <benchmark/benchmark.h>

#include "transfer_checks.h"

namespace bindery::bench {
namespace {

constexpr uint32_t kFillData = 0x01020304u;
constexpr uint64_t kSmallStride = 128;  // small command i writes at i * kSmallStride (+1 when unaligned)
constexpr uint64_t kSmallSpan = kSmallStride * kSmallCommands;
constexpr uint64_t kSlack = 4096;  // room past the largest size for the unaligned offsets
constexpr uint8_t kUpdateData[64] = {0x10, 0x21, 0x32, 0x43, 0x54, 0x65, 0x76, 0x87, 0x98, 0xa9, 0xba, 0xcb, 0xdc,
                                     0xed, 0xfe, 0x0f, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa,
                                     0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00, 0x12, 0x23, 0x34, 0x45, 0x56, 0x67, 0x78,
                                     0x89, 0x9a, 0xab, 0xbc, 0xcd, 0xde, 0xef, 0xf0, 0x01, 0x13, 0x24, 0x35, 0x46,
                                     0x57, 0x68, 0x79, 0x8a, 0x9b, 0xac, 0xbd, 0xce, 0xdf, 0xe0, 0xf1, 0x02};

// Minimum (manual, GPU) time per benchmark unless --benchmark_min_time is given. Small
// sizes are capped by Google Benchmark's own limit of 5x this in wall time (submission
// overhead dominates them); the largest ones run only a few iterations.
constexpr double kMinTimeS = 0.03;

constexpr uint64_t kAllSizes[] = {4ull << 10,  64ull << 10,  1ull << 20, 16ull << 20,
                                  64ull << 20, 256ull << 20, 1ull << 30};

// Index constants for TransferWorkloads().
enum : int {
  kFillAligned,
  kFillUnaligned,
  kCopyAligned,
  kCopyUnaligned,
  kSmallFill,
  kSmallFillU,
  kSmallUpdate,
  kSmallUpdateU,
  kSmallCopy,
  kSmallCopyRegions
};

// Bytes one execution reads + writes.
double BytesMoved(const TransferWorkload& w, uint64_t size) {
  if (w.op == TransferOp::kCopy) return 2.0 * static_cast<double>(w.aligned ? size : size - 4);
  return static_cast<double>(w.aligned ? size : size - 2);  // fills write only
}

bool Applies(const TransferWorkload& w, TransferConfig config) {
  // Without the layer, unaligned fills and updates are invalid usage.
  return w.aligned || w.op == TransferOp::kCopy || UsesBindery(config);
}

std::string Fail(TransferDevice* d, const std::string& what) {
  d->broken = true;
  if (d->broken_reason.empty()) d->broken_reason = what;
  return what;
}

// Submits the recorded command buffer, waits, and reports the GPU time between its two
// timestamps as the iteration time; false (benchmark skipped) on an error.
bool SubmitAndTime(benchmark::State& state, TransferDevice* d) {
  std::string error = d->SubmitAndWait();
  double seconds = 0;
  if (error.empty()) error = d->ElapsedSeconds(&seconds);
  if (!error.empty()) {
    state.SkipWithError(Fail(d, error).c_str());
    return false;
  }
  state.SetIterationTime(std::max(seconds, 1e-9));
  return true;
}

// The configuration's device; null (the benchmark skipped with the reason) if it cannot be made.
TransferDevice* DeviceOrSkip(benchmark::State& state, TransferSuite* suite, TransferConfig config) {
  std::string error;
  TransferDevice* d = suite->Get(config, &error);
  if (d == nullptr) state.SkipWithError(error.c_str());
  return d;
}

// Bandwidth: record once (timestamp, command, timestamp), then submit per iteration.
void RunBandwidth(benchmark::State& state, TransferSuite* suite, size_t workload, uint64_t size,
                  TransferConfig config) {
  const TransferWorkload& w = TransferWorkloads()[workload];
  TransferDevice* d = DeviceOrSkip(state, suite, config);
  if (d == nullptr) return;
  if (d->Begin(false) != VK_SUCCESS) {
    state.SkipWithError(Fail(d, "vkBeginCommandBuffer failed").c_str());
    return;
  }
  d->Barrier();  // the previous iteration's writes before this one's
  d->ResetTimestamps();
  d->WriteTimestamp(0, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT);
  TransferSuite::RecordWorkload(*d, w, size);
  d->WriteTimestamp(1, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
  if (d->End() != VK_SUCCESS) {
    state.SkipWithError(Fail(d, "vkEndCommandBuffer failed").c_str());
    return;
  }
  for (auto _ : state) {
    if (!SubmitAndTime(state, d)) break;
  }
  // Read + written bytes per second of GPU time.
  state.counters["rw bytes"] = benchmark::Counter(BytesMoved(w, size), benchmark::Counter::kIsIterationInvariantRate);
}

// Small commands: record every iteration (timing the recording of the commands on the
// CPU), submit, and time the commands on the GPU.
void RunSmall(benchmark::State& state, TransferSuite* suite, size_t workload, TransferConfig config) {
  const TransferWorkload& w = TransferWorkloads()[workload];
  TransferDevice* d = DeviceOrSkip(state, suite, config);
  if (d == nullptr) return;
  double record_seconds = 0;
  for (auto _ : state) {
    if (d->Begin(true) != VK_SUCCESS) {
      state.SkipWithError(Fail(d, "vkBeginCommandBuffer failed").c_str());
      break;
    }
    d->Barrier();
    d->ResetTimestamps();
    d->WriteTimestamp(0, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT);
    const auto start = std::chrono::steady_clock::now();
    TransferSuite::RecordWorkload(*d, w, 0);
    const auto stop = std::chrono::steady_clock::now();
    record_seconds += std::chrono::duration<double>(stop - start).count();
    d->WriteTimestamp(1, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
    if (d->End() != VK_SUCCESS) {
      state.SkipWithError(Fail(d, "vkEndCommandBuffer failed").c_str());
      break;
    }
    if (!SubmitAndTime(state, d)) break;
  }
  // GPU seconds per command (from the manual time) and CPU recording seconds per command.
  state.counters["gpu/cmd"] =
      benchmark::Counter(kSmallCommands, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["rec/cmd"] = benchmark::Counter(record_seconds / kSmallCommands, benchmark::Counter::kAvgIterations);
}

}  // namespace

const std::vector<TransferWorkload>& TransferWorkloads() {
  static const std::vector<TransferWorkload> kWorkloads = {
      {"fill aligned", TransferOp::kFill, true, false, kFillAligned, -1},
      {"fill unaligned", TransferOp::kFill, false, false, kFillAligned, -1},
      {"copy aligned", TransferOp::kCopy, true, false, kCopyAligned, -1},
      {"copy unaligned", TransferOp::kCopy, false, false, kCopyAligned, kCopyUnaligned},
      {"fill x1000 64B aligned", TransferOp::kFill, true, true, kSmallFill, -1},
      {"fill x1000 63B unaligned", TransferOp::kFill, false, true, kSmallFill, -1},
      {"update x1000 64B aligned", TransferOp::kUpdate, true, true, kSmallUpdate, -1},
      {"update x1000 63B unaligned", TransferOp::kUpdate, false, true, kSmallUpdate, -1},
      // Copies: 1000 commands of 64 B, and one command with 1000 regions of 63 B at
      // src + 1 -> dst + 3 (per region); the batched-regions kernel competes with the latter.
      {"copy x1000 64B aligned", TransferOp::kCopy, true, true, kSmallCopy, -1},
      {"copy 1000 regions 63B unaligned", TransferOp::kCopy, false, true, kSmallCopy, kSmallCopyRegions},
  };
  return kWorkloads;
}

std::vector<uint64_t> TransferSizes(uint64_t max_size) {
  std::vector<uint64_t> out;
  for (uint64_t s : kAllSizes) {
    if (s <= max_size) out.push_back(s);
  }
  return out;
}

std::string SizeLabel(uint64_t bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (unit < 4 && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++unit;
  }
  return std::to_string(bytes) + " " + kUnits[unit];
}

void TransferSuite::RecordWorkload(const TransferDevice& d, const TransferWorkload& w, uint64_t size) {
  const TransferFns& fn = d.fn();
  const VkCommandBuffer cb = d.command_buffer();
  const VkBuffer src = d.src().buffer;
  const VkBuffer dst = d.dst().buffer;
  if (w.small) {
    const uint64_t shift = w.aligned ? 0 : 1;
    const uint64_t bytes = w.aligned ? 64 : 63;
    if (w.op == TransferOp::kCopy && !w.aligned) {
      static VkBufferCopy regions[kSmallCommands];
      for (uint64_t i = 0; i < kSmallCommands; ++i) regions[i] = {i * kSmallStride + 1, i * kSmallStride + 3, 63};
      fn.CmdCopyBuffer(cb, src, dst, kSmallCommands, regions);
      return;
    }
    for (uint64_t i = 0; i < kSmallCommands; ++i) {
      if (w.op == TransferOp::kCopy) {
        const VkBufferCopy region{i * kSmallStride, i * kSmallStride, bytes};
        fn.CmdCopyBuffer(cb, src, dst, 1, &region);
      } else if (w.op == TransferOp::kFill) {
        fn.CmdFillBuffer(cb, dst, i * kSmallStride + shift, bytes, kFillData);
      } else {
        fn.CmdUpdateBuffer(cb, dst, i * kSmallStride + shift, bytes, kUpdateData);
      }
    }
    return;
  }
  if (w.op == TransferOp::kFill) {
    if (w.aligned) {
      fn.CmdFillBuffer(cb, dst, 0, size, kFillData);
    } else {
      fn.CmdFillBuffer(cb, dst, 1, size - 2, kFillData);
    }
  } else {
    const VkBufferCopy region = w.aligned ? VkBufferCopy{0, 0, size} : VkBufferCopy{1, 3, size - 4};
    fn.CmdCopyBuffer(cb, src, dst, 1, &region);
  }
}

TransferSuite::~TransferSuite() { Finish(); }

VkDeviceSize TransferSuite::BufferBytes() const {
  return std::max({options_.max_size, kSmallSpan, kCheckBytes}) + kSlack;
}

const std::vector<TransferRegistration>& TransferSuite::Register() {
  const std::vector<TransferWorkload>& workloads = TransferWorkloads();
  const std::vector<uint64_t> sizes = TransferSizes(options_.max_size);
  for (size_t wi = 0; wi < workloads.size(); ++wi) {
    const TransferWorkload& w = workloads[wi];
    const std::vector<uint64_t> cells = w.small ? std::vector<uint64_t>{0} : sizes;
    for (uint64_t size : cells) {
      for (TransferConfig config : kTransferConfigs) {
        if (!Applies(w, config)) continue;
        std::string name = std::string("transfer/") + w.name + "/";
        if (!w.small) name += SizeLabel(size) + "/";
        name += ConfigSlug(config);
        benchmark::internal::Benchmark* b =
            w.small ? benchmark::RegisterBenchmark(name.c_str(), &RunSmall, this, wi, config)
                    : benchmark::RegisterBenchmark(name.c_str(), &RunBandwidth, this, wi, size, config);
        b->UseManualTime()->Unit(benchmark::kMicrosecond);
        if (options_.set_min_time) b->MinTime(kMinTimeS);
        registrations_.push_back({name, wi, size, config, w.small ? 0.0 : BytesMoved(w, size)});
      }
    }
  }
  return registrations_;
}

TransferDevice* TransferSuite::Get(TransferConfig config, std::string* error) {
  if (!started_) SetUp();
  const size_t i = static_cast<size_t>(config);
  TransferDevice* d = devices_[i].get();
  if (d == nullptr) {
    *error = reports_[i].error;
    return nullptr;
  }
  if (d->broken) {
    *error = "skipped: an earlier benchmark on this device failed (" + d->broken_reason + ")";
    return nullptr;
  }
  return d;
}

void TransferSuite::SetUp() {
  started_ = true;
  std::cout.flush();
  std::printf("\nbindery_bench: setting up the transfer benchmarks (%zu configurations, buffers of %s)\n",
              kTransferConfigCount, SizeLabel(BufferBytes()).c_str());
  const std::vector<TransferWorkload>& workloads = TransferWorkloads();
  for (TransferConfig config : kTransferConfigs) {
    const size_t i = static_cast<size_t>(config);
    ConfigReport& report = reports_[i];
    report.config = config;
    std::printf("  %-16s ", ConfigName(config));
    std::fflush(stdout);  // a crash below should show which configuration it was
    std::string error;
    std::unique_ptr<TransferDevice> d = TransferDevice::Create(config, BufferBytes(), &error);
    if (d == nullptr) {
      report.error = error;
      std::printf("FAILED: %s\n", error.c_str());
      continue;
    }
    report.created = true;
    if (device_description_.empty()) {
      device_description_ = d->Description();
      memory_description_ = d->MemoryDescription();
    }
    report.policy = d->Policy();
    // Warm-up: every workload once at the smallest and the largest size.
    const std::vector<uint64_t> sizes = TransferSizes(options_.max_size);
    for (const TransferWorkload& w : workloads) {
      if (!Applies(w, config)) continue;
      for (uint64_t size : w.small ? std::vector<uint64_t>{0} : std::vector<uint64_t>{sizes.front(), sizes.back()}) {
        if (d->Begin(true) != VK_SUCCESS) {
          error = "vkBeginCommandBuffer failed";
        } else {
          d->Barrier();
          RecordWorkload(*d, w, size);
          error = d->End() != VK_SUCCESS ? "vkEndCommandBuffer failed" : d->SubmitAndWait();
        }
        if (!error.empty()) {
          error = std::string("warm-up (") + w.name + "): " + error;
          break;
        }
      }
      if (!error.empty()) break;
    }
    if (!error.empty()) {
      report.error = error;
      std::printf("FAILED: %s\n", error.c_str());
      continue;
    }
    report.checks = CheckTransfers(*d);
    int failed = 0;
    for (const CheckResult& c : report.checks) failed += c.ok ? 0 : 1;
    std::printf("%s%s%s\n", report.policy.empty() ? "" : report.policy.c_str(), report.policy.empty() ? "" : "; ",
                failed == 0 ? ("checks ok (" + std::to_string(report.checks.size()) + ")").c_str()
                            : ("WRONG RESULTS in " + std::to_string(failed) + " of " +
                               std::to_string(report.checks.size()) + " checks")
                                  .c_str());
    std::fflush(stdout);
    for (const CheckResult& c : report.checks) {
      if (!c.ok)
        std::fprintf(stderr, "bindery_bench: warning: %s: check '%s' failed: %s\n", ConfigName(config), c.name.c_str(),
                     c.detail.c_str());
    }
    devices_[i] = std::move(d);
  }
  if (!device_description_.empty()) {
    std::printf("  device %s, buffers in %s\n\n", device_description_.c_str(), memory_description_.c_str());
  }
  std::fflush(stdout);
  std::fflush(stderr);
}

std::vector<ConfigReport> TransferSuite::Finish() {
  std::vector<ConfigReport> out;
  if (!started_) return out;
  for (TransferConfig config : kTransferConfigs) {
    const size_t i = static_cast<size_t>(config);
    ConfigReport& report = reports_[i];
    if (TransferDevice* d = devices_[i].get()) {
      report.broken = d->broken_reason;
      report.layer_problems = d->LayerProblems();
      report.layer_summary = d->Shutdown();
      devices_[i].reset();
    }
    out.push_back(report);
  }
  return out;
}

}  // namespace bindery::bench
