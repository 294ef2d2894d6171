// Judges a fuzz run's programs as their results come in: prints each failure at once and a
// progress line per batch (flushed, so that a run killed by a time limit still shows how far
// it got and what it found), and the summary lines at the end, one of which
// ("apifuzz: ran K programs, F failures (config/class=N ...), ...") sums over slices run back
// to back (scripts/apifuzz-long).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "runner.h"

namespace bindery::apifuzz {

// Known failures: "<config> <seed>" of the fuzz run, or "case <file name>".
struct Known {
  std::set<std::pair<std::string, uint64_t>> seeds;
  std::set<std::string> cases;
};

struct Failure {
  uint64_t seed = 0;
  std::string config, why;
};

class Tally {
 public:
  // `all`: "native" first, then the configurations compared with it.
  Tally(const RunOptions& o, std::vector<std::string> all, const Known& known, uint64_t seed, uint64_t count,
        uint64_t progress_every);

  // runner.h's TaskEnded: judges the seeds of the task whose results are all in.
  void TaskEnded(const Outcomes& out, uint64_t first, uint64_t end, uint64_t stride);
  // Runs the programs whose results differed again (runner.h's ConfirmDifferences) and
  // reports each as a failure ("results", "results-flaky") or as natively nondeterministic.
  // Before Summarize; nothing to do when no result differed.
  void ConfirmDifferences();
  // Prints the summary; `stopped`: the time limit ended the run early.
  void Summarize(bool stopped);

  const std::vector<Failure>& failures() const { return failures_; }
  const std::vector<Failure>& known_failures() const { return known_failures_; }
  const std::vector<Failure>& nondeterministic() const { return nondeterministic_; }
  uint64_t judged() const { return judged_count_; }
  const std::vector<uint64_t>& skipped() const { return skipped_; }

 private:
  void Judge(const Outcomes& out, uint64_t seed);
  void Report(const Failure& f, bool is_known);
  // Deletes the seed's result files (result_file.h) of `configs` with `suffix`.
  void DropResults(uint64_t seed, const std::vector<std::string>& configs, const std::string& suffix = "") const;
  std::string ClassCounts() const;  // "config/class=N ..." (no spaces inside a token)
  double Elapsed() const;

  RunOptions o_;
  std::vector<std::string> all_;
  const Known& known_;
  uint64_t seed_, count_, progress_every_;
  std::vector<bool> judged_;
  uint64_t judged_count_ = 0, last_progress_ = 0, generator_bugs_ = 0, passed_known_ = 0;
  // Programs that lost the device natively: skipped, not judged as failures (a real driver
  // can fault on a valid program: docs/apifuzz.md, "A lost device").
  std::vector<uint64_t> skipped_;
  std::vector<Failure> failures_, known_failures_;
  // Results that differed, confirmed after the run; programs whose native runs disagreed.
  std::vector<Difference> pending_;
  std::vector<Failure> nondeterministic_;
  std::map<std::string, unsigned> by_class_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace bindery::apifuzz
