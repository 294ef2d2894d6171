// Record-only workloads: the CPU cost of recording kDispatchesPerIteration dispatches
// into one command buffer (reset pool, begin, record, end; never submitted).
#pragma once

#include <string>
#include <vector>

#include "bench_device.h"

namespace bindery::bench {

// One registered benchmark: which workload it times and on which device.
struct Registration {
  std::string name;  // the name given to RegisterBenchmark (Run::run_name.function_name)
  size_t workload;   // index into WorkloadNames()
  bool bindery;
};

// Workload names in table order, e.g. "record/dispatch only".
std::vector<std::string> WorkloadNames();

// Records every workload a few times, untimed, so that whichever benchmark runs first
// does not pay for the driver's first-use costs (pool growth, page faults). False if a
// recording fails.
bool WarmUp(BenchDevice& device);

// Registers every workload `rounds` times on both devices, the layer-off and layer-on
// variants of a workload back to back (their order alternating from round to round) so
// that drift hits both alike.
std::vector<Registration> RegisterRecordBenchmarks(BenchDevice& no_layer, BenchDevice& bindery, int rounds);

}  // namespace bindery::bench
