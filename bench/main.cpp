// bindery_bench: record-only CPU cost per dispatch with VK_LAYER_bindery on and off, in
// one process. Google Benchmark flags work as usual; ours are --markdown FILE (also
// write the final table as Markdown) and --rounds N (times each workload pair runs).
#include <unistd.h>

#include <algorithm>
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
#include "record_benchmarks.h"
#include "table_reporter.h"

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
};

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
    } else if (a == "--markdown" || a == "--rounds") {
      return false;  // missing value
    } else {
      if (a.rfind("--benchmark_min_time", 0) == 0) o->min_time_given = true;
      if (a.rfind("--benchmark_color=", 0) == 0) {
        const std::string c = a.substr(std::strlen("--benchmark_color="));
        o->color = (c == "false" || c == "no" || c == "0") ? 0 : (c == "true" || c == "yes" || c == "1") ? 1 : -1;
      }
      if (a == "--help" || a == "-h") {
        std::printf("bindery_bench flags: --markdown FILE  also write the result table as Markdown\n"
                    "                     --rounds N       run each no-layer/bindery pair N times (default %d)\n"
                    "Google Benchmark flags follow (default min time here: %.2fs).\n\n",
                    kDefaultRounds, kDefaultMinTimeS);
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

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!ParseOwnFlags(&argc, argv, &options)) {
    std::fprintf(stderr, "bindery_bench: usage: --markdown FILE, --rounds N (N >= 1)\n");
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
  const bool color = options.color == 1 || (options.color == -1 && isatty(STDOUT_FILENO));
  TableReporter reporter(color ? benchmark::ConsoleReporter::OO_ColorTabular : benchmark::ConsoleReporter::OO_Tabular,
                         WorkloadNames(), registrations, kDispatchesPerIteration);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  const std::vector<TableRow> rows = reporter.Rows();
  if (rows.empty()) {  // listing, or a filter that left no complete pair
    if (reporter.errors() > 0) std::fprintf(stderr, "bindery_bench: %d benchmark(s) failed\n", reporter.errors());
    return reporter.errors() > 0 ? 1 : 0;
  }
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
      return 1;
    }
    std::printf("\nMarkdown table written to %s\n", options.markdown.c_str());
  }
  if (reporter.errors() > 0) {
    std::fprintf(stderr, "bindery_bench: %d benchmark(s) reported an error\n", reporter.errors());
    return 1;
  }
  return 0;
}
