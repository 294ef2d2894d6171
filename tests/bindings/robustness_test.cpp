// Robustness kept (docs/indirect-bindings.md). With robustBufferAccess enabled by the application, the
// rewritten pipeline bounds-checks its accesses: a shader reads and writes past its
// descriptor ranges on purpose. Both runs (indirect bindings off, forced) must give what
// the spec allows; the forced run gives exactly what the rewrite's checks promise (reads
// past the range return 0, writes past it are dropped). Validation silent.
#include <gtest/gtest.h>

#include <cstring>
#include <regex>

#include "integration/test_env.h"
#include "robust_probe_comp.h"
#include "support/vk_objects.h"

namespace bindery::test {
namespace {

constexpr uint32_t kBufferWords = 64;  // 256 bytes
constexpr uint32_t kRangeWords = 32;   // descriptors cover 128
constexpr uint32_t kSentinel = 0x5e5e5e5eu;

struct Output : ModeRunResult {
  std::vector<uint32_t> in, out, res;
};

Output RunInMode(const char* mode) {
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.features.robustBufferAccess = VK_TRUE;
  HarnessOptions options;
  options.device_pnext = &features;
  return RunWithBindings<Output>(mode, options, [&](VkHarness& h, Output& o) {
    ComputeKernel k = h.CreateKernel(robust_probe_comp, sizeof(robust_probe_comp), 3);
    HostBuffer in = h.CreateHostBuffer(kBufferWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer out = h.CreateHostBuffer(kBufferWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer res = h.CreateHostBuffer((2 + 64) * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    for (uint32_t i = 0; i < kBufferWords; ++i) {
      static_cast<uint32_t*>(in.mapped)[i] = 0x1000 + i;
      static_cast<uint32_t*>(out.mapped)[i] = kSentinel;
    }
    std::memset(res.mapped, 0xff, (2 + 64) * 4);
    if (k.pipeline == VK_NULL_HANDLE) {
      o.error = "kernel creation failed";
      return;
    }
    // A set with explicit ranges (the harness helper binds whole buffers).
    const VkDescriptorPool pool = CreateDescriptorPool(h.device(), 1, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3}});
    const VkDescriptorSet set = AllocateSet(h.device(), pool, k.set_layout);
    const VkDescriptorBufferInfo infos[3] = {
        {in.buffer, 0, kRangeWords * 4}, {out.buffer, 0, kRangeWords * 4}, {res.buffer, 0, VK_WHOLE_SIZE}};
    const VkWriteDescriptorSet w = BufferWrite(set, 0, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, infos, 3);
    vkUpdateDescriptorSets(h.device(), 1, &w, 0, nullptr);
    VkCommandBuffer cb = h.BeginCommands();
    RecordDispatch(cb, k.pipeline, k.layout, {set});
    BarrierToHost(cb);
    if (h.SubmitAndWait(cb) != VK_SUCCESS) o.error = "submit failed";
    const uint32_t* p = static_cast<const uint32_t*>(in.mapped);
    o.in.assign(p, p + kBufferWords);
    p = static_cast<const uint32_t*>(out.mapped);
    o.out.assign(p, p + kBufferWords);
    p = static_cast<const uint32_t*>(res.mapped);
    o.res.assign(p, p + 2 + 64);
    vkDestroyDescriptorPool(h.device(), pool, nullptr);
    h.Destroy(k);
    for (HostBuffer* x : {&in, &out, &res}) h.Destroy(*x);
  });
}

// What robustBufferAccess allows: in-range accesses exact; a read past the range gives 0
// or a value from inside the buffer; writes past the range stay inside the buffer (here
// they may only have written the shader's own values or left the sentinel).
void ExpectSpecAllowed(const Output& o, const char* what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(o.res.size(), 66u);
  EXPECT_EQ(o.res[0], kRangeWords);
  EXPECT_EQ(o.res[1], kRangeWords);
  for (uint32_t i = 0; i < 64; ++i) {
    const uint32_t r = o.res[2 + i];
    if (i < kRangeWords) {
      EXPECT_EQ(r, 0x1000 + i) << "read " << i;
    } else {
      EXPECT_TRUE(r == 0 || (r >= 0x1000 && r < 0x1000 + kBufferWords)) << "read " << i << " gave " << r;
    }
  }
  for (uint32_t i = 0; i < kBufferWords; ++i) {
    const uint32_t v = o.out[i];
    if (i < kRangeWords) {
      EXPECT_EQ(v, 0xA0000000u + i) << "write " << i;
    } else {
      EXPECT_TRUE(v == kSentinel || (v >= 0xA0000000u && v < 0xA0000000u + 64)) << "word " << i << " is " << v;
    }
  }
}

TEST(BindingsRobustness, OutOfBoundsReadsAndWritesGiveWhatTheSpecAllows) {
  const Output native = RunInMode("off");
  const Output forced = RunInMode("force");
  ASSERT_BOTH_RAN_SILENTLY(native, forced);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(forced.summary, m, std::regex("pipelines rewritten (\\d+)"))) << forced.summary;
  EXPECT_EQ(m[1], "1") << forced.summary;
  ExpectSpecAllowed(native, "native");
  ExpectSpecAllowed(forced, "forced");
  // The rewrite's own promise under bounds checks.
  for (uint32_t i = kRangeWords; i < 64; ++i) EXPECT_EQ(forced.res[2 + i], 0u) << "read " << i;
  for (uint32_t i = kRangeWords; i < kBufferWords; ++i) EXPECT_EQ(forced.out[i], kSentinel) << "word " << i;
  EXPECT_EQ(forced.in, native.in);
}

}  // namespace
}  // namespace bindery::test
