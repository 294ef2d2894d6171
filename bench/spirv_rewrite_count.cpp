// A load-independent measure of the rewrite's cost: rewrites each module given on the
// command line once under each of four option sets (int64 / uvec2 x bounds checks off /
// on), nothing else, so that
//   valgrind --tool=callgrind build-perf/bench/bindery_spirv_rewrite_count <corpus>/*.spv
// counts the instructions inside RewriteDescriptorsToPointers (callgrind_annotate
// --inclusive=yes). The machine's load does not change the count. It also prints a hash
// of every output: a speed-up must leave it unchanged (byte-identical rewrites).
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "spirv/rewrite.h"

using bindery::spirv::TargetEnv;

namespace {

TargetEnv TargetOf(uint32_t version) {
  if (version >= 0x00010600) return TargetEnv::kVulkan1_3;
  if (version >= 0x00010500) return TargetEnv::kVulkan1_2;
  if (version >= 0x00010400) return TargetEnv::kVulkan1_1Spirv1_4;
  if (version >= 0x00010300) return TargetEnv::kVulkan1_1;
  return TargetEnv::kVulkan1_0;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t words_out = 0, converted = 0, rewrites = 0;
  uint64_t hash = 1469598103934665603ull;
  for (int a = 1; a < argc; ++a) {
    std::ifstream f(argv[a], std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    std::vector<uint32_t> words(bytes.size() / 4);
    if (words.size() < 5) continue;
    std::memcpy(words.data(), bytes.data(), words.size() * 4);
    const bindery::spirv::ModuleInfo info = bindery::spirv::Inspect(words.data(), words.size());
    for (int variant = 0; variant < 4; ++variant) {
      bindery::spirv::RewriteOptions o = bindery::spirv::DefaultLayout(info, (info.push_constant_bytes + 7u) & ~7u, false);
      o.target = TargetOf(words[1]);
      o.shader_int64 = (variant & 1) == 0;
      o.bounds_checks = (variant & 2) != 0;
      const bindery::spirv::RewriteResult r = bindery::spirv::RewriteDescriptorsToPointers(words.data(), words.size(), o);
      words_out += r.module.size();
      for (uint32_t w : r.module) hash = (hash ^ w) * 1099511628211ull;
      converted += r.report.converted ? 1 : 0;
      ++rewrites;
    }
  }
  std::printf("%zu rewrites, %zu converted, %zu words written, output hash %016llx\n", rewrites, converted, words_out,
              static_cast<unsigned long long>(hash));
  return 0;
}
