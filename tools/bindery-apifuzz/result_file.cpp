#include "result_file.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace bindery::apifuzz {

namespace {

constexpr const char* kMagic = "bindery-apifuzz result v1";

uint32_t Word(const std::vector<uint8_t>& bytes, size_t at) {
  uint32_t w = 0;
  const size_t n = std::min<size_t>(4, bytes.size() - at);
  std::memcpy(&w, bytes.data() + at, n);
  return w;
}

std::string Hex(uint64_t v, int width) {
  char out[32];
  std::snprintf(out, sizeof(out), "0x%0*llx", width, static_cast<unsigned long long>(v));
  return out;
}

}  // namespace

std::string ResultDir() {
  const char* env = std::getenv("BINDERY_APIFUZZ_BYTES_DIR");
  return env == nullptr ? "" : env;
}

std::string ResultPath(const std::string& dir, const std::string& config, uint64_t seed, const std::string& suffix) {
  return dir + "/" + config + "-" + std::to_string(seed) + suffix + ".bin";
}

bool WriteResult(const std::string& path, const RunResult& r) {
  std::ofstream out(path, std::ios::binary);
  out << kMagic << "\n";
  for (const RunResult::Region& g : r.regions) out << "region " << g.size << " " << g.name << "\n";
  out << "data " << r.bytes.size() << "\n";
  out.write(reinterpret_cast<const char*>(r.bytes.data()), static_cast<std::streamsize>(r.bytes.size()));
  return static_cast<bool>(out);
}

bool ReadResult(const std::string& path, RunResult* r) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  if (!std::getline(in, line) || line != kMagic) return false;
  r->regions.clear();
  while (std::getline(in, line)) {
    std::istringstream l(line);
    std::string tag;
    size_t size = 0;
    l >> tag >> size;
    if (tag == "data") {
      r->bytes.assign(size, 0);
      in.read(reinterpret_cast<char*>(r->bytes.data()), static_cast<std::streamsize>(size));
      return static_cast<size_t>(in.gcount()) == size;
    }
    if (tag != "region") return false;
    std::string name;
    std::getline(l >> std::ws, name);
    r->regions.push_back({name, size});
  }
  return false;
}

std::string FirstDifference(const RunResult& a, const RunResult& b) {
  if (a.bytes == b.bytes) return "";
  if (a.bytes.size() != b.bytes.size())
    return "sizes differ (" + std::to_string(a.bytes.size()) + " vs " + std::to_string(b.bytes.size()) + " bytes)";
  std::vector<RunResult::Region> regions = a.regions;
  size_t covered = 0;
  for (const RunResult::Region& g : regions) covered += g.size;
  if (covered != a.bytes.size()) regions = {{"bytes", a.bytes.size()}};  // no usable table: one region
  std::string first;
  size_t differing_regions = 0, start = 0;
  for (const RunResult::Region& g : regions) {
    size_t words = 0, differing_words = 0, first_at = 0;
    for (size_t at = start; at < start + g.size; at += 4, ++words) {
      if (Word(a.bytes, at) == Word(b.bytes, at)) continue;
      if (differing_words++ == 0) first_at = at;
    }
    if (differing_words > 0) {
      ++differing_regions;
      if (first.empty()) {
        first = g.name + " offset " + Hex(first_at - start, 0) + ": " + Hex(Word(a.bytes, first_at), 8) + " vs " +
                Hex(Word(b.bytes, first_at), 8) + " (" + std::to_string(differing_words) + " of " +
                std::to_string(words) + " words differ there";
      }
    }
    start += g.size;
  }
  return first + "; " + std::to_string(differing_regions) + " of " + std::to_string(regions.size()) +
         " regions differ)";
}

std::string AllDifferences(const RunResult& a, const RunResult& b, size_t max_per_region) {
  if (a.bytes.size() != b.bytes.size()) return FirstDifference(a, b) + "\n";
  std::ostringstream out;
  size_t start = 0;
  for (const RunResult::Region& g : a.regions) {
    size_t shown = 0, differing = 0;
    for (size_t at = start; at < start + g.size && at < a.bytes.size(); at += 4) {
      if (Word(a.bytes, at) == Word(b.bytes, at)) continue;
      ++differing;
      if (shown++ < max_per_region)
        out << g.name << " offset " << Hex(at - start, 0) << " (word " << (at - start) / 4 << "): "
            << Hex(Word(a.bytes, at), 8) << " vs " << Hex(Word(b.bytes, at), 8) << "\n";
    }
    if (differing > shown) out << g.name << ": " << differing - shown << " more differing words\n";
    start += g.size;
  }
  return out.str();
}

std::string FirstDifferenceOfFiles(const std::string& a, const std::string& b) {
  RunResult ra, rb;
  if (!ReadResult(a, &ra)) return "no result file " + a;
  if (!ReadResult(b, &rb)) return "no result file " + b;
  const std::string d = FirstDifference(ra, rb);
  return d.empty() ? "the same bytes" : d;
}

}  // namespace bindery::apifuzz
