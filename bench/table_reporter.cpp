#include "table_reporter.h"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace bindery::bench {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string Fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, value);
  return buf;
}

namespace {

std::vector<std::string> Cells(const TableRow& r) {
  return {r.workload, Fixed(r.no_layer_ns, 1), Fixed(r.bindery_ns, 1), Fixed(r.bindery_ns / r.no_layer_ns, 3) + "x"};
}

const std::vector<std::string> kHeader = {"workload", "no layer (ns/dispatch)", "bindery (ns/dispatch)", "ratio"};

}  // namespace

TableReporter::TableReporter(OutputOptions options, std::vector<std::string> workloads,
                             const std::vector<Registration>& registrations, double dispatches_per_iteration)
    : ConsoleReporter(options), workloads_(std::move(workloads)), dispatches_(dispatches_per_iteration) {
  for (const Registration& r : registrations) by_name_.emplace(r.name, r);
  for (auto& side : samples_) side.resize(workloads_.size());
}

void TableReporter::ReportRuns(const std::vector<Run>& runs) {
  ConsoleReporter::ReportRuns(runs);
  for (const Run& run : runs) {
    if (run.error_occurred) {
      ++errors_;
      continue;
    }
    if (run.run_type != Run::RT_Iteration) continue;  // aggregates come from the same samples
    auto it = by_name_.find(run.run_name.function_name);
    if (it == by_name_.end()) continue;
    const double ns_per_iteration = run.GetAdjustedCPUTime() * 1e9 / benchmark::GetTimeUnitMultiplier(run.time_unit);
    samples_[it->second.bindery][it->second.workload].push_back(ns_per_iteration / dispatches_);
  }
}

std::vector<TableRow> TableReporter::Rows() const {
  std::vector<TableRow> rows;
  for (size_t w = 0; w < workloads_.size(); ++w) {
    const std::vector<double>& off = samples_[0][w];
    const std::vector<double>& on = samples_[1][w];
    if (off.empty() || on.empty()) continue;  // filtered out or failed
    auto spread = [](const std::vector<double>& v) {
      return (*std::max_element(v.begin(), v.end()) - *std::min_element(v.begin(), v.end())) / Median(v);
    };
    rows.push_back({workloads_[w], Median(off), Median(on), std::min(off.size(), on.size()),
                    std::max(spread(off), spread(on))});
  }
  return rows;
}

std::string FormatColumns(const std::vector<std::vector<std::string>>& cells, bool (*right_aligned)(size_t column)) {
  if (cells.empty()) return "";
  std::vector<size_t> width(cells.front().size(), 0);
  for (const auto& row : cells) {
    for (size_t c = 0; c < row.size() && c < width.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  for (size_t r = 0; r < cells.size(); ++r) {
    for (size_t c = 0; c < cells[r].size() && c < width.size(); ++c) {
      const std::string& s = cells[r][c];
      const std::string pad(width[c] - s.size(), ' ');
      out += c == 0 ? s + pad : "  " + (right_aligned(c) ? pad + s : s + pad);
    }
    out += "\n";
    if (r == 0) out += std::string(out.size() - 1, '-') + "\n";
  }
  return out;
}

std::string FormatTable(const std::vector<TableRow>& rows) {
  std::vector<std::vector<std::string>> lines = {kHeader};
  for (const TableRow& r : rows) lines.push_back(Cells(r));
  std::vector<size_t> width(kHeader.size(), 0);
  for (const auto& line : lines) {
    for (size_t c = 0; c < line.size(); ++c) width[c] = std::max(width[c], line[c].size());
  }
  std::string out;
  for (size_t l = 0; l < lines.size(); ++l) {
    for (size_t c = 0; c < lines[l].size(); ++c) {
      const std::string& cell = lines[l][c];
      const std::string pad(width[c] - cell.size(), ' ');
      out += c == 0 ? "| " + cell + pad : "| " + pad + cell;  // text left, numbers right
      out += " ";
    }
    out += "|\n";
    if (l == 0) {
      for (size_t c = 0; c < width.size(); ++c) out += "|" + std::string(width[c] + 2, '-');
      out += "|\n";
    }
  }
  return out;
}

std::string FormatMarkdown(const std::vector<TableRow>& rows, const std::string& device, const std::string& date,
                           const std::string& note) {
  std::string out = "### bindery_bench: " + device + ", " + date + "\n\n";
  if (!note.empty()) out += note + "\n\n";
  out += "| " + kHeader[0] + " | " + kHeader[1] + " | " + kHeader[2] + " | " + kHeader[3] + " |\n";
  out += "|---|---:|---:|---:|\n";
  for (const TableRow& r : rows) {
    const std::vector<std::string> c = Cells(r);
    out += "| `" + c[0] + "` | " + c[1] + " | " + c[2] + " | " + c[3] + " |\n";
  }
  return out;
}

}  // namespace bindery::bench
