#include "tally.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "reducer.h"
#include "result_file.h"

namespace bindery::apifuzz {

namespace {

std::string Token(std::string s) {
  for (char& c : s) {
    if (c == ' ' || c == '=' || c == '(' || c == ')') c = '_';
  }
  return s;
}

}  // namespace

Tally::Tally(const RunOptions& o, std::vector<std::string> all, const Known& known, uint64_t seed, uint64_t count,
             uint64_t progress_every)
    : o_(o),
      all_(std::move(all)),
      known_(known),
      seed_(seed),
      count_(count),
      progress_every_(std::max<uint64_t>(1, progress_every)),
      judged_(count, false) {}

void Tally::TaskEnded(const Outcomes& out, uint64_t first, uint64_t end, uint64_t stride) {
  for (uint64_t s = first; s < end; s += stride) Judge(out, s);
  if (judged_count_ - last_progress_ < progress_every_ && judged_count_ < count_) return;
  last_progress_ = judged_count_;
  const double t = Elapsed();
  std::printf("apifuzz: progress %llu/%llu programs, %zu failures (%s), %llu invalid natively, %zu skipped "
              "(native device lost), %.1f programs/s, %.0f s elapsed\n",
              static_cast<unsigned long long>(judged_count_), static_cast<unsigned long long>(count_),
              failures_.size(), ClassCounts().c_str(), static_cast<unsigned long long>(generator_bugs_), skipped_.size(),
              t > 0 ? static_cast<double>(judged_count_) / t : 0.0, t);
  std::fflush(stdout);
}

void Tally::Judge(const Outcomes& out, uint64_t s) {
  if (s < seed_ || s >= seed_ + count_ || judged_[s - seed_]) return;
  const std::vector<std::string> configs = ConfigsOfSeed(o_, all_, s);
  for (const std::string& c : configs) {
    const auto it = out.find(c);
    if (it == out.end() || !it->second.count(s)) return;  // not all results are in yet
  }
  judged_[s - seed_] = true;
  ++judged_count_;
  const ProgramOutcome& native = out.at("native").at(s);
  const std::string np = NativeProblem(native);
  if (np.rfind("device-lost", 0) == 0) {
    // Lost natively: skipped, not a failure (the layer is not involved; a driver may fault
    // on a valid program, and the programs after it ran in a fresh process). Listed, so that
    // the program can be looked at: "SKIP seed <seed> native (device-lost): <why>".
    skipped_.push_back(s);
    std::printf("SKIP seed %llu native (device-lost): skipped: native device lost: %.300s\n",
                static_cast<unsigned long long>(s), np.c_str());
    std::fflush(stdout);
    return;
  }
  if (!np.empty()) {
    ++generator_bugs_;
    failures_.push_back({s, "native", "generator bug: " + np});
    ++by_class_["native/generator_bug"];
    std::printf("FAIL seed %llu native (generator_bug): %.300s\n", static_cast<unsigned long long>(s), np.c_str());
    std::fflush(stdout);
    return;
  }
  bool keep_results = false;
  for (const std::string& c : configs) {
    if (c == "native") continue;
    const ProgramOutcome& layer = out.at(c).at(s);
    const std::string why = Compare(native, layer);
    const bool is_known = known_.seeds.count({c, s}) > 0;
    if (why.empty()) {
      passed_known_ += is_known ? 1 : 0;
      continue;
    }
    if (!is_known && FailureClass(why) == "results") {
      // Judged after the run, once the program ran again (a difference seen only among many
      // parallel children may be the program's own on that driver).
      pending_.push_back({s, c, native, layer});
      keep_results = true;
      std::printf("DIFF seed %llu %s: %.300s: confirmed after the run\n", static_cast<unsigned long long>(s),
                  c.c_str(), why.c_str());
      std::fflush(stdout);
      continue;
    }
    Report({s, c, why}, is_known);
  }
  if (!keep_results) DropResults(s, configs);
}

void Tally::Report(const Failure& f, bool is_known) {
  (is_known ? known_failures_ : failures_).push_back(f);
  if (!is_known) ++by_class_[f.config + "/" + Token(FailureClass(f.why))];
  // "FAIL seed <seed> <config> (<class>): <why>": scripts/apifuzz-long lists these.
  std::printf("%s seed %llu %s (%s): %.600s\n", is_known ? "KNOWN" : "FAIL", static_cast<unsigned long long>(f.seed),
              f.config.c_str(), Token(FailureClass(f.why)).c_str(), f.why.c_str());
  std::fflush(stdout);
}

void Tally::DropResults(uint64_t seed, const std::vector<std::string>& configs, const std::string& suffix) const {
  const std::string dir = ResultDir();
  if (dir.empty()) return;
  for (const std::string& c : configs) ::unlink(ResultPath(dir, c, seed, suffix).c_str());
}

void Tally::ConfirmDifferences() {
  if (pending_.empty()) return;
  std::printf("apifuzz: confirming %zu differing results: each program natively and under its configuration "
              "again, up to 2 more times\n",
              pending_.size());
  std::fflush(stdout);
  const std::vector<Confirmation> confirmed = bindery::apifuzz::ConfirmDifferences(o_, pending_);
  for (size_t i = 0; i < pending_.size() && i < confirmed.size(); ++i) {
    const Difference& d = pending_[i];
    const Confirmation& c = confirmed[i];
    if (c.verdict == "native-nondeterministic") {
      // Not the layer's failure: listed apart ("NONDET seed <seed> <config> (...)"), counted
      // in the summary, not in the failures or the exit status.
      nondeterministic_.push_back({d.seed, d.config, c.why});
      std::printf("NONDET seed %llu %s (native-nondeterministic): %.600s\n", static_cast<unsigned long long>(d.seed),
                  d.config.c_str(), c.why.c_str());
      std::fflush(stdout);
    } else {
      Report({d.seed, d.config, c.why}, false);
    }
    // Kept under --bytes-dir (BINDERY_APIFUZZ_KEEP_BYTES) for a closer look; else dropped.
    if (std::getenv("BINDERY_APIFUZZ_KEEP_BYTES") == nullptr) {
      DropResults(d.seed, {"native", d.config});
      for (const char* r : {"-r1", "-r2"}) {
        DropResults(d.seed, {d.config}, r);
        DropResults(d.seed, {"native"}, std::string(r) + "-for-" + d.config);
      }
    }
  }
  pending_.clear();
}

std::string Tally::ClassCounts() const {
  std::string s;
  for (const auto& [cls, n] : by_class_) s += (s.empty() ? "" : " ") + cls + "=" + std::to_string(n);
  return s.empty() ? "none" : s;
}

double Tally::Elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Tally::Summarize(bool stopped) {
  const double t = Elapsed();
  uint64_t first_missing = seed_ + count_;
  for (uint64_t i = 0; i < count_; ++i) {
    if (!judged_[i]) {
      first_missing = seed_ + i;
      break;
    }
  }
  const auto ull = [](uint64_t v) { return static_cast<unsigned long long>(v); };
  std::printf("bindery-apifuzz: %llu programs (seeds %llu..%llu), natively and under %s%zu configurations, in "
              "%.1f s: %zu failures, %zu known, %llu invalid natively, %zu skipped (native device lost), %zu "
              "natively nondeterministic\n",
              ull(judged_count_), ull(seed_), ull(seed_ + count_ - 1), o_.rotate ? "one in turn of " : "",
              all_.size() - 1, t, failures_.size(), known_failures_.size(), ull(generator_bugs_), skipped_.size(),
              nondeterministic_.size());
  for (const auto& [cls, n] : by_class_) std::printf("  %s: %u\n", cls.c_str(), n);
  for (const Failure& f : nondeterministic_)
    std::printf("  natively nondeterministic (not a Bindery failure): seed %llu, found under %s\n", ull(f.seed),
                f.config.c_str());
  if (passed_known_ > 0)
    std::printf("%llu seeds listed as known failures passed: remove them from the list\n", ull(passed_known_));
  if (stopped || judged_count_ < count_) {
    std::printf("apifuzz: stopped early (time limit or signal): %llu of %llu programs judged; the first not judged is seed "
                "%llu\n",
                ull(judged_count_), ull(count_), ull(first_missing));
  }
  // The line slices sum (scripts/apifuzz-long reads it): keep its shape.
  std::printf("apifuzz: ran %llu programs (seeds %llu..%llu), %zu failures (%s), %zu known, %llu invalid natively, "
              "%zu skipped (native device lost), %zu natively nondeterministic, %.1f s, next seed %llu\n",
              ull(judged_count_), ull(seed_), ull(seed_ + count_ - 1), failures_.size(), ClassCounts().c_str(),
              known_failures_.size(), ull(generator_bugs_), skipped_.size(), nondeterministic_.size(), t,
              ull(first_missing));
  std::fflush(stdout);
}

}  // namespace bindery::apifuzz
