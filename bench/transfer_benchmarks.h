// Transfer benchmarks (names start with "transfer/"): GPU bandwidth of vkCmdFillBuffer and
// vkCmdCopyBuffer at aligned and unaligned offsets, and the per-command cost of 1000 small
// fills/updates, each on four devices in one process: no layer, and VK_LAYER_bindery with
// the transfer strategies auto, native and compute. GPU time comes from timestamps
// around the command(s) (manual time); bytes counted are read + written.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "transfer_device.h"

namespace bindery::bench {

inline constexpr uint64_t kDefaultTransferMaxSize = 64ull << 20;
inline constexpr uint32_t kSmallCommands = 1000;  // commands per command buffer, small workloads

enum class TransferOp { kFill, kCopy, kUpdate };

struct TransferWorkload {
  const char* name;  // "fill aligned", "update x1000 63B unaligned", ...
  TransferOp op;
  bool aligned;  // unaligned fills/updates are valid only with the layer
  bool small;    // kSmallCommands small commands (no size axis) instead of one big one
  // The aligned workload the ratios compare against (its "no layer" result), and for
  // unaligned copies also the native unaligned one (itself); -1: none.
  int baseline;
  int native_same;
};

// Table order.
const std::vector<TransferWorkload>& TransferWorkloads();
// Sizes measured for the bandwidth workloads: 4 KiB ... 1 GiB, those <= max_size.
std::vector<uint64_t> TransferSizes(uint64_t max_size);
std::string SizeLabel(uint64_t bytes);  // "4 KiB", "1 GiB", "1000 B"

struct TransferRegistration {
  std::string name;  // as given to RegisterBenchmark
  size_t workload;   // index into TransferWorkloads()
  uint64_t size;     // bandwidth workloads; 0 for small ones
  TransferConfig config;
  double bytes_per_iteration;  // read + written; 0 for small ones
};

struct TransferOptions {
  uint64_t max_size = kDefaultTransferMaxSize;
  bool set_min_time = true;  // false when the command line chose --benchmark_min_time
};

struct CheckResult {
  std::string name;
  bool ok = false;
  std::string detail;  // what was wrong
};

// What happened on one configuration's device, for the final report.
struct ConfigReport {
  TransferConfig config;
  bool created = false;
  std::string error;   // creation or warm-up failure
  std::string policy;  // the layer's policy line
  std::vector<CheckResult> checks;
  std::string broken;                       // a benchmark failed on it (submission, hang)
  std::vector<std::string> layer_problems;  // warnings/errors the layer sent
  std::string layer_summary;                // the layer's counters at vkDestroyDevice
};

class TransferSuite {
 public:
  explicit TransferSuite(const TransferOptions& options) : options_(options) {}
  ~TransferSuite();
  TransferSuite(const TransferSuite&) = delete;
  TransferSuite& operator=(const TransferSuite&) = delete;

  // Registers every transfer benchmark (workloads x sizes x configurations, the
  // configurations of one cell back to back).
  const std::vector<TransferRegistration>& Register();
  const std::vector<TransferRegistration>& registrations() const { return registrations_; }

  // The device of a configuration. The first call sets up every configuration: creates
  // the devices, warms each up and checks a few results. Null + *error if unusable.
  TransferDevice* Get(TransferConfig config, std::string* error);

  bool started() const { return started_; }
  const std::string& device_description() const { return device_description_; }
  const std::string& memory_description() const { return memory_description_; }
  const TransferOptions& options() const { return options_; }
  // Destroys the devices (collecting the layer's summaries) and returns every report.
  std::vector<ConfigReport> Finish();

  // Records workload `w` at `size` into the device's command buffer.
  static void RecordWorkload(const TransferDevice& d, const TransferWorkload& w, uint64_t size);

 private:
  void SetUp();
  VkDeviceSize BufferBytes() const;

  TransferOptions options_;
  std::vector<TransferRegistration> registrations_;
  bool started_ = false;
  std::unique_ptr<TransferDevice> devices_[kTransferConfigCount];
  ConfigReport reports_[kTransferConfigCount];
  std::string device_description_;
  std::string memory_description_;
};

}  // namespace bindery::bench
