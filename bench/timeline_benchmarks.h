// Timeline semaphore workloads (docs/measured.md, "Timeline semaphores") in three configurations of one process:
//   native       no layer: the driver's own timelines
//   pass-through VK_LAYER_bindery with BINDERY_TIMELINE=auto on a driver that has timelines
//                (no timeline hook is installed: must cost nothing)
//   emulated     VK_LAYER_bindery with BINDERY_TIMELINE=force (binary semaphores, fences,
//                parking and the submit thread)
// Workloads: host signal -> queue -> host wait round trip (the submit is made before the
// signal, so it waits before signal), chained submits each waiting the previous value, and
// one host signal fanned out to 16 waiting submissions. Wall-clock time (waits block).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "timeline_device.h"

namespace bindery::bench {


struct TimelineRow {
  std::string workload;
  std::string unit;          // what one measured operation is
  double us[kTimelineModes]{};  // median microseconds per operation, by TimelineMode
  double target_emulated = 0;   // emulated / native must stay at or below this (0: none)
  size_t samples = 0;
};

class TimelineDevice;

class TimelineSuite {
 public:
  explicit TimelineSuite(int rounds);
  ~TimelineSuite();
  // Registers every workload `rounds` times per mode, modes interleaved (their order
  // rotating from round to round). Devices are created when the first one runs.
  void Register();
  bool started() const { return started_; }
  // One row per workload measured in every mode (medians over rounds).
  std::vector<TimelineRow> Rows() const;
  std::string device_description() const { return description_; }
  // Destroys the devices (the layer logs its counters then).
  void Finish();

  // Used by the benchmark functions.
  TimelineDevice* Device(TimelineMode mode, std::string* error);
  void Record(size_t workload, TimelineMode mode, int round, double us_per_op);

 private:
  int rounds_;
  bool started_ = false;
  std::string description_;
  std::unique_ptr<TimelineDevice> devices_[kTimelineModes];
  std::string create_error_[kTimelineModes];
  // [workload][mode][round]: the last measurement Google Benchmark made of that run.
  std::vector<std::vector<std::vector<double>>> results_;
};

std::string FormatTimelineTable(const std::vector<TimelineRow>& rows);
std::string FormatTimelineMarkdown(const std::vector<TimelineRow>& rows, const std::string& device,
                                   const std::string& date);

}  // namespace bindery::bench
