// Layer settings: one mode per capability, a log level and an optional log file.
//
// Read once at instance creation. Sources, later ones winning:
//   1. the loader's standard settings file vk_layer_settings.txt, keys `bindery.<name>`
//      (found through VK_LAYER_SETTINGS_PATH, then the Vulkan Configurator's
//      $XDG_DATA_HOME/vulkan/settings.d/, then the working directory);
//   2. environment variables `BINDERY_<NAME>` (upper case).
// Unknown `bindery.*` keys and `BINDERY_*` variables, and unparsable values, are kept
// as warnings for the logger to report once it exists.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace bindery {

// off: never; auto: where the driver lacks the feature or where measurement says it
// pays; force: always, even where the driver has it (testing, broken drivers).
enum class Mode { kOff, kAuto, kForce };

// How transfers are carried out when they are polyfilled or accelerated.
// auto: the per-device table (transfer/policy.cpp); native: aligned middle by the native
// command, edges from staging; compute: compute kernels wherever they are allowed; nvidia
// (tests): the table's NVIDIA row on any device, i.e. what the default mode does on NVIDIA.
enum class TransferStrategy { kAuto, kNative, kCompute, kNvidia };

// Whether the transfers capability records the application's push constants and pushes
// them again after its kernels (transfer/policy.h, Policy::replay_pushes). auto: the
// per-driver answer; on / off: always / never (debug, tests on a driver that needs it).
enum class PushReplay { kAuto, kOn, kOff };

// How a large unaligned fill's byte edges are written beside its native middle (measurement;
// transfer/policy.h, Policy::fill_edge_order). auto: the per-driver table; kernel-first /
// kernel-last: one edge dispatch in the same barrier bracket as the middle fill, recorded
// before / after it; kernel-after: the middle fill, then the dispatch in a bracket of its
// own; copy: copied from staging (no kernel). A kernel order also gives devices whose
// policy has no such split (lavapipe under transfer_strategy=compute) NVIDIA's shape:
// the middle realigned to 256 bytes and filled natively, for fills of 1 MiB or more.
enum class FillEdges { kAuto, kKernelFirst, kKernelLast, kKernelAfter, kCopy };

// Which blits the transfers capability runs as compute kernels (transfer/policy.h): auto,
// the classes (format encodings and filter) proven on the driver to give its own bytes; off,
// none; all, every blit a kernel can take (measurement and the proof tests).
enum class ImageBlits { kAuto, kOff, kAll };

enum class LogLevel { kError = 0, kWarn = 1, kInfo = 2, kDebug = 3 };

// The parts `bindings_skip` can leave out (docs/settings.md).
enum BindingsSkip : uint32_t {
  kSkipFeatures = 1u << 0,         // shaderInt64/Int16/Float16/Int8 requested at vkCreateDevice
  kSkipAddresses = 1u << 1,        // address usage and allocation flags, address queries
  kSkipResources = 1u << 2,        // the buffer and memory trackers (tracking stage)
  kSkipCommands = 1u << 3,         // the command pool and buffer trackers (tracking stage)
  kSkipRootLayout = 1u << 4,       // the ring root's set layout made at vkCreateDevice
  kSkipRecordHooks = 1u << 5,      // binds, pushes, pipeline binds, draws, dispatches
  kSkipDescriptorHooks = 1u << 6,  // set and pipeline layouts, pools, sets, updates, templates
  kSkipPipelineHooks = 1u << 7,    // shader modules, pipelines, buffers
  kSkipAll = (1u << 8) - 1,
};

struct Settings {
  Mode indirect_bindings = Mode::kAuto;
  Mode transfers = Mode::kAuto;
  Mode timeline = Mode::kAuto;
  TransferStrategy transfer_strategy = TransferStrategy::kAuto;
  LogLevel log_level = LogLevel::kWarn;
  std::string log_file;  // empty: messengers, else stderr
  // Debug: the most bytes of staging memory the transfers capability may hold per device
  // (UINT64_MAX: no cap). Lets tests make staging run out (vkEndCommandBuffer must then
  // return the error instead of dropping work).
  unsigned long long staging_limit = ~0ull;
  PushReplay transfer_push_replay = PushReplay::kAuto;
  FillEdges fill_edges = FillEdges::kAuto;
  ImageBlits image_blits = ImageBlits::kAuto;
  ImageBlits image_resolves = ImageBlits::kAuto;  // the same three values, for vkCmdResolveImage
  // Indirect bindings: convert uniform buffers too (off until measured: descriptor UBOs are
  // often on faster paths than loads through addresses).
  bool bindings_convert_ubo = false;
  // Indirect bindings: a folder where each rewritten module is written (original and
  // rewritten .spv and the layout used), for replay with bindery-spirv; empty: none.
  std::string bindings_dump_dir;
  // Indirect bindings: run SPIRV-Tools' validator on each rewritten module (the device's
  // target environment, the pipeline's specialization applied) at pipeline creation; an
  // invalid rewrite falls back natively with the validator's message (off: it costs
  // milliseconds per new module and specialization).
  bool bindings_validate = false;
  // Indirect bindings: small sets fixed while bound carry their records in the root
  // (bindings/model/root_layout.h) instead of their argument block's address.
  bool bindings_records_in_root = true;
  // Indirect bindings: a converted buffer the module does not declare Aliased is read
  // through a pointer kept in a RestrictPointer variable (spirv::RewriteOptions::
  // restrict_pointers); off: the bare pointer. Off by default until the H100 shows it pays
  // (scripts/gpu-issue32-ggml-bisect's second table): a driver may act on RestrictPointer
  // more eagerly than on the descriptors' own no-aliasing rule, which programs bend.
  bool bindings_restrict = false;
  // Indirect bindings: the root in two copies, the compute bind point's in push-constant
  // bytes no graphics-only range covers (root_layout.h, RootPushSpace), so a compute bind's
  // push names no graphics stage. Auto: where maxPushConstantsSize is at least 256 (halving
  // a 128-byte space leaves too little root).
  enum class RootSplit { kAuto, kOn, kOff };
  RootSplit bindings_root_split = RootSplit::kAuto;
  // Debug (issue 32 part 1: what the capability costs a program of which it converts
  // nothing): parts of indirect bindings left out on a device where it would convert at
  // most the layouts beyond the driver's limits (`auto`). Any part but `features` also
  // stops those conversions, so every layout reaches the driver as the application made
  // it, as with `off`. Ignored (with a warning) under `force`. Bits of BindingsSkip.
  uint32_t bindings_skip = 0;

  std::vector<std::string> warnings;  // problems met while reading, reported later
  std::string source_file;            // the settings file that was read, if any
};

using KeyValues = std::vector<std::pair<std::string, std::string>>;

// Parses vk_layer_settings.txt text: `key = value` lines, `#` comments.
KeyValues ParseSettingsText(const std::string& text);

// Builds Settings from file entries (all keys; non-bindery ones are ignored) and
// environment entries (NAME=value pairs; non-BINDERY_ ones are ignored).
Settings ResolveSettings(const KeyValues& file_entries, const KeyValues& environment);

// Finds and reads the settings file and the process environment, then resolves.
Settings LoadSettings();

// The path of the settings file the loader convention points to, or "" if none exists.
std::string FindSettingsFile();

// ---- The settings table -------------------------------------------------------------------
// Every setting the layer reads, as the layer manifest must declare it for the Vulkan
// Configurator (tests/unit/manifest_settings_check.py compares the two, so they cannot
// drift). `values` lists the accepted spellings the manifest offers (first = default);
// none means free text (a file path).
struct SettingInfo {
  const char* key;  // short name: `bindery.<key>` in vk_layer_settings.txt
  const char* env;  // environment variable
  const char* const* values;
  unsigned value_count;
};
struct SettingsTableView {
  const SettingInfo* entries;
  unsigned count;
};
SettingsTableView SettingsTable();

const char* ToString(Mode mode);
const char* ToString(LogLevel level);
const char* ToString(TransferStrategy strategy);
const char* ToString(PushReplay replay);
const char* ToString(FillEdges edges);
const char* ToString(ImageBlits blits);

// One-line description of the effective settings, for the info log.
std::string Describe(const Settings& settings);

}  // namespace bindery
