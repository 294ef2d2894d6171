// The bindings_dump setting writes each module the layer rewrites
// (original and rewritten .spv, and the layout used as text) for replay with
// bindery-spirv; a second pipeline from the same module is a cache hit and writes nothing new.
#include <gtest/gtest.h>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "compute_run.h"
#include "integration/test_env.h"

namespace bindery::test {
namespace {

std::vector<std::string> Files(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] != '.') out.push_back(e->d_name);
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(BindingsDump, RewrittenModulesAreWrittenOnce) {
  char tmpl[] = "/tmp/bindery_dump_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  ScopedEnv bindings("BINDERY_INDIRECT_BINDINGS", "force");
  ScopedEnv dump("BINDERY_BINDINGS_DUMP", dir);
  std::string error;
  const std::vector<uint32_t> code =
      spirv_exec::LoadSpirv(std::string(BINDERY_SPIRV_CORPUS_DIR) + "/ssbo_copy.comp.spv", error);
  ASSERT_TRUE(error.empty()) << error;
  {
    VkHarness h;
    ASSERT_TRUE(h.ok()) << h.error();
    for (int i = 0; i < 2; ++i) {  // the second is served from the rewrite cache
      ComputeKernel k = h.CreateKernel(code.data(), code.size() * 4, 2);
      ASSERT_NE(k.pipeline, VK_NULL_HANDLE);
      h.Destroy(k);
    }
    EXPECT_VALIDATION_SILENT(h);
  }
  const std::vector<std::string> files = Files(dir);
  ASSERT_EQ(files.size(), 3u);
  const std::string base = dir + "/" + files[0].substr(0, files[0].find('.'));
  std::ifstream orig(base + ".orig.spv", std::ios::binary), rewritten(base + ".rewritten.spv", std::ios::binary),
      layout(base + ".layout.txt");
  std::stringstream o, r, l;
  o << orig.rdbuf();
  r << rewritten.rdbuf();
  l << layout.rdbuf();
  EXPECT_EQ(o.str(), std::string(reinterpret_cast<const char*>(code.data()), code.size() * 4));
  EXPECT_NE(r.str(), o.str());
  EXPECT_EQ(r.str().size() % 4, 0u);
  EXPECT_NE(l.str().find("set 0 root"), std::string::npos) << l.str();
  EXPECT_NE(l.str().find("binding 1 array 1 first_record 1"), std::string::npos) << l.str();
  for (const std::string& f : files) unlink((dir + "/" + f).c_str());
  rmdir(dir.c_str());
}

}  // namespace
}  // namespace bindery::test
