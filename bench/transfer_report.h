// Results of the transfer benchmarks: collected from Google Benchmark's runs (by a
// TableReporter that also keeps the record-workload table) and written as text tables,
// Markdown and CSV.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "table_reporter.h"
#include "transfer_benchmarks.h"

namespace bindery::bench {

struct TransferResult {
  size_t workload = 0;  // index into TransferWorkloads()
  uint64_t size = 0;    // 0 for the small-command workloads
  TransferConfig config = TransferConfig::kNoLayer;
  double gbps = 0;               // bandwidth workloads: read + written bytes per GPU second / 1e9
  double gpu_ns_per_cmd = 0;     // small workloads
  double record_ns_per_cmd = 0;  // small workloads
  size_t samples = 0;            // runs the medians come from
};

class TransferReporter : public TableReporter {
 public:
  TransferReporter(OutputOptions options, std::vector<std::string> workloads,
                   const std::vector<Registration>& registrations, double dispatches_per_iteration,
                   const std::vector<TransferRegistration>& transfers);

  void ReportRuns(const std::vector<Run>& runs) override;

  // Medians over repetitions, in registration order.
  std::vector<TransferResult> TransferResults() const;

 private:
  struct Samples {
    TransferRegistration registration;
    size_t order = 0;
    std::vector<double> gbps, gpu_ns, record_ns;
    bool from_median = false;  // the samples are medians of repetitions
  };
  std::map<std::string, Samples> transfers_;
};

// Plain-text tables, one per bandwidth workload plus one for the small commands.
std::string FormatTransferTables(const std::vector<TransferResult>& results);
// The same as Markdown under a "### ..." header naming device and date.
std::string FormatTransferMarkdown(const std::vector<TransferResult>& results, const std::string& device,
                                   const std::string& date, const std::string& note);
// size,workload,config,gbps (bandwidth workloads only), with a header line.
std::string FormatTransferCsv(const std::vector<TransferResult>& results);
// What each configuration did (policy, checks, failures, layer counters), as text lines.
std::string FormatConfigReports(const std::vector<ConfigReport>& reports, bool markdown);

}  // namespace bindery::bench
