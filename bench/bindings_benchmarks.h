// Indirect-bindings benchmarks (docs/measured.md: bandwidth, tiny dispatches, pipeline creation, memory) on two devices of one
// process: native (no layer) and VK_LAYER_bindery with BINDERY_INDIRECT_BINDINGS=force.
//   bandwidth    z = a*x + y over three storage buffers (256 MiB each on a GPU, 16 MiB on a
//                CPU driver), GPU time from timestamps: GB/s (bytes read + written)
//   tiny         10^4 one-workgroup dispatches in one pre-recorded command buffer, submitted
//                and waited: wall-clock time per dispatch (the fastest of 15 submissions)
//   cold create  vkCreateShaderModule + vkCreateComputePipelines (no pipeline cache) of a
//                module never seen before (a constant patched per iteration): the rewrite
//                cache misses on the forced side, the driver compiles on both
//   cached       vkCreateComputePipelines of the same module again (the rewrite cache hits)
//   memory       argument-block bytes per descriptor and per set for a pool of 1024 sets of
//                four storage buffers (the layer's "argument-block bytes" counter, read
//                from its summary line)
// Registered interleaved (native / forced, the order alternating per round); devices are
// created when the first one runs, so filtering them out costs nothing.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace bindery::bench {

struct BindingsRow {
  std::string workload;
  std::string unit;
  double native = 0;
  double forced = 0;
  bool higher_is_better = false;  // GB/s
  std::string target;             // e.g. ">= 0.9x"
  size_t samples = 0;
};

struct BindingsMemory {
  bool measured = false;
  std::string error;
  unsigned long long block_bytes = 0;  // the pool's argument block, as the layer counted it
  unsigned sets = 0;
  unsigned descriptors = 0;
};

class BindingsDevice;

class BindingsSuite {
 public:
  explicit BindingsSuite(int rounds);
  ~BindingsSuite();
  void Register();
  bool started() const { return started_; }
  std::vector<BindingsRow> Rows() const;
  std::string device_description() const { return description_; }
  // Destroys the two devices, then measures the memory row on a device of its own.
  BindingsMemory Finish();

  BindingsDevice* Device(bool forced, std::string* error);
  void Record(size_t workload, bool forced, int round, double value);
  // Buffer size of the bandwidth kernel (known once the devices exist).
  unsigned long long bandwidth_bytes() const;

 private:
  int rounds_;
  bool started_ = false;
  std::string description_;
  std::unique_ptr<BindingsDevice> devices_[2];
  std::string create_error_[2];
  std::vector<std::vector<std::vector<double>>> results_;  // [workload][forced][round]
};

std::string FormatBindingsTable(const std::vector<BindingsRow>& rows, const BindingsMemory& memory);
std::string FormatBindingsMarkdown(const std::vector<BindingsRow>& rows, const BindingsMemory& memory,
                                   const std::string& device, const std::string& date, const std::string& note);

}  // namespace bindery::bench
