// One shader of the differential corpus (tests/spirv/corpus/) and the header that says how
// to run it. The header is a run of comment lines (`//` in GLSL, `;` in spirv-as files)
// each starting with `@`:
//
//   @target  vulkan1.0 | vulkan1.1 | spirv1.4 | vulkan1.2 | vulkan1.3   (default vulkan1.2)
//            spirv1.1 | spirv1.2: that SPIR-V version on Vulkan 1.1 (and spirv1.4)
//   @dispatch X Y Z                       workgroups (compute)
//   @buffer SET BINDING SIZE FILL [index=N] [uniform] [record=BYTES] [nocompare] [dynamic=OFFSET]
//            one descriptor (array element `index`); FILL: zero iota bytes float half ones
//            record=: the size written in its argument-block record (default SIZE)
//            dynamic=: a dynamic buffer bound at this dynamic offset (natively: a *_DYNAMIC
//            descriptor; rewritten: the offset pushed at the binding's dynamic_offsets_root_offset)
//   @push SIZE FILL                       the shader's own push-constant bytes
//   @pushword OFFSET VALUE                a uint32 written over them at OFFSET (a real
//                                         runtime's parameters: sizes and strides)
//   @keep SET BINDING                     leave this binding a descriptor (not in the layout)
//   @ubo                                  convert uniform buffers too
//   @requires FEATURE...                  int64 int64atomics int8 int16 float16 vmm nonuniform
//                                         runtimearray floatatomics scalar variablepointers
//   @entry NAME...                        entry points to run (default main)
//   @spec ID VALUE                        a uint32 specialization constant
//   @notconverted                         the pass must refuse it (report.converted false)
//   @driverbug TEXT                       a driver bug (shown by a DriverCheck test) makes the
//                                         rewritten run differ: skip with TEXT if it does
//   @pushaddress OFFSET BUFFER            the device address of the BUFFER-th @buffer (0-based),
//                                         written into push constants at OFFSET (the app's
//                                         own buffer_reference pointers)
//   @address DST OFFSET SRC               the address of buffer SRC written into buffer DST at
//                                         OFFSET (mark DST nocompare: addresses differ per run)
//
// Shaders whose file name ends in .vert/.frag are rewritten and validated, not run.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace bindery::spirv_exec {

struct BufferSpec {
  uint32_t set = 0;
  uint32_t binding = 0;
  uint32_t index = 0;  // descriptor array element
  uint32_t size = 0;
  std::string fill = "zero";
  bool uniform = false;
  uint32_t record_size = 0;  // 0: the buffer's size
  bool compare = true;
  bool dynamic = false;
  uint32_t dynamic_offset = 0;
  // Added to the address written in its record (rewritten runs; set by tests, no header
  // form): a record moved back 4 GiB with an index 4 GiB further reaches the same words.
  int64_t record_bias = 0;
};

struct CorpusEntry {
  std::string file;  // e.g. "ssbo_copy.comp"
  std::string stage;  // "comp", "vert", "frag"
  std::string target = "vulkan1.2";
  uint32_t dispatch[3] = {1, 1, 1};
  std::vector<BufferSpec> buffers;
  uint32_t push_size = 0;
  std::string push_fill = "iota";
  std::vector<std::pair<uint32_t, uint32_t>> keep;
  bool convert_ubo = false;
  std::vector<std::string> requires_features;
  std::vector<std::string> entries;
  std::vector<std::pair<uint32_t, uint32_t>> spec;
  bool expect_not_converted = false;
  std::string driver_bug;
  std::vector<std::pair<uint32_t, uint32_t>> push_addresses;  // {offset, buffer}
  std::vector<std::pair<uint32_t, uint32_t>> push_words;      // {offset, value}
  struct Address {
    uint32_t dst = 0, offset = 0, src = 0;
  };
  std::vector<Address> addresses;
  // {offset, value} words written over the rewritten run's push constants (set by tests).
  std::vector<std::pair<uint32_t, uint32_t>> rewritten_push_words;
  std::string error;  // non-empty: the header could not be read

  bool Requires(const std::string& feature) const;
  bool Keeps(uint32_t set, uint32_t binding) const;
  // Runs on the device: .comp files, and spirv-as fixtures with a @dispatch line.
  bool IsCompute() const { return stage == "comp"; }
  bool dispatch_missing = true;
};

// Reads the header of `path` (the source file; the name decides the stage).
CorpusEntry ParseCorpusEntry(const std::string& path);

// The corpus sources in `dir` (sorted by name).
std::vector<std::string> ListCorpus(const std::string& dir);

// Fills `bytes` with a named pattern (the same for the native and the rewritten run).
void FillPattern(const std::string& fill, std::vector<uint8_t>& bytes);

}  // namespace bindery::spirv_exec
