// Module parse/write: byte-for-byte round trips and malformed input as error values.
#include <gtest/gtest.h>

#include "spirv/module.h"
#include "spv_files.h"

namespace bindery::spirv {
namespace {

TEST(SpirvModule, RoundTripsEveryCompiledShaderByteForByte) {
  auto files = test::AllSpvFiles();
  ASSERT_FALSE(files.empty());
  for (const auto& f : files) {
    ASSERT_GT(f.words.size(), 5u) << f.Name() << " was not built";
    Module m;
    ASSERT_EQ(ParseModule(f.words.data(), f.words.size(), &m), "") << f.Name();
    EXPECT_EQ(m.Write(), f.words) << f.Name();
    EXPECT_FALSE(m.functions.empty());
    EXPECT_FALSE(m.types_values.empty());
  }
}

std::vector<uint32_t> Sample() { return test::AllSpvFiles().front().words; }

std::string ParseError(const std::vector<uint32_t>& w) {
  Module m;
  return ParseModule(w.data(), w.size(), &m);
}

TEST(SpirvModule, MalformedInputsAreErrors) {
  std::vector<uint32_t> good = Sample();
  EXPECT_NE(ParseError({}), "");
  EXPECT_NE(ParseError({0x07230203u, 0x00010000u}), "");  // truncated header
  auto w = good;
  w[0] = 0xdeadbeef;
  EXPECT_NE(ParseError(w).find("magic"), std::string::npos);
  w = good;
  w[3] = 0xffffffffu;  // huge bound
  EXPECT_NE(ParseError(w).find("bound"), std::string::npos);
  w = good;
  w[5] = 0;  // word count 0
  EXPECT_NE(ParseError(w).find("word count 0"), std::string::npos);
  w = good;
  w.back() = (2u << 16) | (w.back() & 0xffffu);  // last instruction runs past the end
  EXPECT_NE(ParseError(w).find("past the end"), std::string::npos);
  w = good;
  w[3] = 3;  // every result id is now >= bound
  EXPECT_NE(ParseError(w).find("outside the bound"), std::string::npos);
  w = good;
  w[5] = (0xffffu << 16) | (w[5] & 0xffffu);  // word count far past the end
  EXPECT_NE(ParseError(w).find("past the end"), std::string::npos);
  w = good;
  w[1] = 0x00020000u;
  EXPECT_NE(ParseError(w).find("version"), std::string::npos);
}

TEST(SpirvModule, TruncationAtEveryWordNeverCrashes) {
  std::vector<uint32_t> good = Sample();
  for (size_t n = 0; n < good.size(); ++n) {
    std::vector<uint32_t> w(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
    Module m;
    (void)ParseModule(w.data(), w.size(), &m);  // an error or a shorter module, never a crash
  }
}

}  // namespace
}  // namespace bindery::spirv
