#include "bindings/pipelines/rewrite_dump.h"

#include <cinttypes>
#include <cstdio>

#include "bindings/pipelines/rewrite_cache.h"

namespace bindery::bindings {
namespace {

uint64_t Fnv1a(const std::string& bytes) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

bool WriteFile(const std::string& path, const void* data, size_t size) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const bool ok = std::fwrite(data, 1, size, f) == size;
  return std::fclose(f) == 0 && ok;
}

const char* TargetName(spirv::TargetEnv t) {
  switch (t) {
    case spirv::TargetEnv::kVulkan1_0: return "vulkan1.0";
    case spirv::TargetEnv::kVulkan1_1: return "vulkan1.1";
    case spirv::TargetEnv::kVulkan1_1Spirv1_4: return "vulkan1.1spv1.4";
    case spirv::TargetEnv::kVulkan1_2: return "vulkan1.2";
    case spirv::TargetEnv::kVulkan1_3: return "vulkan1.3";
  }
  return "?";
}

}  // namespace

std::string DescribeOptions(const spirv::RewriteOptions& o) {
  std::string out = std::string("target ") + TargetName(o.target) + (o.shader_int64 ? " int64" : " uvec2") +
                    (o.bounds_checks ? " bounds-checks" : "") + (o.convert_uniform_buffers ? " ubo" : "") +
                    (o.float16 ? " float16" : "") + (o.int16 ? " int16" : "") + (o.int8 ? " int8" : "") +
                    (o.broadcast_descriptor_index_models != 0 ? " broadcast-indices" : "") +
                    (o.entry_point.empty() ? "" : " entry-point " + o.entry_point) + "\n";
  char line[160];
  for (const spirv::SetLayout& s : o.sets) {
    if (s.records_in_root && s.root_records != 0) {
      std::snprintf(line, sizeof(line), "set %u root %u records %u then block\n", s.set, s.root_offset, s.root_records);
    } else {
      std::snprintf(line, sizeof(line), "set %u root %u%s\n", s.set, s.root_offset, s.records_in_root ? " records" : "");
    }
    out += line;
    for (const spirv::BindingLayout& b : s.bindings) {
      std::snprintf(line, sizeof(line), "  binding %u array %u first_record %u", b.binding, b.array_size,
                    b.first_record);
      out += line;
      if (b.dynamic_offsets_root_offset != spirv::kNoRootOffset) {
        std::snprintf(line, sizeof(line), " dynamic_offsets %u", b.dynamic_offsets_root_offset);
        out += line;
      }
      out += "\n";
    }
  }
  return out;
}

std::string DumpRewrite(const std::string& dir, const std::vector<uint32_t>& original,
                        const spirv::RewriteOptions& options, const std::vector<uint32_t>& rewritten,
                        const spirv::RewriteReport& report) {
  std::string key = OptionsKey(options);
  key.append(reinterpret_cast<const char*>(original.data()), original.size() * sizeof(uint32_t));
  char name[32];
  std::snprintf(name, sizeof(name), "%016" PRIx64, Fnv1a(key));
  const std::string base = dir + "/" + name;
  const std::string text = DescribeOptions(options) + report.ToString() + "\n";
  if (!WriteFile(base + ".orig.spv", original.data(), original.size() * 4) ||
      !WriteFile(base + ".rewritten.spv", rewritten.data(), rewritten.size() * 4) ||
      !WriteFile(base + ".layout.txt", text.data(), text.size())) {
    return "";
  }
  return base;
}

std::string DumpInvalidRewrite(const std::string& dir, const std::vector<uint32_t>& original,
                               const spirv::RewriteOptions& options, const std::vector<uint32_t>& rewritten,
                               const spirv::RewriteReport& report, const std::string& message) {
  const std::string base = DumpRewrite(dir, original, options, rewritten, report);
  if (base.empty()) return "";
  const std::string text = "spirv-val on the rewritten module (specialization applied):\n" + message + "\n";
  return WriteFile(base + ".invalid.txt", text.data(), text.size()) ? base : "";
}

}  // namespace bindery::bindings
