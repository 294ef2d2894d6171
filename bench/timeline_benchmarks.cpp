#include "timeline_benchmarks.h"

#include "bench_harness.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>

#include <benchmark/benchmark.h>
#include <vulkan/vulkan.h>

#include "support/vk_harness.h"
#include "table_reporter.h"

namespace bindery::bench {

namespace {

constexpr uint32_t kChain = 32;   // submits per chained iteration
constexpr uint32_t kFanOut = 16;  // submissions waiting one host signal
constexpr uint64_t kWaitNs = 5'000'000'000ull;  // a wait that takes this long is a failure

const char* const kModeNames[kTimelineModes] = {"native", "pass-through", "emulated"};

test::HarnessOptions Options(TimelineMode mode, const void* device_pnext) {
  return BenchHarnessOptions(mode != TimelineMode::kNative, device_pnext);
}

VkPhysicalDeviceVulkan12Features TimelineFeature() {
  VkPhysicalDeviceVulkan12Features f{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  f.timelineSemaphore = VK_TRUE;
  return f;
}

}  // namespace

// One device with timeline semaphores, its entry points from vkGetDeviceProcAddr (as a
// performance-minded application calls them) and the semaphores the workloads use.
class TimelineDevice {
 public:
  TimelineDevice(TimelineMode mode)
      : mode_(mode),
        env_("BINDERY_TIMELINE", mode == TimelineMode::kEmulated ? "force" : "auto"),
        feature_(TimelineFeature()),
        harness_(Options(mode, &feature_)) {}

  ~TimelineDevice() {
    if (harness_.device() == VK_NULL_HANDLE) return;
    vkDeviceWaitIdle(harness_.device());
    for (VkSemaphore s : all_) vkDestroySemaphore(harness_.device(), s, nullptr);
  }

  // Empty on success.
  std::string Init() {
    if (!harness_.ok()) return harness_.error();
    const VkDevice d = harness_.device();
    submit_ = reinterpret_cast<PFN_vkQueueSubmit>(vkGetDeviceProcAddr(d, "vkQueueSubmit"));
    signal_ = reinterpret_cast<PFN_vkSignalSemaphore>(vkGetDeviceProcAddr(d, "vkSignalSemaphore"));
    wait_ = reinterpret_cast<PFN_vkWaitSemaphores>(vkGetDeviceProcAddr(d, "vkWaitSemaphores"));
    if (submit_ == nullptr || signal_ == nullptr || wait_ == nullptr) return "vkGetDeviceProcAddr returned null";
    host_ = Create();
    done_ = Create();
    chain_ = Create();
    for (VkSemaphore& s : fan_) s = Create();
    for (VkSemaphore s : all_) {
      if (s == VK_NULL_HANDLE) return "vkCreateSemaphore (timeline) failed";
    }
    return {};
  }

  VkDevice device() const { return harness_.device(); }
  VkPhysicalDevice physical_device() const { return harness_.physical_device(); }

  // Host signal -> queue -> host wait, the submit made first (it waits before signal).
  bool RoundTrip() {
    ++value_;
    if (!Submit(host_, value_, done_, value_)) return false;
    if (!Signal(host_, value_)) return false;
    return Wait(&done_, &value_, 1);
  }

  // kChain submits, each waiting the value the previous one signals; then a host wait.
  bool Chain() {
    for (uint32_t i = 0; i < kChain; ++i) {
      if (!Submit(chain_, chain_value_, chain_, chain_value_ + 1)) return false;
      ++chain_value_;
    }
    return Wait(&chain_, &chain_value_, 1);
  }

  // kFanOut submissions wait one value of `host_`; one host signal releases them all.
  bool FanOut() {
    ++value_;
    for (VkSemaphore s : fan_) {
      if (!Submit(host_, value_, s, value_)) return false;
    }
    if (!Signal(host_, value_)) return false;
    uint64_t values[kFanOut];
    std::fill(std::begin(values), std::end(values), value_);
    return Wait(fan_, values, kFanOut);
  }

 private:
  VkSemaphore Create() {
    VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    info.pNext = &type;
    VkSemaphore s = VK_NULL_HANDLE;
    if (vkCreateSemaphore(harness_.device(), &info, nullptr, &s) != VK_SUCCESS) s = VK_NULL_HANDLE;
    all_.push_back(s);
    return s;
  }

  bool Submit(VkSemaphore wait, uint64_t wait_value, VkSemaphore signal, uint64_t signal_value) {
    VkTimelineSemaphoreSubmitInfo values{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    values.waitSemaphoreValueCount = 1;
    values.pWaitSemaphoreValues = &wait_value;
    values.signalSemaphoreValueCount = 1;
    values.pSignalSemaphoreValues = &signal_value;
    const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.pNext = &values;
    submit.waitSemaphoreCount = 1;
    submit.pWaitSemaphores = &wait;
    submit.pWaitDstStageMask = &stage;
    submit.signalSemaphoreCount = 1;
    submit.pSignalSemaphores = &signal;
    return submit_(harness_.queue(), 1, &submit, VK_NULL_HANDLE) == VK_SUCCESS;
  }

  bool Signal(VkSemaphore s, uint64_t value) {
    VkSemaphoreSignalInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
    info.semaphore = s;
    info.value = value;
    return signal_(harness_.device(), &info) == VK_SUCCESS;
  }

  bool Wait(const VkSemaphore* s, const uint64_t* values, uint32_t count) {
    VkSemaphoreWaitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    info.semaphoreCount = count;
    info.pSemaphores = s;
    info.pValues = values;
    return wait_(harness_.device(), &info, kWaitNs) == VK_SUCCESS;
  }

  TimelineMode mode_;
  EnvOverride env_;  // before harness_: the instance reads it
  VkPhysicalDeviceVulkan12Features feature_;
  test::VkHarness harness_;
  PFN_vkQueueSubmit submit_ = nullptr;
  PFN_vkSignalSemaphore signal_ = nullptr;
  PFN_vkWaitSemaphores wait_ = nullptr;
  std::vector<VkSemaphore> all_;
  VkSemaphore host_ = VK_NULL_HANDLE, done_ = VK_NULL_HANDLE, chain_ = VK_NULL_HANDLE;
  VkSemaphore fan_[kFanOut]{};
  uint64_t value_ = 0;        // host_, done_ and fan_ move together
  uint64_t chain_value_ = 0;  // chain_
};

namespace {

struct Workload {
  const char* name;
  const char* unit;
  bool (TimelineDevice::*run)();
  uint32_t ops;  // operations per call
  double target;
};

const Workload kWorkloads[] = {
    {"timeline/host->queue->host round trip", "round trip", &TimelineDevice::RoundTrip, 1, 1.3},
    {"timeline/chained submits", "submit", &TimelineDevice::Chain, kChain, 1.2},
    {"timeline/one signal -> 16 waiting submits", "16 submits + signal + wait", &TimelineDevice::FanOut, 1, 0},
};

void RunTimelineBenchmark(benchmark::State& state, TimelineSuite* suite, size_t workload, TimelineMode mode,
                          int round) {
  std::string error;
  TimelineDevice* d = suite->Device(mode, &error);
  if (d == nullptr) {
    state.SkipWithError(error.c_str());
    return;
  }
  const Workload& w = kWorkloads[workload];
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    if (!(d->*w.run)()) {
      state.SkipWithError("a timeline submit, signal or wait failed (or waited 5 s)");
      return;
    }
  }
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  const double ops = static_cast<double>(state.iterations()) * w.ops;
  state.SetItemsProcessed(static_cast<int64_t>(ops));
  state.counters["us/op"] = benchmark::Counter(us / ops);
  suite->Record(workload, mode, round, us / ops);
}

}  // namespace

TimelineSuite::TimelineSuite(int rounds) : rounds_(rounds) {
  results_.resize(std::size(kWorkloads));
  for (auto& w : results_) {
    w.resize(kTimelineModes);
    for (auto& m : w) m.assign(static_cast<size_t>(rounds), -1.0);
  }
}

TimelineSuite::~TimelineSuite() = default;

void TimelineSuite::Register() {
  for (int round = 0; round < rounds_; ++round) {
    for (size_t w = 0; w < std::size(kWorkloads); ++w) {
      for (int i = 0; i < kTimelineModes; ++i) {
        const auto mode = static_cast<TimelineMode>((i + round) % kTimelineModes);
        std::string name = std::string(kWorkloads[w].name) + "/" + kModeNames[static_cast<int>(mode)];
        if (rounds_ > 1) name += "/round:" + std::to_string(round + 1);
        benchmark::RegisterBenchmark(name.c_str(), &RunTimelineBenchmark, this, w, mode, round)
            ->Unit(benchmark::kMicrosecond)
            ->UseRealTime();
      }
    }
  }
}

TimelineDevice* TimelineSuite::Device(TimelineMode mode, std::string* error) {
  const int m = static_cast<int>(mode);
  if (!started_) {
    started_ = true;
    for (int i = 0; i < kTimelineModes; ++i) {
      auto d = std::make_unique<TimelineDevice>(static_cast<TimelineMode>(i));
      std::string e = d->Init();
      if (e.empty()) {
        devices_[i] = std::move(d);
      } else {
        create_error_[i] = std::string(kModeNames[i]) + " timeline device: " + e;
      }
    }
    if (devices_[0] != nullptr) {
      VkPhysicalDeviceProperties p;
      vkGetPhysicalDeviceProperties(devices_[0]->physical_device(), &p);
      description_ = p.deviceName;
    }
  }
  if (devices_[m] == nullptr) *error = create_error_[m];
  return devices_[m].get();
}

void TimelineSuite::Record(size_t workload, TimelineMode mode, int round, double us_per_op) {
  results_[workload][static_cast<int>(mode)][static_cast<size_t>(round)] = us_per_op;
}

std::vector<TimelineRow> TimelineSuite::Rows() const {
  std::vector<TimelineRow> rows;
  for (size_t w = 0; w < std::size(kWorkloads); ++w) {
    TimelineRow row;
    row.workload = kWorkloads[w].name;
    row.unit = kWorkloads[w].unit;
    row.target_emulated = kWorkloads[w].target;
    bool complete = true;
    row.samples = static_cast<size_t>(rounds_);
    for (int m = 0; m < kTimelineModes; ++m) {
      std::vector<double> v;
      for (double x : results_[w][m]) {
        if (x >= 0) v.push_back(x);
      }
      if (v.empty()) {
        complete = false;
        break;
      }
      row.samples = std::min(row.samples, v.size());
      row.us[m] = Median(v);
    }
    if (complete) rows.push_back(row);
  }
  return rows;
}

void TimelineSuite::Finish() {
  for (auto& d : devices_) d.reset();
}

namespace {

std::string Ratio(double a, double b) { return Fixed(a / b, 3) + "x"; }

std::vector<std::vector<std::string>> TableCells(const std::vector<TimelineRow>& rows) {
  std::vector<std::vector<std::string>> cells;
  cells.push_back({"workload (per op)", "native us", "pass-through us", "ratio (<= 1.02x)", "emulated us", "ratio",
                   "target"});
  for (const TimelineRow& r : rows) {
    const double native = r.us[0];
    cells.push_back({r.workload + " (" + r.unit + ")", Fixed(native, 2), Fixed(r.us[1], 2), Ratio(r.us[1], native),
                     Fixed(r.us[2], 2), Ratio(r.us[2], native),
                     r.target_emulated > 0 ? "<= " + Fixed(r.target_emulated, 1) + "x" : "-"});
  }
  return cells;
}

}  // namespace

std::string FormatTimelineTable(const std::vector<TimelineRow>& rows) {
  return FormatColumns(TableCells(rows), [](size_t) { return true; });
}

std::string FormatTimelineMarkdown(const std::vector<TimelineRow>& rows, const std::string& device,
                                   const std::string& date) {
  const auto cells = TableCells(rows);
  std::string out = "### Timeline semaphores on " + device + " (" + date + ")\n\n";
  out += "Wall-clock microseconds per operation, median of " + std::to_string(rows.empty() ? 0 : rows[0].samples) +
         " interleaved run(s) per cell; ratio = configuration / native. Native: no layer; pass-through: "
         "VK_LAYER_bindery with BINDERY_TIMELINE=auto on a driver with timelines; emulated: BINDERY_TIMELINE=force. "
         "Round trip: a submit waiting a value, the host signal of it, the host wait of the value the submit "
         "signals.\n\n";
  for (size_t r = 0; r < cells.size(); ++r) {
    out += "|";
    for (const std::string& c : cells[r]) out += " " + c + " |";
    out += "\n";
    if (r == 0) {
      out += "|";
      for (size_t c = 0; c < cells[r].size(); ++c) out += c == 0 ? "---|" : "---:|";
      out += "\n";
    }
  }
  return out;
}

}  // namespace bindery::bench
