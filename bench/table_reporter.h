// Google Benchmark's console output, plus a no-layer vs Bindery table at the end.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "record_benchmarks.h"

namespace bindery::bench {

// Shared by the report printers.
double Median(std::vector<double> values);
std::string Fixed(double value, int decimals);  // printf "%.*f"

struct TableRow {
  std::string workload;
  double no_layer_ns = 0;  // median CPU ns per dispatch over every round/repetition
  double bindery_ns = 0;
  size_t samples = 0;      // runs per side that the medians come from (the fewer side)
  double spread = 0;       // worst side's (slowest - fastest) / median over its runs
};

class TableReporter : public benchmark::ConsoleReporter {
 public:
  TableReporter(OutputOptions options, std::vector<std::string> workloads,
                const std::vector<Registration>& registrations, double dispatches_per_iteration);

  void ReportRuns(const std::vector<Run>& runs) override;

  // One row per workload that has results on both sides, in workload order.
  std::vector<TableRow> Rows() const;
  int errors() const { return errors_; }

 private:
  std::vector<std::string> workloads_;
  std::map<std::string, Registration> by_name_;
  double dispatches_;
  std::vector<std::vector<double>> samples_[2];  // [bindery][workload] -> ns/dispatch
  int errors_ = 0;
};

// Plain-text table for the terminal.
std::string FormatTable(const std::vector<TableRow>& rows);
// Rows of cells (the first is the header, underlined with dashes) in columns two spaces
// apart; the first column is left-aligned, the others right-aligned where
// `right_aligned(column)` says so.
std::string FormatColumns(const std::vector<std::vector<std::string>>& cells, bool (*right_aligned)(size_t column));
// Markdown: a "### ..." header line naming device and date, a note, the table.
std::string FormatMarkdown(const std::vector<TableRow>& rows, const std::string& device, const std::string& date,
                           const std::string& note);

}  // namespace bindery::bench
