#include "timeline_benchmarks.h"

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
#include "timeline_device.h"

namespace bindery::bench {

namespace {

const char* const kModeNames[kTimelineModes] = {"native", "pass-through", "emulated"};

struct Workload {
  const char* name;
  const char* unit;
  bool (TimelineDevice::*run)();
  uint32_t ops;  // operations per call
  double target;
};

const Workload kWorkloads[] = {
    {"timeline/host->queue->host round trip", "round trip", &TimelineDevice::RoundTrip, 1, 1.2},
    {"timeline/chained submits", "submit", &TimelineDevice::Chain, kTimelineChain, 1.1},
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
