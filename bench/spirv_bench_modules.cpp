#include "spirv_bench_modules.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace bindery::bench {
namespace {

spirv::TargetEnv TargetFor(uint32_t version) {
  if (version >= 0x00010600) return spirv::TargetEnv::kVulkan1_3;
  if (version >= 0x00010500) return spirv::TargetEnv::kVulkan1_2;
  if (version >= 0x00010400) return spirv::TargetEnv::kVulkan1_1Spirv1_4;
  if (version >= 0x00010100) return spirv::TargetEnv::kVulkan1_1;  // SPIR-V 1.1-1.3 need Vulkan 1.1
  return spirv::TargetEnv::kVulkan1_0;
}

std::vector<std::string> SpvFiles(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& f : std::filesystem::directory_iterator(dir, ec)) {
    if (f.path().extension() == ".spv") out.push_back(f.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool Load(const std::string& path, bool large, BenchModule& m) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.empty() || bytes.size() % 4) return false;
  m.words.resize(bytes.size() / 4);
  std::memcpy(m.words.data(), bytes.data(), bytes.size());
  m.name = std::filesystem::path(path).stem().string();
  m.large = large;
  m.info = spirv::Inspect(m.words.data(), m.words.size());
  if (!m.info.error.empty()) return false;
  m.layout = spirv::DefaultLayout(m.info, (m.info.push_constant_bytes + 7u) & ~7u, false);
  for (spirv::SetLayout& s : m.layout.sets) {
    for (spirv::BindingLayout& b : s.bindings) b.array_size = std::max(b.array_size, 1u);  // runtime arrays
  }
  m.layout.target = TargetFor(m.info.spirv_version);
  spirv::RewriteResult r = spirv::RewriteDescriptorsToPointers(m.words.data(), m.words.size(), m.layout);
  m.converted = r.error.empty() && r.report.converted;
  m.note = !r.error.empty() ? r.error : r.report.reason;
  m.rewritten = std::move(r.module);
  return true;
}

}  // namespace

std::vector<BenchModule> LoadBenchModules(const std::string& corpus_dir, const std::string& large_dir) {
  std::vector<BenchModule> out;
  for (const std::string& path : SpvFiles(corpus_dir)) {
    BenchModule m;
    if (Load(path, false, m)) out.push_back(std::move(m));
  }
  std::vector<BenchModule> large;
  for (const std::string& path : SpvFiles(large_dir)) {
    BenchModule m;
    if (Load(path, true, m)) large.push_back(std::move(m));
  }
  std::sort(large.begin(), large.end(),
            [](const BenchModule& a, const BenchModule& b) { return a.words.size() < b.words.size(); });
  for (BenchModule& m : large) out.push_back(std::move(m));
  return out;
}

}  // namespace bindery::bench
