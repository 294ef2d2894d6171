#include "core/settings.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

extern char** environ;

namespace bindery {
namespace {

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool ParseMode(const std::string& value, Mode* out) {
  const std::string v = Lower(Trim(value));
  if (v == "off" || v == "0" || v == "false") { *out = Mode::kOff; return true; }
  if (v == "auto" || v == "on" || v == "1" || v == "true") { *out = Mode::kAuto; return true; }
  if (v == "force") { *out = Mode::kForce; return true; }
  return false;
}

// A switch: on|1|true or off|0|false.
bool ParseOnOff(const std::string& value, bool* out) {
  const std::string v = Lower(Trim(value));
  if (v == "on" || v == "1" || v == "true") { *out = true; return true; }
  if (v == "off" || v == "0" || v == "false") { *out = false; return true; }
  return false;
}

// A switch with `auto`: the three values of T (kAuto, kOn, kOff).
template <typename T>
bool ParseAutoOnOff(const std::string& value, T* out) {
  bool on = false;
  if (Lower(Trim(value)) == "auto") { *out = T::kAuto; return true; }
  if (!ParseOnOff(value, &on)) return false;
  *out = on ? T::kOn : T::kOff;
  return true;
}

// bindings_skip: `none`, `all`, or parts separated by commas (BindingsSkip's names).
struct SkipPartName {
  const char* name;
  uint32_t bit;
};
const SkipPartName kSkipPartNames[] = {
    {"features", kSkipFeatures},         {"addresses", kSkipAddresses},
    {"resources", kSkipResources},       {"commands", kSkipCommands},
    {"root-layout", kSkipRootLayout},    {"record-hooks", kSkipRecordHooks},
    {"descriptor-hooks", kSkipDescriptorHooks}, {"pipeline-hooks", kSkipPipelineHooks},
    {"all", kSkipAll},                   {"none", 0},
};

bool ParseSkipParts(const std::string& value, uint32_t* out) {
  uint32_t bits = 0;
  std::string rest = Lower(Trim(value));
  if (rest.empty()) return false;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string part = Trim(rest.substr(0, comma));
    bool known = false;
    for (const SkipPartName& n : kSkipPartNames) {
      if (part == n.name) {
        bits |= n.bit;
        known = true;
      }
    }
    if (!known) return false;
    if (comma == std::string::npos) break;
    rest = rest.substr(comma + 1);
  }
  *out = bits;
  return true;
}

bool ParseLogLevel(const std::string& value, LogLevel* out) {
  const std::string v = Lower(Trim(value));
  if (v == "error") { *out = LogLevel::kError; return true; }
  if (v == "warn" || v == "warning") { *out = LogLevel::kWarn; return true; }
  if (v == "info") { *out = LogLevel::kInfo; return true; }
  if (v == "debug" || v == "verbose") { *out = LogLevel::kDebug; return true; }
  return false;
}

bool InSettingsTable(const std::string& name);

// Applies one setting by its short name ("transfers", "log_level", ...).
// `origin` names where it came from, for warnings. Only names in the settings table are
// read, so a setting cannot be parsed here without being declared there (and in the
// manifest, which tests compare with the table).
void Apply(Settings& s, const std::string& name, const std::string& value, const std::string& origin) {
  auto bad_value = [&](const char* expected) {
    s.warnings.push_back(origin + ": value '" + value + "' is not one of " + expected + "; keeping the default");
  };
  if (!InSettingsTable(name)) {
    s.warnings.push_back(origin + ": unknown setting, ignored");
  } else if (name == "indirect_bindings" || name == "transfers" || name == "timeline") {
    Mode* target = name == "indirect_bindings" ? &s.indirect_bindings
                   : name == "transfers"       ? &s.transfers
                                               : &s.timeline;
    if (!ParseMode(value, target)) bad_value("off|auto|force");
  } else if (name == "transfer_strategy") {
    const std::string v = Lower(Trim(value));
    if (v == "auto") s.transfer_strategy = TransferStrategy::kAuto;
    else if (v == "native") s.transfer_strategy = TransferStrategy::kNative;
    else if (v == "compute") s.transfer_strategy = TransferStrategy::kCompute;
    else if (v == "nvidia") s.transfer_strategy = TransferStrategy::kNvidia;
    else bad_value("auto|native|compute|nvidia");
  } else if (name == "log_level") {
    if (!ParseLogLevel(value, &s.log_level)) bad_value("error|warn|info|debug");
  } else if (name == "log_file") {
    s.log_file = Trim(value);
  } else if (name == "bindings_ubo") {
    if (!ParseOnOff(value, &s.bindings_convert_ubo)) bad_value("on|off");
  } else if (name == "bindings_dump") {
    s.bindings_dump_dir = Trim(value);
  } else if (name == "bindings_validate") {
    if (!ParseOnOff(value, &s.bindings_validate)) bad_value("on|off");
  } else if (name == "bindings_records_in_root") {
    if (!ParseOnOff(value, &s.bindings_records_in_root)) bad_value("on|off");
  } else if (name == "bindings_root_split") {
    if (!ParseAutoOnOff(value, &s.bindings_root_split)) bad_value("auto|on|off");
  } else if (name == "bindings_restrict") {
    if (!ParseOnOff(value, &s.bindings_restrict)) bad_value("on|off");
  } else if (name == "bindings_skip") {
    if (!ParseSkipParts(value, &s.bindings_skip)) {
      bad_value("none|all|features,addresses,resources,commands,root-layout,record-hooks,descriptor-hooks,pipeline-hooks");
    }
  } else if (name == "transfer_push_replay") {
    if (!ParseAutoOnOff(value, &s.transfer_push_replay)) bad_value("auto|on|off");
  } else if (name == "fill_edges") {
    const std::string v = Lower(Trim(value));
    if (v == "auto") s.fill_edges = FillEdges::kAuto;
    else if (v == "kernel-first") s.fill_edges = FillEdges::kKernelFirst;
    else if (v == "kernel-last") s.fill_edges = FillEdges::kKernelLast;
    else if (v == "kernel-after") s.fill_edges = FillEdges::kKernelAfter;
    else if (v == "copy") s.fill_edges = FillEdges::kCopy;
    else bad_value("auto|kernel-first|kernel-last|kernel-after|copy");
  } else if (name == "image_blits") {
    const std::string v = Lower(Trim(value));
    if (v == "auto") s.image_blits = ImageBlits::kAuto;
    else if (v == "off") s.image_blits = ImageBlits::kOff;
    else if (v == "all") s.image_blits = ImageBlits::kAll;
    else bad_value("auto|off|all");
  } else if (name == "image_resolves") {
    const std::string v = Lower(Trim(value));
    if (v == "auto") s.image_resolves = ImageBlits::kAuto;
    else if (v == "off") s.image_resolves = ImageBlits::kOff;
    else if (v == "all") s.image_resolves = ImageBlits::kAll;
    else bad_value("auto|off|all");
  } else if (name == "staging_limit") {
    const std::string v = Lower(Trim(value));
    char* end = nullptr;
    const unsigned long long bytes = v.empty() ? 0 : std::strtoull(v.c_str(), &end, 10);
    if (v == "none" || v.empty()) s.staging_limit = ~0ull;
    else if (end != nullptr && *end == '\0' && v[0] != '-') s.staging_limit = bytes;
    else bad_value("a number of bytes or none");
  } else {
    s.warnings.push_back(origin + ": unknown setting, ignored");
  }
}

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return !path.empty() && stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool IsDirectory(const std::string& path) {
  struct stat st;
  return !path.empty() && stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

KeyValues ParseSettingsText(const std::string& text) {
  KeyValues out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    const size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string key = Trim(line.substr(0, eq));
    if (key.empty()) continue;
    out.emplace_back(std::move(key), Trim(line.substr(eq + 1)));
  }
  return out;
}

Settings ResolveSettings(const KeyValues& file_entries, const KeyValues& environment) {
  Settings s;
  static const char kFilePrefix[] = "bindery.";
  static const char kEnvPrefix[] = "BINDERY_";
  for (const auto& [key, value] : file_entries) {
    if (key.rfind(kFilePrefix, 0) != 0) continue;  // another layer's key
    Apply(s, key.substr(sizeof(kFilePrefix) - 1), value, "settings file key '" + key + "'");
  }
  for (const auto& [name, value] : environment) {
    if (name.rfind(kEnvPrefix, 0) != 0) continue;
    Apply(s, Lower(name.substr(sizeof(kEnvPrefix) - 1)), value, "environment variable " + name);
  }
  return s;
}

std::string FindSettingsFile() {
  if (const char* p = std::getenv("VK_LAYER_SETTINGS_PATH"); p != nullptr && *p != '\0') {
    const std::string path = p;
    if (IsDirectory(path)) {
      const std::string file = path + "/vk_layer_settings.txt";
      return IsRegularFile(file) ? file : "";
    }
    return IsRegularFile(path) ? path : "";
  }
  std::string data_home;
  if (const char* x = std::getenv("XDG_DATA_HOME"); x != nullptr && *x != '\0') {
    data_home = x;
  } else if (const char* h = std::getenv("HOME"); h != nullptr && *h != '\0') {
    data_home = std::string(h) + "/.local/share";
  }
  if (!data_home.empty()) {
    const std::string file = data_home + "/vulkan/settings.d/vk_layer_settings.txt";
    if (IsRegularFile(file)) return file;
  }
  return IsRegularFile("vk_layer_settings.txt") ? "vk_layer_settings.txt" : "";
}

Settings LoadSettings() {
  KeyValues file_entries;
  const std::string path = FindSettingsFile();
  if (!path.empty()) {
    std::ifstream in(path);
    std::stringstream buf;
    buf << in.rdbuf();
    file_entries = ParseSettingsText(buf.str());
  }
  KeyValues environment;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const char* eq = std::strchr(*e, '=');
    if (eq == nullptr || std::strncmp(*e, "BINDERY_", 8) != 0) continue;
    environment.emplace_back(std::string(*e, static_cast<size_t>(eq - *e)), std::string(eq + 1));
  }
  Settings s = ResolveSettings(file_entries, environment);
  s.source_file = path;
  return s;
}

// ---- The settings table (see settings.h); Apply() above parses each of these keys ----------
namespace {
const char* const kModeValues[] = {"auto", "off", "force"};
const char* const kStrategyValues[] = {"auto", "native", "compute", "nvidia"};
const char* const kLogLevelValues[] = {"warn", "error", "info", "debug"};
const char* const kOnOffValues[] = {"off", "on"};
const char* const kAutoOnOffValues[] = {"auto", "on", "off"};
const char* const kOnOffFirstOnValues[] = {"on", "off"};
const char* const kFillEdgesValues[] = {"auto", "kernel-first", "kernel-last", "kernel-after", "copy"};
const char* const kImageBlitsValues[] = {"auto", "off", "all"};
#define BINDERY_SETTING(key, env, values) SettingInfo{key, env, values, sizeof(values) / sizeof(values[0])}
const SettingInfo kSettingsTable[] = {
    BINDERY_SETTING("indirect_bindings", "BINDERY_INDIRECT_BINDINGS", kModeValues),
    BINDERY_SETTING("transfers", "BINDERY_TRANSFERS", kModeValues),
    BINDERY_SETTING("transfer_strategy", "BINDERY_TRANSFER_STRATEGY", kStrategyValues),
    BINDERY_SETTING("timeline", "BINDERY_TIMELINE", kModeValues),
    BINDERY_SETTING("log_level", "BINDERY_LOG_LEVEL", kLogLevelValues),
    SettingInfo{"log_file", "BINDERY_LOG_FILE", nullptr, 0},
    SettingInfo{"staging_limit", "BINDERY_STAGING_LIMIT", nullptr, 0},  // debug: bytes, or "none"
    BINDERY_SETTING("transfer_push_replay", "BINDERY_TRANSFER_PUSH_REPLAY", kAutoOnOffValues),  // debug
    BINDERY_SETTING("fill_edges", "BINDERY_FILL_EDGES", kFillEdgesValues),  // measurement
    BINDERY_SETTING("image_blits", "BINDERY_IMAGE_BLITS", kImageBlitsValues),  // measurement, proofs
    BINDERY_SETTING("image_resolves", "BINDERY_IMAGE_RESOLVES", kImageBlitsValues),  // measurement, proofs
    BINDERY_SETTING("bindings_ubo", "BINDERY_BINDINGS_UBO", kOnOffValues),
    SettingInfo{"bindings_dump", "BINDERY_BINDINGS_DUMP", nullptr, 0},  // a folder
    BINDERY_SETTING("bindings_validate", "BINDERY_BINDINGS_VALIDATE", kOnOffValues),
    BINDERY_SETTING("bindings_records_in_root", "BINDERY_BINDINGS_RECORDS_IN_ROOT", kOnOffFirstOnValues),
    BINDERY_SETTING("bindings_root_split", "BINDERY_BINDINGS_ROOT_SPLIT", kAutoOnOffValues),
    BINDERY_SETTING("bindings_restrict", "BINDERY_BINDINGS_RESTRICT", kOnOffValues),
    SettingInfo{"bindings_skip", "BINDERY_BINDINGS_SKIP", nullptr, 0},  // debug: parts, comma-separated
};
#undef BINDERY_SETTING
}  // namespace

namespace {
bool InSettingsTable(const std::string& name) {
  for (const SettingInfo& s : kSettingsTable) {
    if (name == s.key) return true;
  }
  return false;
}
}  // namespace

SettingsTableView SettingsTable() { return {kSettingsTable, sizeof(kSettingsTable) / sizeof(kSettingsTable[0])}; }

const char* ToString(Mode mode) {
  switch (mode) {
    case Mode::kOff: return "off";
    case Mode::kAuto: return "auto";
    case Mode::kForce: return "force";
  }
  return "?";
}

const char* ToString(TransferStrategy strategy) {
  switch (strategy) {
    case TransferStrategy::kAuto: return "auto";
    case TransferStrategy::kNative: return "native";
    case TransferStrategy::kCompute: return "compute";
    case TransferStrategy::kNvidia: return "nvidia";
  }
  return "?";
}

const char* ToString(PushReplay replay) {
  switch (replay) {
    case PushReplay::kAuto: return "auto";
    case PushReplay::kOn: return "on";
    case PushReplay::kOff: return "off";
  }
  return "?";
}

const char* ToString(ImageBlits blits) {
  switch (blits) {
    case ImageBlits::kAuto: return "auto";
    case ImageBlits::kOff: return "off";
    case ImageBlits::kAll: return "all";
  }
  return "?";
}

const char* ToString(FillEdges edges) {
  switch (edges) {
    case FillEdges::kAuto: return "auto";
    case FillEdges::kKernelFirst: return "kernel-first";
    case FillEdges::kKernelLast: return "kernel-last";
    case FillEdges::kKernelAfter: return "kernel-after";
    case FillEdges::kCopy: return "copy";
  }
  return "?";
}

const char* ToString(LogLevel level) {
  switch (level) {
    case LogLevel::kError: return "error";
    case LogLevel::kWarn: return "warn";
    case LogLevel::kInfo: return "info";
    case LogLevel::kDebug: return "debug";
  }
  return "?";
}

std::string Describe(const Settings& s) {
  std::string out = "indirect_bindings=";
  out += ToString(s.indirect_bindings);
  out += " transfers=";
  out += ToString(s.transfers);
  out += " timeline=";
  out += ToString(s.timeline);
  out += " transfer_strategy=";
  out += ToString(s.transfer_strategy);
  out += " log_level=";
  out += ToString(s.log_level);
  if (!s.log_file.empty()) out += " log_file=" + s.log_file;
  if (s.staging_limit != ~0ull) out += " staging_limit=" + std::to_string(s.staging_limit);
  if (s.transfer_push_replay != PushReplay::kAuto) {
    out += " transfer_push_replay=";
    out += ToString(s.transfer_push_replay);
  }
  if (s.fill_edges != FillEdges::kAuto) {
    out += " fill_edges=";
    out += ToString(s.fill_edges);
  }
  if (s.image_blits != ImageBlits::kAuto) {
    out += " image_blits=";
    out += ToString(s.image_blits);
  }
  if (s.image_resolves != ImageBlits::kAuto) {
    out += " image_resolves=";
    out += ToString(s.image_resolves);
  }
  if (s.bindings_convert_ubo) out += " bindings_ubo=on";
  if (!s.bindings_dump_dir.empty()) out += " bindings_dump=" + s.bindings_dump_dir;
  if (s.bindings_validate) out += " bindings_validate=on";
  if (!s.bindings_records_in_root) out += " bindings_records_in_root=off";
  if (s.bindings_restrict) out += " bindings_restrict=on";
  if (s.bindings_root_split != Settings::RootSplit::kAuto) {
    out += s.bindings_root_split == Settings::RootSplit::kOn ? " bindings_root_split=on" : " bindings_root_split=off";
  }
  if (s.bindings_skip != 0) {
    out += " bindings_skip=";
    bool first = true;
    for (const SkipPartName& n : kSkipPartNames) {
      if (n.bit == 0 || n.bit == kSkipAll || (s.bindings_skip & n.bit) == 0) continue;
      out += first ? "" : ",";
      out += n.name;
      first = false;
    }
  }
  out += " settings_file=" + (s.source_file.empty() ? std::string("(none)") : s.source_file);
  return out;
}

}  // namespace bindery
