// timeline/*: the timeline workloads (timeline_device.h) on a device of their own, in the
// configuration this process was started in: `--layer off` is the driver's own timelines,
// `--layer on` with BINDERY_TIMELINE=force the emulation (scripts/bench-compare sets the
// environment per configuration). Wall-clock microseconds per operation (the waits block).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "probe_workloads.h"
#include "timeline_device.h"

namespace bindery::bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kSamples = 9;                              // per row; the median is reported
constexpr auto kSampleTime = std::chrono::milliseconds(25);  // each sample runs at least this long
constexpr auto kWarmUpTime = std::chrono::milliseconds(50);

struct TimelineWorkload {
  const char* row;
  const char* unit;
  bool (TimelineDevice::*run)();
  uint32_t ops;  // operations per call
  int phase = -1;  // >= 0: report the time spent in that phase of RoundTripPhases, not the wall time
  bool diagnosis = false;  // only with PROBE_TIMELINE_DIAGNOSIS=1 (scripts/gpu-bench-timeline sets it)
};

const TimelineWorkload kWorkloads[] = {
    {"timeline/round trip: submit waiting a value, host signal, host wait", "us", &TimelineDevice::RoundTrip, 1},
    {"timeline/chained submits, each waiting the previous one's value", "us per submit", &TimelineDevice::Chain,
     kTimelineChain},
    {"timeline/one host signal releasing 16 waiting submits, host wait", "us", &TimelineDevice::FanOut, 1},
    // Where the round trip's time goes (diagnosis: issue 32's H100 round trip).
    // Not in the standard batch (its time limit): PROBE_TIMELINE_DIAGNOSIS=1.
    {"timeline/round trip, in vkQueueSubmit (the submit waiting a value)", "us", &TimelineDevice::RoundTripPhases, 1, 0,
     true},
    {"timeline/round trip, in vkSignalSemaphore (the host signal)", "us", &TimelineDevice::RoundTripPhases, 1, 1, true},
    {"timeline/round trip, in vkWaitSemaphores (the host wait)", "us", &TimelineDevice::RoundTripPhases, 1, 2, true},
    {"timeline/round trip, host wait by polling vkGetSemaphoreCounterValue", "us", &TimelineDevice::RoundTripPolled, 1,
     -1, true},
    {"timeline/driver floor: binary semaphores and fences chained as the emulation sends them", "us per submit",
     &TimelineDevice::BinaryFloor, kTimelineChain},
    {"timeline/driver floor without the spare (1 signal + fence per submit)", "us per submit",
     &TimelineDevice::BinaryOneSignalFenced, kTimelineChain},
    {"timeline/driver floor without the fences (2 signals, one fence per chain)", "us per submit",
     &TimelineDevice::BinaryTwoSignalsOneFence, kTimelineChain},
    {"timeline/driver floor without either (1 signal, one fence per chain)", "us per submit",
     &TimelineDevice::BinaryOneSignalOneFence, kTimelineChain},
};

// Microseconds per operation over at least `span` (negative: a call failed).
double Sample(TimelineDevice& d, const TimelineWorkload& w, Clock::duration span) {
  const Clock::time_point start = Clock::now();
  uint64_t calls = 0;
  Clock::time_point now;
  d.ResetPhases();
  do {
    if (!(d.*w.run)()) return -1;
    ++calls;
    now = Clock::now();
  } while (now - start < span);
  if (w.phase >= 0) return static_cast<double>(d.phase_ns()[w.phase]) / 1000.0 / static_cast<double>(calls * w.ops);
  return std::chrono::duration<double, std::micro>(now - start).count() / static_cast<double>(calls * w.ops);
}

}  // namespace

std::vector<ProbeResult> RunTimelineProbes(bool layer, std::string* description) {
  TimelineDevice d(layer, nullptr);
  const std::string error = d.Init();
  if (!error.empty()) {
    std::fprintf(stderr, "bindery_probe: timeline device: %s\n", error.c_str());
    return {};
  }
  VkPhysicalDeviceProperties properties;
  vkGetPhysicalDeviceProperties(d.physical_device(), &properties);
  *description = properties.deviceName;
  std::vector<ProbeResult> results;
  const char* diagnosis_env = std::getenv("PROBE_TIMELINE_DIAGNOSIS");
  const bool diagnosis = diagnosis_env != nullptr && std::string(diagnosis_env) == "1";
  for (const TimelineWorkload& w : kWorkloads) {
    if (!RowWanted(w.row) || (w.diagnosis && !diagnosis)) continue;
    if (Sample(d, w, kWarmUpTime) < 0) {
      std::fprintf(stderr, "bindery_probe: %s: a submit, signal or wait failed\n", w.row);
      continue;
    }
    std::vector<double> samples;
    for (int i = 0; i < kSamples; ++i) {
      const double us = Sample(d, w, kSampleTime);
      if (us >= 0) samples.push_back(us);
    }
    if (samples.empty()) continue;
    results.push_back({w.row, w.unit, Median(samples)});
  }
  return results;
}

}  // namespace bindery::bench
