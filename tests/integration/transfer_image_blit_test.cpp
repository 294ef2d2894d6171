// Blits as kernels (docs/transfers.md, "Images"): a blit's bytes are the driver's business
// (its sampling positions' precision, its filter's arithmetic, its format encoders), so the
// layer runs one as a kernel only for the classes (source encoding, destination encoding,
// filter) proven on that driver to give the native bytes (transfer/policy.cpp, ProvenBlits).
// This test is the proof, run on each driver:
//   - every case natively (no layer);
//   - every case as a kernel wherever one can run (`image_blits=all`): the table of which
//     classes match byte for byte is printed (what ProvenBlits may list for this driver);
//   - with the policy's own choice (`transfers=force`, `image_blits=auto`): every case must
//     give the native bytes, whichever ran as a kernel.
// Cases: downscale by 2, a non-integer upscale, a mirrored partial region into an offset
// one across layers, for each format pair and filter; sources of meaningful values,
// destinations of any bits (the texels around a region must keep theirs, NaN payloads too).
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <random>
#include <sstream>

#include "integration/transfer_image_rig.h"

namespace bindery::test::transfer {
namespace {

struct BlitPair {
  const char* name;
  VkFormat src, dst;
  bool integer;  // nearest only
};

const BlitPair kPairs[] = {
    {"unorm8 -> unorm8", VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_UNORM, false},
    {"unorm8 -> unorm8 (BGRA)", VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_B8G8R8A8_UNORM, false},
    {"srgb8 -> unorm8", VK_FORMAT_R8G8B8A8_SRGB, VK_FORMAT_R8G8B8A8_UNORM, false},
    {"unorm8 -> float16", VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R16G16B16A16_SFLOAT, false},
    {"float16 -> unorm8", VK_FORMAT_R16G16B16A16_SFLOAT, VK_FORMAT_R8G8B8A8_UNORM, false},
    {"float16 -> float16", VK_FORMAT_R16G16B16A16_SFLOAT, VK_FORMAT_R16G16B16A16_SFLOAT, false},
    {"float32 -> float32", VK_FORMAT_R32G32B32A32_SFLOAT, VK_FORMAT_R32G32B32A32_SFLOAT, false},
    {"float32 -> float32 (R)", VK_FORMAT_R32_SFLOAT, VK_FORMAT_R32_SFLOAT, false},
    {"unorm8 -> unorm8 (R)", VK_FORMAT_R8_UNORM, VK_FORMAT_R8_UNORM, false},
    {"unorm16 -> unorm16", VK_FORMAT_R16G16B16A16_UNORM, VK_FORMAT_R16G16B16A16_UNORM, false},
    {"snorm8 -> snorm8", VK_FORMAT_R8G8B8A8_SNORM, VK_FORMAT_R8G8B8A8_SNORM, false},
    {"uint -> uint", VK_FORMAT_R8G8B8A8_UINT, VK_FORMAT_R8G8B8A8_UINT, true},
    {"sint -> sint", VK_FORMAT_R32_SINT, VK_FORMAT_R32_SINT, true},
};

// Image bytes a blit can filter meaningfully: floats in [-2, 2] (no NaN, no infinity, no
// subnormal), any bits for the other encodings.
std::vector<uint8_t> Content(VkFormat format, uint64_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> out(size);
  if (format == VK_FORMAT_R32G32B32A32_SFLOAT || format == VK_FORMAT_R32_SFLOAT) {
    std::uniform_real_distribution<float> value(-2.0f, 2.0f);
    for (uint64_t i = 0; i + 4 <= size; i += 4) {
      const float f = value(rng);
      std::memcpy(&out[i], &f, 4);
    }
  } else if (format == VK_FORMAT_R16G16B16A16_SFLOAT) {
    for (uint64_t i = 0; i + 2 <= size; i += 2) {
      // Sign, exponent 0x0C..0x10 (0.125 to 3.99), any mantissa.
      const uint16_t h = static_cast<uint16_t>((rng() & 0x8000u) | ((0x0Cu + rng() % 5) << 10) | (rng() & 0x3FFu));
      std::memcpy(&out[i], &h, 2);
    }
  } else {
    for (uint8_t& b : out) b = static_cast<uint8_t>(rng());
  }
  return out;
}

struct BlitCase {
  std::string name;
  BlitPair pair;
  VkFilter filter;
  std::vector<VkImageBlit> regions;
};

std::vector<BlitCase> Cases() {
  const VkImageAspectFlags color = VK_IMAGE_ASPECT_COLOR_BIT;
  std::vector<BlitCase> cases;
  for (const BlitPair& pair : kPairs) {
    for (VkFilter filter : {VK_FILTER_NEAREST, VK_FILTER_LINEAR}) {
      if (pair.integer && filter == VK_FILTER_LINEAR) continue;
      const std::string f = filter == VK_FILTER_LINEAR ? "linear" : "nearest";
      VkImageBlit half{{color, 0, 0, 2}, {{0, 0, 0}, {64, 48, 1}}, {color, 1, 0, 2}, {{0, 0, 0}, {32, 24, 1}}};
      VkImageBlit up{{color, 1, 1, 1}, {{3, 2, 0}, {16, 9, 1}}, {color, 0, 0, 1}, {{1, 1, 0}, {38, 24, 1}}};
      VkImageBlit mirrored{{color, 0, 1, 1}, {{50, 5, 0}, {7, 40, 1}}, {color, 0, 0, 1}, {{60, 44, 0}, {9, 3, 1}}};
      cases.push_back({std::string(pair.name) + ", " + f + ", downscale by 2", pair, filter, {half}});
      cases.push_back({std::string(pair.name) + ", " + f + ", upscale 13x7 -> 37x23", pair, filter, {up}});
      cases.push_back({std::string(pair.name) + ", " + f + ", mirrored partial region", pair, filter, {mirrored}});
      VkImageBlit third{{color, 0, 0, 1}, {{1, 2, 0}, {61, 47, 1}}, {color, 1, 1, 1}, {{2, 3, 0}, {22, 18, 1}}};
      VkImageBlit same{{color, 1, 0, 2}, {{0, 0, 0}, {32, 24, 1}}, {color, 0, 0, 2}, {{17, 11, 0}, {49, 35, 1}}};
      cases.push_back({std::string(pair.name) + ", " + f + ", downscale by 3, offsets", pair, filter, {third, same}});
    }
  }
  return cases;
}

// Each case: source and destination (64 x 48, 2 mips, 2 layers) filled with their content,
// the blit, the destination read back.
bool Program(ImageRun& run, VkCommandBuffer cb, const std::vector<BlitCase>& cases) {
  for (uint32_t i = 0; i < cases.size(); ++i) {
    const BlitCase& c = cases[i];
    const VkImageCreateInfo src_info = ImageInfo(c.pair.src, VK_IMAGE_TYPE_2D, {64, 48, 1}, 2, 2);
    const VkImageCreateInfo dst_info = ImageInfo(c.pair.dst, VK_IMAGE_TYPE_2D, {64, 48, 1}, 2, 2);
    if (!ImageSupported(run.h(), src_info) || !ImageSupported(run.h(), dst_info)) return false;
    const TestImage src = run.Image(src_info);
    const TestImage dst = run.Image(dst_info);
    run.Upload(cb, src, Content(c.pair.src, src.bytes, 2 * i + 1), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    // The destination holds any bits (NaNs too): a blit must leave the texels around its region
    // as they are (lavapipe's rewrites those sharing its tiles through float, quieting NaNs).
    run.Upload(cb, dst, Content(VK_FORMAT_R8G8B8A8_UINT, dst.bytes, 2 * i + 2), VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    vkCmdBlitImage(cb, src.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, dst.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                   static_cast<uint32_t>(c.regions.size()), c.regions.data(), c.filter);
    run.Download(cb, dst, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
  }
  return true;
}

TEST(TransferImageBlitProof, ProvenClassesGiveTheNativeBytes) {
  const std::vector<BlitCase> cases = Cases();
  std::vector<std::string> names;
  for (const BlitCase& c : cases) names.push_back(c.name);
  auto program = [&](ImageRun& run, VkCommandBuffer cb) { return Program(run, cb, cases); };
  const ImageRunResult native = RunImageProgram(kLayerOff, program);
  if (native.error == "skipped") GTEST_SKIP() << "a format of the list has no optimal 2D transfer image here";
  RigOptions all;
  all.env = {{"BINDERY_IMAGE_BLITS", "all"}};
  const ImageRunResult every = RunImageProgram(kForceCompute, program, all);
  const ImageRunResult policy = RunImageProgram(kForceCompute, program);
  ASSERT_BOTH_RAN_SILENTLY(native, every);
  ASSERT_BOTH_RAN_SILENTLY(native, policy);
  ASSERT_EQ(every.downloads.size(), cases.size());
  ASSERT_EQ(native.downloads.size(), cases.size());
  // The survey: which classes match when every blit runs as a kernel.
  std::map<std::string, std::pair<uint32_t, uint32_t>> classes;  // class -> (matching cases, cases)
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string key = std::string(cases[i].pair.name) + (cases[i].filter == VK_FILTER_LINEAR ? ", linear" : ", nearest");
    auto& [same, total] = classes[key];
    const bool match = every.downloads[i] == native.downloads[i];
    same += match ? 1 : 0;
    ++total;
    if (!match && std::getenv("BINDERY_BLIT_PROOF_VERBOSE") != nullptr) {
      const auto& a = native.downloads[i];
      const auto& b = every.downloads[i];
      size_t first = 0, count = 0;
      for (size_t j = 0; j < a.size(); ++j) {
        if (a[j] != b[j]) {
          if (count++ == 0) first = j;
        }
      }
      std::cout << "  differs: " << cases[i].name << ": " << count << " bytes, first at " << first << "\n";
    }
  }
  std::ostringstream table;
  for (const auto& [key, counts] : classes) {
    table << "  " << key << ": " << (counts.first == counts.second ? "native bytes" : "differs") << " ("
          << counts.first << "/" << counts.second << " cases)\n";
  }
  std::cout << "[ blit classes as kernels (image_blits=all) ]\n" << table.str() << "[ image kernels ] "
            << every.Counter("image kernels") << " for " << cases.size() << " blits and " << every.staging
            << " uploads and downloads; under the policy: " << policy.Counter("image kernels") << "\n";
  // What the policy runs as kernels gives exactly the native bytes.
  EXPECT_TRUE(SameDownloads(native, policy, names)) << policy.summary;
}

}  // namespace
}  // namespace bindery::test::transfer
