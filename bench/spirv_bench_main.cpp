// bindery_spirv_bench (docs/measured.md, "SPIR-V rewrite speed"): per module of the differential corpus and of the
// generated large shaders, Google Benchmark times
//   rewrite/<module>    parse + rewrite + write (RewriteDescriptorsToPointers, every buffer)
//   spirv-val/<module>  SPIRV-Tools validation of the rewritten module (the layer's check)
//   pipeline/<module>   lavapipe's native vkCreateShaderModule + vkCreateComputePipelines
//   first-dispatch/<module>  the same plus one dispatch (lavapipe JIT-compiles there)
// and prints a table: the rewrite as a share of native pipeline creation (target: the median over
// the compute modules < 5%; the worst is printed beside it), and
// of creation + first dispatch, and per word of module (flat when linear in module size).
// Flags: Google Benchmark's, plus --markdown FILE (also write the table as Markdown) and
// --cpu-time (the table from the calling thread's CPU time instead of wall-clock time: on a
// loaded machine wall-clock time counts the time a microsecond rewrite waits to be
// scheduled; lavapipe compiles on the calling thread, so both columns stay comparable).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <spirv-tools/libspirv.hpp>

#include "spirv_bench_modules.h"
#include "spirv_bench_pipeline.h"

namespace {

using bindery::bench::BenchModule;

constexpr size_t kMaxDispatchWords = 50000;

spv_target_env EnvFor(bindery::spirv::TargetEnv t) {
  switch (t) {
    case bindery::spirv::TargetEnv::kVulkan1_0: return SPV_ENV_VULKAN_1_0;
    case bindery::spirv::TargetEnv::kVulkan1_1: return SPV_ENV_VULKAN_1_1;
    case bindery::spirv::TargetEnv::kVulkan1_1Spirv1_4: return SPV_ENV_VULKAN_1_1_SPIRV_1_4;
    case bindery::spirv::TargetEnv::kVulkan1_2: return SPV_ENV_VULKAN_1_2;
    case bindery::spirv::TargetEnv::kVulkan1_3: return SPV_ENV_VULKAN_1_3;
  }
  return SPV_ENV_VULKAN_1_2;
}

// Keeps Google Benchmark's console output and remembers ns per iteration by name.
class Collector : public benchmark::ConsoleReporter {
 public:
  explicit Collector(bool cpu_time) : cpu_time_(cpu_time) {}
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    // With --benchmark_repetitions the median wins; a single run stands for itself.
    for (const Run& r : runs) {
      if (r.error_occurred || r.iterations == 0) continue;
      const double ns = (cpu_time_ ? r.GetAdjustedCPUTime() : r.GetAdjustedRealTime()) /
                        benchmark::GetTimeUnitMultiplier(r.time_unit) * 1e9;
      const std::string name = r.run_name.str();
      if (r.run_type == Run::RT_Aggregate) {
        if (r.aggregate_name == "median") {
          ns_[name] = ns;
          from_median_.insert(name);
        }
      } else if (!from_median_.count(name)) {
        ns_[name] = ns;
      }
    }
  }
  double Get(const std::string& name) const {
    auto it = ns_.find(name);
    return it == ns_.end() ? -1.0 : it->second;
  }

 private:
  bool cpu_time_;
  std::map<std::string, double> ns_;
  std::set<std::string> from_median_;
};

std::string Us(double ns) {
  if (ns < 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, ns < 10000 ? "%.1f" : "%.0f", ns / 1000.0);
  return buf;
}

std::string Fixed(double v, int decimals) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  // Lavapipe must compile every time (no shader cache), or pipeline creation is a lookup.
  ::setenv("MESA_SHADER_CACHE_DISABLE", "true", 1);
  ::setenv("VK_ICD_FILENAMES", "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json", 0);
  std::string markdown;
  bool cpu_time = false;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--cpu-time") == 0) {
      cpu_time = true;
      continue;
    }
    if (std::strcmp(argv[i], "--markdown") == 0 && i + 1 < argc) {
      markdown = argv[++i];
      continue;
    }
    args.push_back(argv[i]);
  }
  int new_argc = static_cast<int>(args.size());
  benchmark::Initialize(&new_argc, args.data());

  std::vector<BenchModule> modules = bindery::bench::LoadBenchModules(BINDERY_SPIRV_CORPUS_DIR, BINDERY_SPIRV_LARGE_DIR);
  if (modules.empty()) {
    std::fprintf(stderr, "no modules under %s (was the corpus built?)\n", BINDERY_SPIRV_CORPUS_DIR);
    return 1;
  }
  bindery::bench::PipelineTimer pipelines;
  if (!pipelines.error().empty()) std::fprintf(stderr, "pipeline timing off: %s\n", pipelines.error().c_str());
  std::map<std::string, std::string> no_pipeline;

  for (const BenchModule& m : modules) {
    const BenchModule* mp = &m;
    benchmark::RegisterBenchmark(("rewrite/" + m.name).c_str(), [mp](benchmark::State& state) {
      for (auto _ : state) {
        auto r = bindery::spirv::RewriteDescriptorsToPointers(mp->words.data(), mp->words.size(), mp->layout);
        benchmark::DoNotOptimize(r.module.data());
      }
      state.counters["words"] = static_cast<double>(mp->words.size());
    })->Unit(benchmark::kMicrosecond);
    if (m.converted) {
      benchmark::RegisterBenchmark(("spirv-val/" + m.name).c_str(), [mp](benchmark::State& state) {
        spvtools::SpirvTools tools(EnvFor(mp->layout.target));
        bool ok = true;
        for (auto _ : state) ok = tools.Validate(mp->rewritten.data(), mp->rewritten.size()) && ok;
        if (!ok) state.SkipWithError("the rewritten module does not validate");
      })->Unit(benchmark::kMicrosecond);
    }
    if (pipelines.error().empty()) {
      const std::string why = pipelines.Prepare(m);
      if (!why.empty()) {
        no_pipeline[m.name] = why;
        continue;
      }
      benchmark::RegisterBenchmark(("pipeline/" + m.name).c_str(), [mp, &pipelines](benchmark::State& state) {
        for (auto _ : state) {
          if (!pipelines.CreateAndDestroy(*mp)) state.SkipWithError("pipeline creation failed");
        }
      })->Unit(benchmark::kMicrosecond);
      // Lavapipe's JIT takes minutes on the largest generated shader: first dispatch is timed
      // up to kMaxDispatchWords only.
      if (pipelines.CanDispatch(m) && m.words.size() <= kMaxDispatchWords) {
        benchmark::RegisterBenchmark(("first-dispatch/" + m.name).c_str(), [mp, &pipelines](benchmark::State& state) {
          for (auto _ : state) {
            if (!pipelines.CreateDispatchDestroy(*mp)) state.SkipWithError("pipeline + dispatch failed");
          }
        })->Unit(benchmark::kMicrosecond);
      }
    }
  }

  Collector collector(cpu_time);
  benchmark::RunSpecifiedBenchmarks(&collector);

  // The table.
  std::ostringstream md;
  md << "| module | words | rewrite µs | ns/word | spirv-val µs | lavapipe pipeline µs | rewrite / pipeline |"
        " pipeline + first dispatch µs | rewrite / (pipeline + dispatch) |\n";
  md << "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  std::vector<double> shares;
  std::vector<double> dispatch_shares;
  double worst_share = 0;
  std::string worst;
  for (const BenchModule& m : modules) {
    const double rw = collector.Get("rewrite/" + m.name);
    if (rw < 0) continue;  // filtered out
    const double val = collector.Get("spirv-val/" + m.name);
    const double pipe = collector.Get("pipeline/" + m.name);
    const double first = collector.Get("first-dispatch/" + m.name);
    std::string dispatch_share = "-";
    if (first > 0 && m.converted) {
      dispatch_shares.push_back(rw / first);
      dispatch_share = Fixed(100.0 * rw / first, 2) + " %";
    }
    std::string share = "-";
    if (pipe > 0 && m.converted) {
      const double s = rw / pipe;
      shares.push_back(s);
      share = Fixed(100.0 * s, 2) + " %";
      if (s > worst_share) {
        worst_share = s;
        worst = m.name;
      }
    }
    std::string name = m.name + (m.large ? " (generated)" : "");
    if (!m.converted) name += " (not converted: " + m.note + ")";
    md << "| " << name << " | " << m.words.size() << " | " << Us(rw) << " | "
       << Fixed(rw / static_cast<double>(m.words.size()), 2) << " | " << Us(val) << " | " << Us(pipe) << " | "
       << share << " | " << Us(first) << " | " << dispatch_share << " |\n";
  }
  std::sort(shares.begin(), shares.end());
  std::ostringstream summary;
  if (!shares.empty()) {
    summary << "rewrite / native pipeline creation (" << (cpu_time ? "CPU time" : "wall clock") << ") over "
            << shares.size() << " compute modules: median "
            << Fixed(100.0 * shares[shares.size() / 2], 2) << " %, worst " << Fixed(100.0 * worst_share, 2) << " % ("
            << worst << "); target: median < 5 %: " << (shares[shares.size() / 2] < 0.05 ? "met" : "NOT met") << "\n";
  }
  // Linearity: time per word across the generated shaders (4x apart in size each).
  std::vector<std::pair<size_t, double>> per_word;
  for (const BenchModule& m : modules) {
    const double rw = collector.Get("rewrite/" + m.name);
    if (m.large && rw > 0) per_word.emplace_back(m.words.size(), rw / static_cast<double>(m.words.size()));
  }
  if (per_word.size() >= 2) {
    summary << "rewrite ns/word over the generated shaders:";
    for (const auto& [words, ns] : per_word) summary << " " << words << " words: " << Fixed(ns, 1) << ";";
    summary << " largest/smallest = " << Fixed(per_word.back().second / per_word.front().second, 2)
            << " (1.00 = linear)\n";
  }
  std::sort(dispatch_shares.begin(), dispatch_shares.end());
  if (!dispatch_shares.empty()) {
    summary << "rewrite / (pipeline creation + first dispatch) over " << dispatch_shares.size() << " modules: median "
            << Fixed(100.0 * dispatch_shares[dispatch_shares.size() / 2], 2) << " %, worst "
            << Fixed(100.0 * dispatch_shares.back(), 2) << " %\n";
  }
  for (const auto& [name, why] : no_pipeline) summary << "no pipeline timing for " << name << ": " << why << "\n";
  std::printf("\n%s\n%s", md.str().c_str(), summary.str().c_str());
  if (!markdown.empty()) {
    std::ofstream out(markdown);
    out << md.str() << "\n" << summary.str();
  }
  return 0;
}
