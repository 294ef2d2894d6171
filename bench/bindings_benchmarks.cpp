#include "bindings_benchmarks.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <regex>
#include <sstream>
#include <unistd.h>

#include <benchmark/benchmark.h>
#include <vulkan/vulkan.h>

#include "bindings_device.h"
#include "four_buffers_spv.h"
#include "support/vk_harness.h"
#include "table_reporter.h"

namespace bindery::bench {
namespace {

constexpr int kTinyIterations = 15;  // submissions per run; the fastest counts
constexpr uint32_t kMemorySets = 1024;  // the memory row's pool: this many sets of 4 storage buffers

enum Workload : size_t { kBandwidth, kPointers, kTiny, kCold, kCached, kWorkloadCount };

struct WorkloadInfo {
  const char* name;
  const char* unit;
  bool higher_is_better;
  const char* target;
};

const WorkloadInfo kWorkloads[kWorkloadCount] = {
    {"bindings/axpy z=a*x+y, 3 storage buffers", "GB/s", true, ">= 0.9x lavapipe, >= 0.98x H100"},
    // Not converted (no descriptors): its native column against the row above is the
    // driver's pointer-vs-descriptor cost, the floor of what the rewrite can reach.
    {"bindings/same axpy by hand through buffer_reference pointers", "GB/s", true, "(diagnosis)"},
    {"bindings/10^4 one-workgroup dispatches, submitted", "us/dispatch", false, "<= 1.0x"},
    {"bindings/create compute pipeline, new module (cold rewrite)", "ms/pipeline", false, "<= 1.15x"},
    {"bindings/create compute pipeline, same module (rewrite cache)", "ms/pipeline", false, "<= 1.02x"},
};

void RunBindingsBenchmark(benchmark::State& state, BindingsSuite* suite, size_t workload, bool forced, int round) {
  std::string error;
  BindingsDevice* d = suite->Device(forced, &error);
  if (d == nullptr) {
    state.SkipWithError(error.c_str());
    return;
  }
  std::vector<double> gbps;
  double best_tiny_us = 1e300;  // the fastest submission: other processes' load only slows a run down
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    bool ok = true;
    switch (workload) {
      case kBandwidth:
      case kPointers: {
        double s = 0;
        ok = d->Bandwidth(workload == kPointers, &s);
        if (ok) gbps.push_back(3.0 * static_cast<double>(d->buffer_bytes()) / s * 1e-9);
        break;
      }
      case kTiny: {
        const auto t0 = std::chrono::steady_clock::now();
        ok = d->Tiny();
        best_tiny_us = std::min(
            best_tiny_us, std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
        break;
      }
      case kCold:
        ok = d->CreateCold();
        break;
      default:
        ok = d->CreateCached();
        break;
    }
    if (!ok) {
      state.SkipWithError("a submission or pipeline creation failed");
      return;
    }
  }
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  const double n = static_cast<double>(state.iterations());
  double value = 0;
  if (workload == kBandwidth || workload == kPointers) {
    value = Median(gbps);  // GPU time, the median pass
  } else if (workload == kTiny) {
    value = best_tiny_us / kTinyDispatches;
  } else {
    value = us / n / 1000.0;
  }
  state.counters[kWorkloads[workload].unit] = benchmark::Counter(value);
  suite->Record(workload, forced, round, value);
}

}  // namespace

BindingsSuite::BindingsSuite(int rounds) : rounds_(rounds) {
  results_.resize(kWorkloadCount);
  for (auto& w : results_) {
    w.resize(2);
    for (auto& side : w) side.assign(static_cast<size_t>(rounds), -1.0);
  }
}

BindingsSuite::~BindingsSuite() = default;

void BindingsSuite::Register() {
  for (int round = 0; round < rounds_; ++round) {
    for (size_t w = 0; w < kWorkloadCount; ++w) {
      for (int v = 0; v < 2; ++v) {
        const bool forced = (v == 1) != (round % 2 == 1);
        std::string name = std::string(kWorkloads[w].name) + (forced ? "/forced" : "/native");
        if (rounds_ > 1) name += "/round:" + std::to_string(round + 1);
        benchmark::internal::Benchmark* b =
            benchmark::RegisterBenchmark(name.c_str(), &RunBindingsBenchmark, this, w, forced, round);
        b->Unit(benchmark::kMillisecond)->UseRealTime();
        if (w == kTiny) b->Iterations(kTinyIterations);
      }
    }
  }
}

BindingsDevice* BindingsSuite::Device(bool forced, std::string* error) {
  if (!started_) {
    started_ = true;
    for (int i = 0; i < 2; ++i) {
      auto d = std::make_unique<BindingsDevice>(i == 1);
      std::string e = d->Init();
      if (e.empty()) {
        devices_[i] = std::move(d);
      } else {
        create_error_[i] = std::string(i == 1 ? "forced" : "native") + " bindings device: " + e;
      }
    }
    if (devices_[0] != nullptr) description_ = devices_[0]->description();
  }
  if (devices_[forced] == nullptr) *error = create_error_[forced];
  return devices_[forced].get();
}

void BindingsSuite::Record(size_t workload, bool forced, int round, double value) {
  results_[workload][forced][static_cast<size_t>(round)] = value;
}

unsigned long long BindingsSuite::bandwidth_bytes() const {
  return devices_[0] != nullptr ? devices_[0]->buffer_bytes() : 0;
}

std::vector<BindingsRow> BindingsSuite::Rows() const {
  std::vector<BindingsRow> rows;
  for (size_t w = 0; w < kWorkloadCount; ++w) {
    BindingsRow row;
    row.workload = kWorkloads[w].name;
    row.unit = kWorkloads[w].unit;
    row.higher_is_better = kWorkloads[w].higher_is_better;
    row.target = kWorkloads[w].target;
    row.samples = static_cast<size_t>(rounds_);
    bool complete = true;
    for (int side = 0; side < 2; ++side) {
      std::vector<double> v;
      for (double x : results_[w][side]) {
        if (x >= 0) v.push_back(x);
      }
      if (v.empty()) {
        complete = false;
        break;
      }
      row.samples = std::min(row.samples, v.size());
      (side == 1 ? row.forced : row.native) = Median(v);
    }
    if (complete) rows.push_back(row);
  }
  for (BindingsRow& r : rows) {
    if (r.unit == std::string("GB/s")) r.workload += " (" + std::to_string(bandwidth_bytes() >> 20) + " MiB each)";
  }
  return rows;
}

namespace {

// A forced device that makes one pool of kMemorySets sets of four storage buffers and
// allocates them all; the layer's summary (written to a log file of our own when the
// device is destroyed) says how many argument-block bytes it allocated.
BindingsMemory MeasureMemory() {
  BindingsMemory m;
  m.sets = kMemorySets;
  m.descriptors = 4 * kMemorySets;
  char path[] = "/tmp/bindery-bench-memory.XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) {
    m.error = "mkstemp failed";
    return m;
  }
  close(fd);
  {
    EnvOverride forced("BINDERY_INDIRECT_BINDINGS", "force");
    EnvOverride ubo("BINDERY_BINDINGS_UBO", nullptr);
    EnvOverride level("BINDERY_LOG_LEVEL", "info");
    EnvOverride file("BINDERY_LOG_FILE", path);
    test::VkHarness h(BindingsHarnessOptions(true));
    if (!h.ok()) {
      m.error = h.error();
      unlink(path);
      return m;
    }
    test::ComputeKernel k = h.CreateKernel(four_buffers_spv, sizeof(four_buffers_spv), 4);
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, m.descriptors};
    VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dpci.maxSets = kMemorySets;
    dpci.poolSizeCount = 1;
    dpci.pPoolSizes = &size;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    if (k.set_layout == VK_NULL_HANDLE || vkCreateDescriptorPool(h.device(), &dpci, nullptr, &pool) != VK_SUCCESS) {
      m.error = "pool creation failed";
    } else {
      std::vector<VkDescriptorSetLayout> layouts(kMemorySets, k.set_layout);
      std::vector<VkDescriptorSet> sets(kMemorySets);
      VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
      alloc.descriptorPool = pool;
      alloc.descriptorSetCount = kMemorySets;
      alloc.pSetLayouts = layouts.data();
      if (vkAllocateDescriptorSets(h.device(), &alloc, sets.data()) != VK_SUCCESS) m.error = "set allocation failed";
      vkDestroyDescriptorPool(h.device(), pool, nullptr);
    }
    if (k.module != VK_NULL_HANDLE) h.Destroy(k);
  }  // the device is destroyed here: the summary is written
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  unlink(path);
  std::smatch match;
  const std::string log = text.str();
  if (std::regex_search(log, match, std::regex("argument-block bytes ([0-9]+)"))) {
    m.block_bytes = std::stoull(match[1].str());
    m.measured = m.error.empty();
  } else if (m.error.empty()) {
    m.error = "no 'argument-block bytes' in the layer's summary";
  }
  return m;
}

std::vector<std::vector<std::string>> Cells(const std::vector<BindingsRow>& rows) {
  std::vector<std::vector<std::string>> cells;
  cells.push_back({"workload", "unit", "native", "bindery forced", "ratio (forced/native)", "target"});
  for (const BindingsRow& r : rows) {
    const int decimals = r.native >= 100 ? 1 : r.native >= 1 ? 2 : 3;
    cells.push_back({r.workload, r.unit, Fixed(r.native, decimals), Fixed(r.forced, decimals),
                     Fixed(r.forced / r.native, 3) + "x", r.target});
  }
  return cells;
}

std::string MemoryLine(const BindingsMemory& m) {
  if (!m.measured) return "argument-block memory: not measured (" + m.error + ")";
  return "argument-block memory (a pool of " + std::to_string(m.sets) + " sets x 4 storage buffers, the layer's " +
         "counter): " + std::to_string(m.block_bytes) + " bytes = " +
         Fixed(static_cast<double>(m.block_bytes) / m.descriptors, 1) + " bytes per descriptor, " +
         Fixed(static_cast<double>(m.block_bytes) / m.sets, 1) + " bytes per set";
}

}  // namespace

BindingsMemory BindingsSuite::Finish() {
  for (auto& d : devices_) d.reset();
  return MeasureMemory();
}

std::string FormatBindingsTable(const std::vector<BindingsRow>& rows, const BindingsMemory& memory) {
  const std::string out = FormatColumns(Cells(rows), [](size_t c) { return c >= 2 && c <= 4; });
  return out + MemoryLine(memory) + "\n";
}

std::string FormatBindingsMarkdown(const std::vector<BindingsRow>& rows, const BindingsMemory& memory,
                                   const std::string& device, const std::string& date, const std::string& note) {
  const auto cells = Cells(rows);
  std::string out = "### Indirect bindings on " + device + " (" + date + ")\n\n" + note + "\n\n";
  for (size_t r = 0; r < cells.size(); ++r) {
    out += "|";
    for (const std::string& c : cells[r]) out += " " + c + " |";
    out += "\n";
    if (r == 0) out += "|---|---|---:|---:|---:|---|\n";
  }
  return out + "\n" + MemoryLine(memory) + "\n";
}

}  // namespace bindery::bench
