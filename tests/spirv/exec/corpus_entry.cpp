#include "corpus_entry.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace bindery::spirv_exec {

bool CorpusEntry::Requires(const std::string& feature) const {
  return std::find(requires_features.begin(), requires_features.end(), feature) != requires_features.end();
}

bool CorpusEntry::Keeps(uint32_t set, uint32_t binding) const {
  return std::find(keep.begin(), keep.end(), std::make_pair(set, binding)) != keep.end();
}

namespace {

bool ParseU32(const std::string& s, uint32_t& out) {
  if (s.empty()) return false;
  char* end = nullptr;
  unsigned long v = std::strtoul(s.c_str(), &end, 0);
  if (*end != '\0' || v > 0xffffffffu) return false;
  out = static_cast<uint32_t>(v);
  return true;
}

bool KnownFill(const std::string& f) {
  return f == "zero" || f == "iota" || f == "bytes" || f == "float" || f == "half" || f == "ones" || f == "halfbits";
}

// One `@key args...` line; returns an error or "".
std::string ParseLine(const std::string& key, std::istringstream& args, CorpusEntry& e) {
  std::vector<std::string> a;
  for (std::string w; args >> w;) a.push_back(w);
  auto need = [&](size_t n) { return a.size() >= n; };
  if (key == "target") {
    if (!need(1)) return "@target needs a value";
    e.target = a[0];
  } else if (key == "dispatch") {
    if (!need(3) || !ParseU32(a[0], e.dispatch[0]) || !ParseU32(a[1], e.dispatch[1]) || !ParseU32(a[2], e.dispatch[2]))
      return "@dispatch X Y Z";
    e.dispatch_missing = false;
  } else if (key == "buffer") {
    BufferSpec b;
    if (!need(4) || !ParseU32(a[0], b.set) || !ParseU32(a[1], b.binding) || !ParseU32(a[2], b.size) || !KnownFill(a[3]))
      return "@buffer SET BINDING SIZE FILL [index=N] [uniform] [record=N] [nocompare]";
    b.fill = a[3];
    for (size_t i = 4; i < a.size(); ++i) {
      if (a[i] == "uniform") b.uniform = true;
      else if (a[i] == "nocompare") b.compare = false;
      else if (a[i].rfind("index=", 0) == 0 && ParseU32(a[i].substr(6), b.index)) {
      } else if (a[i].rfind("record=", 0) == 0 && ParseU32(a[i].substr(7), b.record_size)) {
      } else if (a[i].rfind("dynamic=", 0) == 0 && ParseU32(a[i].substr(8), b.dynamic_offset)) {
        b.dynamic = true;
      } else return "@buffer: unknown option " + a[i];
    }
    if (b.size == 0 || b.size % 4 != 0) return "@buffer: size must be a non-zero multiple of 4";
    if (b.dynamic && (b.dynamic_offset % 256 != 0 || b.dynamic_offset >= b.size))
      return "@buffer: dynamic offset must be a multiple of 256 inside the buffer";
    e.buffers.push_back(b);
  } else if (key == "push") {
    if (!need(2) || !ParseU32(a[0], e.push_size) || !KnownFill(a[1])) return "@push SIZE FILL";
    e.push_fill = a[1];
  } else if (key == "keep") {
    uint32_t s = 0, b = 0;
    if (!need(2) || !ParseU32(a[0], s) || !ParseU32(a[1], b)) return "@keep SET BINDING";
    e.keep.emplace_back(s, b);
  } else if (key == "ubo") {
    e.convert_ubo = true;
  } else if (key == "requires") {
    e.requires_features.insert(e.requires_features.end(), a.begin(), a.end());
  } else if (key == "entry") {
    e.entries.insert(e.entries.end(), a.begin(), a.end());
  } else if (key == "spec") {
    uint32_t id = 0, v = 0;
    if (!need(2) || !ParseU32(a[0], id) || !ParseU32(a[1], v)) return "@spec ID VALUE";
    e.spec.emplace_back(id, v);
  } else if (key == "pushword") {
    uint32_t off = 0, value = 0;
    if (!need(2) || !ParseU32(a[0], off) || !ParseU32(a[1], value) || off % 4) return "@pushword OFFSET VALUE";
    e.push_words.emplace_back(off, value);
  } else if (key == "pushaddress") {
    uint32_t off = 0, buf = 0;
    if (!need(2) || !ParseU32(a[0], off) || !ParseU32(a[1], buf) || off % 8) return "@pushaddress OFFSET BUFFER";
    e.push_addresses.emplace_back(off, buf);
  } else if (key == "address") {
    CorpusEntry::Address ad;
    if (!need(3) || !ParseU32(a[0], ad.dst) || !ParseU32(a[1], ad.offset) || !ParseU32(a[2], ad.src) || ad.offset % 8)
      return "@address DST OFFSET SRC";
    e.addresses.push_back(ad);
  } else if (key == "driverbug") {
    for (const std::string& w : a) e.driver_bug += (e.driver_bug.empty() ? "" : " ") + w;
    if (e.driver_bug.empty()) return "@driverbug needs a description";
  } else if (key == "notconverted") {
    e.expect_not_converted = true;
  } else {
    return "unknown header key @" + key;
  }
  return "";
}

}  // namespace

CorpusEntry ParseCorpusEntry(const std::string& path) {
  CorpusEntry e;
  std::filesystem::path p(path);
  e.file = p.filename().string();
  e.stage = p.extension().string().substr(1);
  std::ifstream in(path);
  if (!in) {
    e.error = "cannot open " + path;
    return e;
  }
  for (std::string line; std::getline(in, line);) {
    size_t at = line.find('@');
    size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || at == std::string::npos) continue;
    bool comment = line.compare(start, 2, "//") == 0 || line[start] == ';';
    if (!comment) continue;
    // Only comment lines whose first word starts with '@' are header lines.
    size_t word = line.find_first_not_of("/; \t", start);
    if (word != at) continue;
    std::istringstream words(line.substr(at + 1));
    std::string key;
    words >> key;
    std::string err = ParseLine(key, words, e);
    if (!err.empty()) {
      e.error = e.file + ": " + err + " in: " + line;
      return e;
    }
  }
  if (e.entries.empty()) e.entries.push_back("main");
  for (const auto& [off, buf] : e.push_addresses) {
    if (buf >= e.buffers.size() || off + 8 > e.push_size) e.error = e.file + ": @pushaddress out of range";
  }
  for (const auto& ad : e.addresses) {
    if (ad.dst >= e.buffers.size() || ad.src >= e.buffers.size() || ad.offset + 8 > e.buffers[ad.dst].size)
      e.error = e.file + ": @address out of range";
  }
  if (e.stage == "spvasm") e.stage = e.dispatch_missing ? "asm" : "comp";
  if (e.stage == "hlsl") e.stage = "comp";  // glslang's HLSL front end, compute shaders
  return e;
}

std::vector<std::string> ListCorpus(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& f : std::filesystem::directory_iterator(dir, ec)) {
    const std::string ext = f.path().extension().string();
    if (ext == ".comp" || ext == ".vert" || ext == ".frag" || ext == ".spvasm" || ext == ".hlsl")
      out.push_back(f.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

namespace {
uint16_t HalfOf(float f) {
  // Small exact values only (|f| < 2048, multiples of 1/4): enough for the fill pattern.
  if (f == 0.0f) return 0;
  uint16_t sign = f < 0 ? 0x8000 : 0;
  if (f < 0) f = -f;
  int exp = 0;
  while (f >= 2.0f) { f /= 2.0f; ++exp; }
  while (f < 1.0f) { f *= 2.0f; --exp; }
  uint16_t mant = static_cast<uint16_t>((f - 1.0f) * 1024.0f);
  return static_cast<uint16_t>(sign | ((exp + 15) << 10) | mant);
}
}  // namespace

void FillPattern(const std::string& fill, std::vector<uint8_t>& bytes) {
  const size_t n = bytes.size();
  if (fill == "zero") {
    std::fill(bytes.begin(), bytes.end(), 0);
  } else if (fill == "ones") {
    std::fill(bytes.begin(), bytes.end(), 0xff);
  } else if (fill == "bytes") {
    for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<uint8_t>(i * 31 + 7);
  } else if (fill == "iota") {
    for (size_t i = 0; i + 4 <= n; i += 4) {
      uint32_t v = static_cast<uint32_t>(i / 4);
      std::memcpy(&bytes[i], &v, 4);
    }
  } else if (fill == "float") {
    for (size_t i = 0; i + 4 <= n; i += 4) {
      float v = static_cast<float>((i / 4) % 97) * 0.25f - 3.0f;
      std::memcpy(&bytes[i], &v, 4);
    }
  } else if (fill == "halfbits") {
    // Every 16-bit pattern in turn (NaNs, signalling ones included): data that is not
    // floats but is moved as float16 words, as ggml copies quantized blocks.
    for (size_t i = 0; i + 2 <= n; i += 2) {
      const uint16_t v = static_cast<uint16_t>(i / 2);
      std::memcpy(&bytes[i], &v, 2);
    }
  } else if (fill == "half") {
    for (size_t i = 0; i + 2 <= n; i += 2) {
      uint16_t v = HalfOf(static_cast<float>((i / 2) % 61) * 0.5f - 7.0f);
      std::memcpy(&bytes[i], &v, 2);
    }
  }
}

}  // namespace bindery::spirv_exec
