// Differential runs. A child process (this CLI with --child) opens one device for one
// configuration and runs many programs on it, printing one result line per program (and
// the validation messages it caused); the parent starts children for every configuration
// in parallel, notices crashes and hangs (no line within the time limit) and charges them
// to the program that was running, restarts after it, and compares each configuration
// with the native run byte for byte.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ir.h"

namespace bindery::apifuzz {

// "native" (validation only), "indirect", "transfers", "timeline", "all"; and "reordered":
// natively again, with one of the queues of --shared-queues (queue 0, or --lagging-queue N)
// lagging behind the others (tests/no_timeline_layer's BINDERY_TEST_LAGGING_QUEUE): a program
// or runner that leaves work on two queues unordered gives other results there (on lavapipe,
// whose one queue otherwise runs everything in submission order).
const std::vector<std::string>& AllConfigs();
bool IsConfig(const std::string& name);
bool UsesBindery(const std::string& config);

// Child side: sets the BINDERY_* variables of `config`, opens a device and runs either the
// seeds seed, seed + stride, ... (count of them) or the program in `program_file`; returns the exit status.
// With BINDERY_APIFUZZ_BYTES_DIR set, each program's result bytes go to a file there
// (result_file.h; `result_suffix` ends its name).
int ChildMain(const std::string& config, uint64_t seed, uint64_t count, uint64_t stride,
              const std::string& program_file, const std::string& result_suffix = "");

struct ProgramOutcome {
  // kDeviceLost: a submission or wait of the program returned VK_ERROR_DEVICE_LOST (or a
  // wait timed out); detail says which. The child reopens its device after it.
  enum Status { kOk, kCrash, kHang, kSetupError, kDeviceLost, kMissing } status = kMissing;
  std::string hash;  // of the bytes read back
  uint32_t skipped = 0;
  std::vector<std::string> messages;  // validation messages ("id: text")
  std::string detail;                 // crash signal, setup error
};

struct RunOptions {
  std::string self;      // path of this executable
  unsigned jobs = 1;     // children at once
  unsigned batch = 50;   // seeds per child
  double hang_seconds = 60;  // no result line for this long: a hang
  // Each program natively and under one of the other configurations, in turn by seed
  // (the CI budget); off: under every configuration.
  bool rotate = false;
  // Stop starting children at this time and kill the running ones (a run with a time budget
  // ends with the programs it finished; the others have no result). Default: never.
  std::chrono::steady_clock::time_point stop_at = std::chrono::steady_clock::time_point::max();
};

// outcome[config][seed] for seeds [seed, seed + count).
using Outcomes = std::map<std::string, std::map<uint64_t, ProgramOutcome>>;

// Called whenever a child ends, with the seeds its task covered (first, first + stride, ...
// below end), so that a caller can judge programs as soon as all their results are in
// (progress of long runs).
using TaskEnded = std::function<void(const Outcomes&, uint64_t first, uint64_t end, uint64_t stride)>;
Outcomes RunSeeds(const RunOptions& o, const std::vector<std::string>& configs, uint64_t seed, uint64_t count,
                  const TaskEnded& on_task_end = {});

// SIGINT and SIGTERM (`timeout`, Ctrl-C) end a run like its time limit: the running children
// are killed and the programs already finished are reported.
void StopOnSignals();

// The configurations that run `seed` (natively always; with rotate, one of the others in turn).
std::vector<std::string> ConfigsOfSeed(const RunOptions& o, const std::vector<std::string>& configs, uint64_t seed);

// One program (a case file or a candidate of the reducer) under each configuration.
std::map<std::string, ProgramOutcome> RunProgram(const RunOptions& o, const std::vector<std::string>& configs,
                                                 const Program& p);

// A program whose result under `config` differed from its native one in a fuzz run.
struct Difference {
  uint64_t seed = 0;
  std::string config;
  ProgramOutcome native, layer;
};

// What running a difference again found. A result that differs only among many parallel
// children may be the program's own nondeterminism on that driver rather than the layer's:
// the seed runs natively and under its configuration again (fresh processes, like the first
// run), up to `reruns` more times each, all differences of a round side by side.
struct Confirmation {
  // "results": the layer differed from a native result that stayed the same in every run;
  // "results-flaky": the native result stayed the same and the layer matched it at least once;
  // "native-nondeterministic": the native runs disagreed (a generator or driver problem,
  // not the layer's: reported apart from failures).
  std::string verdict;
  // The failure text, starting with the verdict's word ("results differ (...)" for
  // "results"), with the runs' counts and the first differing word (result_file.h).
  std::string why;
};
// Needs BINDERY_APIFUZZ_BYTES_DIR to name the first difference (without it, only the counts).
std::vector<Confirmation> ConfirmDifferences(const RunOptions& o, const std::vector<Difference>& diffs,
                                             unsigned reruns = 2);

// Why `config` failed against `native` (empty: it did not). A native run that is not clean
// is the generator's failure, reported as such.
std::string Compare(const ProgramOutcome& native, const ProgramOutcome& config);
std::string NativeProblem(const ProgramOutcome& native);

}  // namespace bindery::apifuzz
