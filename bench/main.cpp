// bindery_bench: record-only CPU cost per dispatch with VK_LAYER_bindery on and off,
// transfer bandwidth (transfer/*: no layer vs each Bindery transfer strategy) and timeline
// semaphore latency (timeline/*: native, pass-through, emulated), in one process. Google Benchmark flags work as usual; ours are --markdown FILE (also write the
// final tables as Markdown), --rounds N (times each record workload pair runs),
// --transfer-max-size BYTES (largest transfer size) and --csv FILE (transfer bandwidth
// as CSV, for scripts/plot-transfers).
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <vulkan/vulkan.h>

#include "bench_device.h"
#include "bindings_benchmarks.h"
#include "record_benchmarks.h"
#include "table_reporter.h"
#include "timeline_benchmarks.h"
#include "transfer_benchmarks.h"
#include "transfer_report.h"

#ifndef BINDERY_EXPLICIT_MANIFEST_DIR
#define BINDERY_EXPLICIT_MANIFEST_DIR ""
#endif

namespace {

using namespace bindery::bench;

constexpr double kDefaultMinTimeS = 0.1;  // per benchmark; the whole run stays well under a minute on lavapipe
constexpr int kDefaultRounds = 5;

struct Options {
  std::string markdown;  // empty: no Markdown file
  int rounds = kDefaultRounds;
  bool min_time_given = false;
  int color = -1;  // -1 auto (a terminal), 0 off, 1 on
  uint64_t transfer_max_size = kDefaultTransferMaxSize;
  std::string csv;  // empty: no CSV file
};

// "1073741824", "64M", "1GiB", "4k": bytes (binary suffixes). 0 if malformed.
uint64_t ParseBytes(const std::string& text) {
  char* end = nullptr;
  const unsigned long long n = std::strtoull(text.c_str(), &end, 10);
  if (end == text.c_str()) return 0;
  std::string suffix = end;
  for (char& c : suffix) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (suffix == "" || suffix == "b") return n;
  if (suffix == "k" || suffix == "kib") return n << 10;
  if (suffix == "m" || suffix == "mib") return n << 20;
  if (suffix == "g" || suffix == "gib") return n << 30;
  return 0;
}

// Takes our flags out of argv (Google Benchmark rejects flags it does not know) and
// notes the benchmark flags whose defaults we choose. False on a malformed flag.
bool ParseOwnFlags(int* argc, char** argv, Options* o) {
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* flag, std::string* out) {
      const std::string f = flag;
      if (a == f && i + 1 < *argc) {
        *out = argv[++i];
        return true;
      }
      if (a.rfind(f + "=", 0) == 0) {
        *out = a.substr(f.size() + 1);
        return true;
      }
      return false;
    };
    std::string v;
    if (value("--markdown", &v)) {
      if (v.empty()) return false;
      o->markdown = v;
    } else if (value("--rounds", &v)) {
      o->rounds = std::atoi(v.c_str());
      if (o->rounds < 1) return false;
    } else if (value("--transfer-max-size", &v)) {
      o->transfer_max_size = ParseBytes(v);
      if (o->transfer_max_size < 4096) return false;
    } else if (value("--csv", &v)) {
      if (v.empty()) return false;
      o->csv = v;
    } else if (a == "--markdown" || a == "--rounds" || a == "--transfer-max-size" || a == "--csv") {
      return false;  // missing value
    } else {
      if (a.rfind("--benchmark_min_time", 0) == 0) o->min_time_given = true;
      if (a.rfind("--benchmark_color=", 0) == 0) {
        const std::string c = a.substr(std::strlen("--benchmark_color="));
        o->color = (c == "false" || c == "no" || c == "0") ? 0 : (c == "true" || c == "yes" || c == "1") ? 1 : -1;
      }
      if (a == "--help" || a == "-h") {
        std::printf("bindery_bench flags: --markdown FILE  also write the result tables as Markdown (the transfer\n"
                    "                                      tables are appended)\n"
                    "                     --rounds N       run each no-layer/bindery record pair N times (default %d)\n"
                    "                     --transfer-max-size BYTES  largest transfer size, 4 KiB..1 GiB (default\n"
                    "                                      %llu; suffixes K, M, G)\n"
                    "                     --csv FILE       write transfer bandwidth as CSV (scripts/plot-transfers)\n"
                    "Select benchmarks with --benchmark_filter, e.g. '^record/', '^transfer/', '^timeline/' or '^bindings/'.\n"
                    "Google Benchmark flags follow (default min time here: %.2fs; transfer benchmarks: a shorter\n"
                    "one of their own unless --benchmark_min_time is given).\n\n",
                    kDefaultRounds, static_cast<unsigned long long>(kDefaultTransferMaxSize), kDefaultMinTimeS);
      }
      argv[kept++] = argv[i];
    }
  }
  *argc = kept;
  argv[kept] = nullptr;
  return true;
}

// The layer-off device must see no Bindery at all: drop what would enable it implicitly
// or force it into every instance. VK_ADD_LAYER_PATH defaults to the build tree.
void PrepareEnvironment() {
  for (const char* var : {"VK_INSTANCE_LAYERS", "VK_LOADER_LAYERS_ENABLE", "ENABLE_BINDERY"}) {
    if (std::getenv(var) != nullptr) {
      std::fprintf(stderr, "bindery_bench: unsetting %s so that the no-layer runs have no layer\n", var);
      unsetenv(var);
    }
  }
  const char* path = std::getenv("VK_ADD_LAYER_PATH");
  if ((path == nullptr || *path == '\0') && *BINDERY_EXPLICIT_MANIFEST_DIR != '\0') {
    setenv("VK_ADD_LAYER_PATH", BINDERY_EXPLICIT_MANIFEST_DIR, 1);
  }
}

bool BinderyLayerVisible() {
  uint32_t count = 0;
  if (vkEnumerateInstanceLayerProperties(&count, nullptr) != VK_SUCCESS) return false;
  std::vector<VkLayerProperties> layers(count);
  if (vkEnumerateInstanceLayerProperties(&count, layers.data()) < 0) return false;
  for (const VkLayerProperties& l : layers) {
    if (std::strcmp(l.layerName, "VK_LAYER_bindery") == 0) return true;
  }
  return false;
}

void PrintLayerHelp(const std::string& detail) {
  const char* path = std::getenv("VK_ADD_LAYER_PATH");
  std::fprintf(stderr,
               "bindery_bench: error: VK_LAYER_bindery cannot be loaded%s%s.\n"
               "  VK_ADD_LAYER_PATH is %s.\n"
               "  Build the layer and point VK_ADD_LAYER_PATH at the build tree's manifest directory:\n"
               "    cmake --build build --target VkLayer_bindery\n"
               "    export VK_ADD_LAYER_PATH=%s\n",
               detail.empty() ? "" : ": ", detail.c_str(), path ? path : "unset",
               *BINDERY_EXPLICIT_MANIFEST_DIR ? BINDERY_EXPLICIT_MANIFEST_DIR : "<build>/manifest/explicit");
}

std::string Today() {
  const std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d", std::localtime(&now));
  return buf;
}

// The record-only table (and its Markdown file). False if the file could not be written.
bool PrintRecordTable(const std::vector<TableRow>& rows, const std::string& device, const Options& options) {
  std::printf("\nRecord-only CPU time per dispatch on %s (median of %zu run(s) per cell; ratio = bindery / no layer)\n\n%s",
              device.c_str(), rows.front().samples, FormatTable(rows).c_str());
  double spread = 0;
  for (const TableRow& r : rows) spread = std::max(spread, r.spread);
  if (spread > 0.05) {
    std::printf("\nnote: runs of one cell differed by up to %.0f%% (busy machine?); ratios closer to 1 than that are "
                "noise. Try more --rounds or a longer --benchmark_min_time on an idle machine.\n",
                100 * spread);
  }
  if (!options.markdown.empty()) {
    std::string note = "Record-only CPU time per dispatch: " + std::to_string(kDispatchesPerIteration) +
                       " dispatches recorded per command buffer (pool reset, begin, record, end; never submitted), "
                       "device-level entry points from vkGetDeviceProcAddr, median of " +
                       std::to_string(rows.front().samples) + " interleaved run(s) per cell; ratio = bindery / no layer.";
    if (spread > 0.05) {
      note += " Runs of one cell differed by up to " + std::to_string(static_cast<int>(100 * spread + 0.5)) + "%.";
    }
    std::ofstream out(options.markdown);
    out << FormatMarkdown(rows, device, Today(), note);
    if (!out) {
      std::fprintf(stderr, "bindery_bench: error: could not write %s\n", options.markdown.c_str());
      return false;
    }
    std::printf("\nMarkdown table written to %s\n", options.markdown.c_str());
  }
  return true;
}

// The transfer tables, what each configuration did, and the Markdown / CSV files. Destroys
// the transfer devices (the layer reports its counters then). False if a file could not
// be written.
bool PrintTransferTables(const std::vector<TransferResult>& results, TransferSuite& transfers, const Options& options) {
  const std::vector<ConfigReport> reports = transfers.Finish();
  const std::string device = transfers.device_description();
  std::printf("\nTransfer benchmarks on %s; buffers in %s\n", device.c_str(), transfers.memory_description().c_str());
  std::printf("%s", FormatTransferTables(results).c_str());
  std::printf("\nConfigurations:\n%s", FormatConfigReports(reports, false).c_str());
  bool ok = true;
  if (!options.markdown.empty() && !results.empty()) {
    const std::string note =
        "GPU time from vkCmdWriteTimestamp (TOP_OF_PIPE / BOTTOM_OF_PIPE) around one command per command buffer "
        "(the small-command rows: " + std::to_string(kSmallCommands) +
        " commands), median over repetitions; bandwidth counts bytes read + written (fill: written; copy: 2x size); "
        "buffers in " + transfers.memory_description() +
        ". Unaligned: fill at offset 1, size - 2; copy src + 1 -> dst + 3, size - 4. One instance and device per "
        "configuration, in one process: no layer, and VK_LAYER_bindery with BINDERY_TRANSFER_STRATEGY=auto, native, "
        "compute.\n\nConfigurations:\n\n" + FormatConfigReports(reports, true);
    std::ofstream out(options.markdown, std::ios::app);
    out << "\n" << FormatTransferMarkdown(results, device, Today(), note);
    if (!out) {
      std::fprintf(stderr, "bindery_bench: error: could not write %s\n", options.markdown.c_str());
      ok = false;
    } else {
      std::printf("\nTransfer tables appended to %s\n", options.markdown.c_str());
    }
  }
  if (!options.csv.empty()) {
    std::ofstream out(options.csv);
    out << FormatTransferCsv(results);
    if (!out) {
      std::fprintf(stderr, "bindery_bench: error: could not write %s\n", options.csv.c_str());
      ok = false;
    } else {
      std::printf("Transfer bandwidth CSV written to %s\n", options.csv.c_str());
    }
  }
  return ok;
}

// The timeline table (appended to the Markdown file). False if the file could not be written.
bool PrintTimelineTable(const std::vector<TimelineRow>& rows, const std::string& device, const Options& options) {
  std::printf("\nTimeline semaphores on %s (wall-clock us per operation, median of %zu run(s); ratio = / native)\n\n%s",
              device.c_str(), rows.front().samples, FormatTimelineTable(rows).c_str());
  if (options.markdown.empty()) return true;
  std::ofstream out(options.markdown, std::ios::app);
  out << "\n" << FormatTimelineMarkdown(rows, device, Today());
  if (!out) {
    std::fprintf(stderr, "bindery_bench: error: could not write %s\n", options.markdown.c_str());
    return false;
  }
  std::printf("\nTimeline table appended to %s\n", options.markdown.c_str());
  return true;
}

// The indirect-bindings table and memory line (appended to the Markdown file). False if
// the file could not be written.
bool PrintBindingsTable(const std::vector<BindingsRow>& rows, const BindingsMemory& memory, const std::string& device,
                        const Options& options) {
  std::printf("\nIndirect bindings on %s (median of %zu run(s) per cell; native = no layer, forced = "
              "BINDERY_INDIRECT_BINDINGS=force)\n\n%s",
              device.c_str(), rows.front().samples, FormatBindingsTable(rows, memory).c_str());
  if (options.markdown.empty()) return true;
  const std::string note =
      "Median of " + std::to_string(rows.front().samples) +
      " interleaved run(s) per cell. Native: no layer; forced: VK_LAYER_bindery with BINDERY_INDIRECT_BINDINGS=force "
      "(storage buffers converted, the pipelines rewritten). Bandwidth: GPU time from timestamps around one "
      "dispatch, bytes read + written; tiny dispatches: wall-clock submit-to-fence of one pre-recorded command buffer, the fastest of 15; "
      "pipeline creation: wall-clock, no VkPipelineCache, driver disk caches off (MESA_SHADER_CACHE_DISABLE, "
      "__GL_SHADER_DISK_CACHE=0), the cold row creates a new module (a patched constant) each time.";
  std::ofstream out(options.markdown, std::ios::app);
  out << "\n" << FormatBindingsMarkdown(rows, memory, device, Today(), note);
  if (!out) {
    std::fprintf(stderr, "bindery_bench: error: could not write %s\n", options.markdown.c_str());
    return false;
  }
  std::printf("\nIndirect-bindings table appended to %s\n", options.markdown.c_str());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!ParseOwnFlags(&argc, argv, &options)) {
    std::fprintf(stderr,
                 "bindery_bench: usage: --markdown FILE, --rounds N (N >= 1), --transfer-max-size BYTES (>= 4096), "
                 "--csv FILE\n");
    return 1;
  }
  PrepareEnvironment();
  // Our default minimum time, unless the command line sets one (it wins either way).
  std::vector<char*> args(argv, argv + argc);
  std::string min_time_flag = "--benchmark_min_time=" + std::to_string(kDefaultMinTimeS);
  if (!options.min_time_given) args.push_back(min_time_flag.data());
  int args_count = static_cast<int>(args.size());
  args.push_back(nullptr);
  benchmark::Initialize(&args_count, args.data());
  if (benchmark::ReportUnrecognizedArguments(args_count, args.data())) return 1;

  if (!BinderyLayerVisible()) {
    PrintLayerHelp("the loader lists no such layer");
    return 2;
  }
  std::string error;
  std::unique_ptr<BenchDevice> no_layer = BenchDevice::Create(false, &error);
  if (!no_layer) {
    std::fprintf(stderr, "bindery_bench: error: %s\n", error.c_str());
    return 1;
  }
  std::unique_ptr<BenchDevice> bindery = BenchDevice::Create(true, &error);
  if (!bindery) {
    PrintLayerHelp(error);
    return 2;
  }
  if (!WarmUp(*no_layer) || !WarmUp(*bindery)) {
    std::fprintf(stderr, "bindery_bench: error: recording failed during the warm-up\n");
    return 1;
  }
  const std::string device = no_layer->Description();
  std::printf("bindery_bench: device %s, %u dispatches per command buffer, %d round(s)\n", device.c_str(),
              kDispatchesPerIteration, options.rounds);
  std::fflush(stdout);

  const std::vector<Registration> registrations = RegisterRecordBenchmarks(*no_layer, *bindery, options.rounds);
  // Transfer devices (one per configuration) are created when the first transfer
  // benchmark runs, so that filtering them out costs nothing.
  TransferOptions transfer_options;
  transfer_options.max_size = options.transfer_max_size;
  transfer_options.set_min_time = !options.min_time_given;
  TransferSuite transfers(transfer_options);
  transfers.Register();
  // Timeline devices (native, pass-through, emulated) are created when the first timeline
  // benchmark runs.
  TimelineSuite timelines(options.rounds);
  timelines.Register();
  // Indirect-bindings devices (native, forced) are created when the first one runs.
  BindingsSuite bindings(options.rounds);
  bindings.Register();
  const bool color = options.color == 1 || (options.color == -1 && isatty(STDOUT_FILENO));
  const auto output = color ? benchmark::ConsoleReporter::OO_ColorTabular : benchmark::ConsoleReporter::OO_Tabular;
  TransferReporter reporter(output, WorkloadNames(), registrations, kDispatchesPerIteration, transfers.registrations());
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  const std::vector<TableRow> rows = reporter.Rows();
  if (!rows.empty() && !PrintRecordTable(rows, device, options)) return 1;
  if (transfers.started() && !PrintTransferTables(reporter.TransferResults(), transfers, options)) return 1;
  if (timelines.started()) {
    const std::vector<TimelineRow> timeline_rows = timelines.Rows();
    timelines.Finish();
    if (!timeline_rows.empty() && !PrintTimelineTable(timeline_rows, timelines.device_description(), options)) return 1;
  }
  if (bindings.started()) {
    const std::vector<BindingsRow> bindings_rows = bindings.Rows();
    const BindingsMemory memory = bindings.Finish();
    if (!bindings_rows.empty() &&
        !PrintBindingsTable(bindings_rows, memory, bindings.device_description(), options)) {
      return 1;
    }
  }
  if (reporter.errors() > 0) {
    std::fprintf(stderr, "bindery_bench: %d benchmark(s) reported an error\n", reporter.errors());
    return 1;
  }
  return 0;
}
