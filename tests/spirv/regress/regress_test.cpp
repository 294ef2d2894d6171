// Every input the fuzzer found a problem with (tests/spirv/regress/inputs/, named after
// what broke) goes through the fuzzer's checks again: parse, rewrite, write, read back,
// spirv-val. In the ASan+UBSan build the sanitizers watch, as they did in the fuzzer.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "rewrite_invariants.h"

namespace {

std::vector<std::string> Inputs() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& f : std::filesystem::directory_iterator(BINDERY_SPIRV_REGRESS_DIR, ec)) {
    if (f.path().extension() == ".bin") out.push_back(f.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

class FuzzRegression : public testing::TestWithParam<std::string> {};

TEST_P(FuzzRegression, InvariantsHold) {
  std::ifstream in(std::string(BINDERY_SPIRV_REGRESS_DIR) + "/" + GetParam(), std::ios::binary);
  ASSERT_TRUE(in) << GetParam();
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(bindery::spirv_fuzz::CheckRewriteInvariants(bytes.data(), bytes.size()), "");
}

INSTANTIATE_TEST_SUITE_P(Inputs, FuzzRegression, testing::ValuesIn(Inputs()),
                         [](const testing::TestParamInfo<std::string>& p) {
                           std::string name = p.param.substr(0, p.param.size() - 4);
                           for (char& c : name) {
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
