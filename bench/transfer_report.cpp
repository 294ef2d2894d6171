#include "transfer_report.h"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace bindery::bench {
namespace {

// An unaligned small command should cost at most this much more than the aligned native one.
constexpr double kSmallTarget = 1.5;

// Three significant digits or so, never scientific.
std::string Number(double v) { return Fixed(v, v >= 100 ? 0 : v >= 10 ? 1 : v >= 1 ? 2 : 3); }

std::string Ratio(double num, double den) { return den > 0 && num > 0 ? Fixed(num / den, 2) + "x" : "n/a"; }

const TransferResult* Find(const std::vector<TransferResult>& results, int workload, uint64_t size,
                           TransferConfig config) {
  if (workload < 0) return nullptr;
  for (const TransferResult& r : results) {
    if (r.workload == static_cast<size_t>(workload) && r.size == size && r.config == config) return &r;
  }
  return nullptr;
}

struct Table {
  std::string title;
  std::vector<std::string> header;
  std::vector<bool> numeric;  // right-aligned columns
  std::vector<std::vector<std::string>> rows;
};

std::string RenderText(const Table& t) {
  std::vector<size_t> width(t.header.size(), 0);
  for (size_t c = 0; c < t.header.size(); ++c) width[c] = t.header[c].size();
  for (const auto& row : t.rows) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t c = 0; c < cells.size(); ++c) {
      const std::string pad(width[c] - cells[c].size(), ' ');
      out += t.numeric[c] ? "| " + pad + cells[c] + " " : "| " + cells[c] + pad + " ";
    }
    return out + "|\n";
  };
  std::string out = t.title + "\n\n" + line(t.header);
  for (size_t c = 0; c < width.size(); ++c) out += "|" + std::string(width[c] + 2, '-');
  out += "|\n";
  for (const auto& row : t.rows) out += line(row);
  return out;
}

std::string RenderMarkdown(const Table& t) {
  std::string out = "#### " + t.title + "\n\n|";
  for (const std::string& h : t.header) out += " " + h + " |";
  out += "\n|";
  for (bool n : t.numeric) out += n ? "---:|" : "---|";
  out += "\n";
  for (const auto& row : t.rows) {
    out += "|";
    for (const std::string& cell : row) out += " " + cell + " |";
    out += "\n";
  }
  return out;
}

std::vector<Table> BuildTables(const std::vector<TransferResult>& results) {
  const std::vector<TransferWorkload>& workloads = TransferWorkloads();
  std::vector<Table> tables;
  // Bandwidth workloads: one table each, rows by size then configuration.
  for (size_t wi = 0; wi < workloads.size(); ++wi) {
    const TransferWorkload& w = workloads[wi];
    if (w.small) continue;
    Table t;
    t.title = std::string("transfer: ") + w.name + " (GB/s of bytes read + written, GPU timestamps; ratio = config / " +
              "no layer " + workloads[w.baseline].name +
              (w.native_same >= 0 ? std::string(", and / no layer ") + workloads[w.native_same].name : "") + ")";
    t.header = {"size", "config", "GB/s", "vs native aligned"};
    if (w.native_same >= 0) t.header.push_back("vs native unaligned");
    t.numeric.assign(t.header.size(), true);
    t.numeric[1] = false;
    std::vector<uint64_t> sizes;
    for (const TransferResult& r : results) {
      if (r.workload == wi && std::find(sizes.begin(), sizes.end(), r.size) == sizes.end()) sizes.push_back(r.size);
    }
    std::sort(sizes.begin(), sizes.end());
    for (uint64_t size : sizes) {
      const TransferResult* base = Find(results, w.baseline, size, TransferConfig::kNoLayer);
      const TransferResult* same = Find(results, w.native_same, size, TransferConfig::kNoLayer);
      bool first = true;
      for (TransferConfig config : kTransferConfigs) {
        const TransferResult* r = Find(results, static_cast<int>(wi), size, config);
        if (r == nullptr) continue;
        std::vector<std::string> row = {first ? SizeLabel(size) : "", ConfigName(config), Number(r->gbps),
                                        Ratio(r->gbps, base ? base->gbps : 0)};
        if (w.native_same >= 0) row.push_back(Ratio(r->gbps, same ? same->gbps : 0));
        t.rows.push_back(std::move(row));
        first = false;
      }
    }
    if (!t.rows.empty()) tables.push_back(std::move(t));
  }
  // Small commands: one table.
  Table t;
  t.title = "transfer: " + std::to_string(kSmallCommands) +
            " small commands per command buffer (per command: GPU time from timestamps, CPU time to record; "
            "ratio = config / no layer aligned; target for unaligned <= " +
            Fixed(kSmallTarget, 1) + "x)";
  t.header = {
      "workload",     "config", "GPU ns/cmd", "record ns/cmd", "GPU vs native aligned", "record vs native aligned",
      "within target"};
  t.numeric = {false, false, true, true, true, true, false};
  for (size_t wi = 0; wi < workloads.size(); ++wi) {
    const TransferWorkload& w = workloads[wi];
    if (!w.small) continue;
    const TransferResult* base = Find(results, w.baseline, 0, TransferConfig::kNoLayer);
    for (TransferConfig config : kTransferConfigs) {
      const TransferResult* r = Find(results, static_cast<int>(wi), 0, config);
      if (r == nullptr) continue;
      std::string verdict;
      if (!w.aligned && base != nullptr) {
        const bool gpu_ok = r->gpu_ns_per_cmd <= kSmallTarget * base->gpu_ns_per_cmd;
        const bool cpu_ok = r->record_ns_per_cmd <= kSmallTarget * base->record_ns_per_cmd;
        verdict = gpu_ok && cpu_ok     ? "yes"
                  : !gpu_ok && !cpu_ok ? "no (GPU, record)"
                  : !gpu_ok            ? "no (GPU)"
                                       : "no (record)";
      }
      t.rows.push_back({w.name, ConfigName(config), Number(r->gpu_ns_per_cmd), Number(r->record_ns_per_cmd),
                        Ratio(r->gpu_ns_per_cmd, base ? base->gpu_ns_per_cmd : 0),
                        Ratio(r->record_ns_per_cmd, base ? base->record_ns_per_cmd : 0), verdict});
    }
  }
  if (!t.rows.empty()) tables.push_back(std::move(t));
  return tables;
}

}  // namespace

TransferReporter::TransferReporter(OutputOptions options, std::vector<std::string> workloads,
                                   const std::vector<Registration>& registrations, double dispatches_per_iteration,
                                   const std::vector<TransferRegistration>& transfers)
    : TableReporter(options, std::move(workloads), registrations, dispatches_per_iteration) {
  for (size_t i = 0; i < transfers.size(); ++i) {
    Samples& s = transfers_[transfers[i].name];
    s.registration = transfers[i];
    s.order = i;
  }
}

void TransferReporter::ReportRuns(const std::vector<Run>& runs) {
  TableReporter::ReportRuns(runs);  // console output, error count, record samples
  for (const Run& run : runs) {
    // Single runs; with --benchmark_display_aggregates_only only the aggregates come,
    // and their median stands in for the runs.
    const bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
    if (run.error_occurred || (run.run_type != Run::RT_Iteration && !median) || run.iterations == 0) continue;
    auto it = transfers_.find(run.run_name.function_name);
    if (it == transfers_.end()) continue;
    Samples& s = it->second;
    const bool have_runs = !s.from_median && !(s.gbps.empty() && s.gpu_ns.empty());
    if (median && have_runs) continue;
    if (median) s.from_median = true;
    // Manual time: real_accumulated_time is the sum of the GPU times.
    const double seconds = run.real_accumulated_time / static_cast<double>(run.iterations);
    if (seconds <= 0) continue;
    if (TransferWorkloads()[s.registration.workload].small) {
      s.gpu_ns.push_back(seconds * 1e9 / kSmallCommands);
      auto rec = run.counters.find("rec/cmd");
      s.record_ns.push_back(rec != run.counters.end() ? rec->second.value * 1e9 : 0);
    } else {
      s.gbps.push_back(s.registration.bytes_per_iteration / seconds / 1e9);
    }
  }
}

std::vector<TransferResult> TransferReporter::TransferResults() const {
  std::vector<const Samples*> ordered;
  for (const auto& entry : transfers_) ordered.push_back(&entry.second);
  std::sort(ordered.begin(), ordered.end(), [](const Samples* a, const Samples* b) { return a->order < b->order; });
  std::vector<TransferResult> out;
  for (const Samples* s : ordered) {
    const bool small = TransferWorkloads()[s->registration.workload].small;
    const size_t n = small ? s->gpu_ns.size() : s->gbps.size();
    if (n == 0) continue;  // filtered out or failed
    TransferResult r;
    r.workload = s->registration.workload;
    r.size = s->registration.size;
    r.config = s->registration.config;
    r.samples = n;
    if (small) {
      r.gpu_ns_per_cmd = Median(s->gpu_ns);
      r.record_ns_per_cmd = Median(s->record_ns);
    } else {
      r.gbps = Median(s->gbps);
    }
    out.push_back(r);
  }
  return out;
}

std::string FormatTransferTables(const std::vector<TransferResult>& results) {
  std::string out;
  for (const Table& t : BuildTables(results)) out += "\n" + RenderText(t);
  return out;
}

std::string FormatTransferMarkdown(const std::vector<TransferResult>& results, const std::string& device,
                                   const std::string& date, const std::string& note) {
  std::string out = "### bindery_bench transfers: " + device + ", " + date + "\n\n";
  if (!note.empty()) out += note + "\n\n";
  for (const Table& t : BuildTables(results)) out += RenderMarkdown(t) + "\n";
  return out;
}

std::string FormatTransferCsv(const std::vector<TransferResult>& results) {
  std::string out = "size,workload,config,gbps\n";
  for (const TransferResult& r : results) {
    if (TransferWorkloads()[r.workload].small) continue;
    char gbps[64];
    std::snprintf(gbps, sizeof(gbps), "%.4f", r.gbps);
    out += std::to_string(r.size) + "," + TransferWorkloads()[r.workload].name + "," + ConfigName(r.config) + "," +
           gbps + "\n";
  }
  return out;
}

std::string FormatConfigReports(const std::vector<ConfigReport>& reports, bool markdown) {
  const std::string bullet = markdown ? "- " : "  ";
  std::string out;
  for (const ConfigReport& r : reports) {
    std::string line =
        bullet + (markdown ? "**" + std::string(ConfigName(r.config)) + "**" : ConfigName(r.config)) + ": ";
    if (!r.created || !r.error.empty()) {
      out += line + "FAILED: " + r.error + "\n";
      continue;
    }
    if (!r.policy.empty()) line += r.policy + "; ";
    int failed = 0;
    for (const CheckResult& c : r.checks) failed += c.ok ? 0 : 1;
    line += failed == 0
                ? "result checks ok (" + std::to_string(r.checks.size()) + ")"
                : "WRONG RESULTS in " + std::to_string(failed) + " of " + std::to_string(r.checks.size()) + " checks";
    out += line + "\n";
    const std::string sub = markdown ? "  - " : "      ";
    for (const CheckResult& c : r.checks) {
      if (!c.ok) out += sub + "check '" + c.name + "': " + c.detail + "\n";
    }
    if (!r.broken.empty()) out += sub + "a benchmark failed: " + r.broken + "\n";
    constexpr size_t kMaxProblems = 5;
    for (size_t i = 0; i < r.layer_problems.size() && i < kMaxProblems; ++i) {
      out += sub + "layer said: " + r.layer_problems[i] + "\n";
    }
    if (r.layer_problems.size() > kMaxProblems) {
      out += sub + "(" + std::to_string(r.layer_problems.size() - kMaxProblems) + " more layer messages)\n";
    }
    if (!r.layer_summary.empty()) out += sub + "layer counters: " + r.layer_summary + "\n";
  }
  return out;
}

}  // namespace bindery::bench
