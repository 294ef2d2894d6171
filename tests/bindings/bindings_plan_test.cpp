// Unit tests of the indirect-bindings planning code: which bindings a layout converts and
// where their records lie, where each set's root lies, and the pool's record allocator.
#include <gtest/gtest.h>

#include "bindings/model/record_allocator.h"
#include "bindings/model/root_layout.h"
#include "bindings/model/set_layout_shadow.h"

namespace bindery::bindings {
namespace {

VkDescriptorSetLayoutBinding B(uint32_t binding, VkDescriptorType type, uint32_t count) {
  return {binding, type, count, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
}

SetLayoutShadow Plan(const std::vector<VkDescriptorSetLayoutBinding>& bindings, bool ubo = false,
                     const std::vector<VkDescriptorBindingFlags>& flags = {},
                     std::vector<VkDescriptorSetLayoutBinding>* native_out = nullptr) {
  VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  info.bindingCount = static_cast<uint32_t>(bindings.size());
  info.pBindings = bindings.data();
  std::vector<VkDescriptorSetLayoutBinding> native;
  std::vector<VkDescriptorBindingFlags> native_flags;
  SetLayoutShadow s = PlanSetLayout(info, flags.empty() ? nullptr : flags.data(), ubo, native, native_flags);
  if (native_out != nullptr) *native_out = native;
  return s;
}

TEST(SetLayoutPlan, StorageBuffersConvertInBindingOrderOthersStayNative) {
  std::vector<VkDescriptorSetLayoutBinding> native;
  const SetLayoutShadow s = Plan({B(5, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2), B(1, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, 1),
                                  B(0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3), B(2, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1)},
                                 false, {}, &native);
  ASSERT_EQ(s.converted.size(), 2u);
  EXPECT_EQ(s.converted[0].binding, 0u);
  EXPECT_EQ(s.converted[0].first_record, 0u);
  EXPECT_EQ(s.converted[1].binding, 5u);
  EXPECT_EQ(s.converted[1].first_record, 3u);
  EXPECT_EQ(s.record_count, 5u);
  ASSERT_EQ(native.size(), 2u);  // the image and the uniform buffer (setting off)
  EXPECT_TRUE(s.has_native);
  EXPECT_EQ(s.Find(5), &s.converted[1]);
  EXPECT_EQ(s.Find(1), nullptr);
}

TEST(SetLayoutPlan, UniformBuffersConvertOnlyWithTheSetting) {
  const SetLayoutShadow s = Plan({B(0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1)}, true);
  EXPECT_EQ(s.record_count, 1u);
  EXPECT_FALSE(s.has_native);
}

TEST(SetLayoutPlan, DynamicOffsetsSplitBetweenRootAndNativeInBindingOrder) {
  const SetLayoutShadow s = Plan({B(3, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, 1),
                                  B(0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, 2),
                                  B(4, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, 1)});
  EXPECT_EQ(s.converted_dynamic, 3u);
  EXPECT_EQ(s.native_dynamic, 1u);
  ASSERT_EQ(s.dynamic_runs.size(), 3u);
  EXPECT_TRUE(s.dynamic_runs[0].converted);
  EXPECT_EQ(s.dynamic_runs[0].count, 2u);
  EXPECT_FALSE(s.dynamic_runs[1].converted);
  EXPECT_TRUE(s.dynamic_runs[2].converted);
  EXPECT_EQ(s.Find(4)->first_dynamic, 2u);
}

TEST(SetLayoutPlan, VariableCountBindingSizesTheSet) {
  const SetLayoutShadow s = Plan({B(0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1), B(1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 100)},
                                 false, {0, VK_DESCRIPTOR_BINDING_VARIABLE_DESCRIPTOR_COUNT_BIT});
  EXPECT_EQ(s.RecordsFor(10), 11u);
  EXPECT_EQ(s.RecordsFor(1000), 101u);  // never beyond the layout's maximum
}

TEST(SetLayoutPlan, PushDescriptorLayoutsConvert) {
  std::vector<VkDescriptorSetLayoutBinding> bindings = {B(0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1)};
  VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  info.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
  info.bindingCount = 1;
  info.pBindings = bindings.data();
  std::vector<VkDescriptorSetLayoutBinding> native;
  std::vector<VkDescriptorBindingFlags> flags;
  const SetLayoutShadow s = PlanSetLayout(info, nullptr, false, native, flags);
  EXPECT_TRUE(s.converts());  // the records live in the command buffer's ring
  EXPECT_TRUE(s.push_descriptor);
  EXPECT_TRUE(native.empty());
}

TEST(RootPlan, SetsPackAfterTheApplicationsRangeAndCompatibleLayoutsAgree) {
  auto a = std::make_shared<SetLayoutShadow>(Plan({B(0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, 3)}));
  auto images = std::make_shared<SetLayoutShadow>(Plan({B(0, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, 1)}));
  auto c = std::make_shared<SetLayoutShadow>(Plan({B(0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1)}));
  const RootLayout two = PlanRoot({a, images, c}, 20, 256);
  EXPECT_EQ(two.begin, 24u);
  EXPECT_EQ(two.sets[0].root_offset, 24u);
  EXPECT_EQ(two.sets[0].dynamic_offset, 32u);
  EXPECT_EQ(two.sets[1].root_offset, kNoOffset);
  EXPECT_EQ(two.sets[2].root_offset, 48u);  // 32 + 3*4 = 44, aligned to 48
  EXPECT_EQ(two.end, 56u);
  EXPECT_TRUE(two.fits);
  const RootLayout one = PlanRoot({a}, 20, 256);  // compatible for set 0
  EXPECT_EQ(one.sets[0].root_offset, two.sets[0].root_offset);
  EXPECT_FALSE(PlanRoot({a, images, c}, 232, 256).fits);  // 232 + 20 -> 256, + 8 > 256
  EXPECT_FALSE(PlanRoot({images}, 0, 256).converts);
}

TEST(SetLayoutPlan, SmallSetsFixedWhileBoundMayCarryTheirRecordsInTheRoot) {
  EXPECT_TRUE(Plan({B(0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1), B(1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3)})
                  .records_fit_root);
  EXPECT_TRUE(Plan({B(0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, 2), B(1, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, 1)})
                  .records_fit_root);
  EXPECT_FALSE(Plan({B(0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 5)}).records_fit_root);  // more than kMaxRecordsInRoot
  EXPECT_TRUE(Plan({B(0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 5)}).records_prefix_fit_root);  // a prefix may travel
  EXPECT_FALSE(Plan({B(0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 5)}, false, {VK_DESCRIPTOR_BINDING_UPDATE_AFTER_BIND_BIT})
                   .records_prefix_fit_root);
  EXPECT_FALSE(Plan({B(0, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, 1)}).records_fit_root);   // converts nothing
  EXPECT_FALSE(Plan({B(0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1)}, false, {VK_DESCRIPTOR_BINDING_UPDATE_AFTER_BIND_BIT})
                   .records_fit_root);
  EXPECT_FALSE(Plan({B(0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1)}, false,
                    {VK_DESCRIPTOR_BINDING_UPDATE_UNUSED_WHILE_PENDING_BIT})
                   .records_fit_root);
  EXPECT_FALSE(Plan({B(0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2)}, false,
                    {VK_DESCRIPTOR_BINDING_VARIABLE_DESCRIPTOR_COUNT_BIT})
                   .records_fit_root);
  VkDescriptorSetLayoutBinding b = B(0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1);
  VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  info.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;  // records per command buffer
  info.bindingCount = 1;
  info.pBindings = &b;
  std::vector<VkDescriptorSetLayoutBinding> native;
  std::vector<VkDescriptorBindingFlags> native_flags;
  EXPECT_FALSE(PlanSetLayout(info, nullptr, false, native, native_flags).records_fit_root);
}

TEST(RootPlan, RecordsInTheRootTakeSixteenBytesEachWhileTheyLeaveRoomForLaterSets) {
  auto three = std::make_shared<SetLayoutShadow>(Plan({B(0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3)}));
  auto dynamic = std::make_shared<SetLayoutShadow>(Plan({B(0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, 1)}));
  auto big = std::make_shared<SetLayoutShadow>(Plan({B(0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 8)}));
  const RootLayout r = PlanRoot({three, dynamic, big}, 4, 256, true);
  EXPECT_TRUE(r.sets[0].records_in_root);
  EXPECT_EQ(r.sets[0].root_offset, 8u);
  EXPECT_EQ(r.sets[0].slot_bytes, 48u);
  EXPECT_TRUE(r.sets[1].records_in_root);
  EXPECT_EQ(r.sets[1].root_offset, 56u);
  EXPECT_EQ(r.sets[1].dynamic_offset, 72u);
  // 8 records, more than kMaxRecordsInRoot: a prefix of 7 (as many as leave 8 bytes to
  // spare after the block's address), then its block's address.
  EXPECT_TRUE(r.sets[2].records_in_root);
  EXPECT_TRUE(r.sets[2].partial());
  EXPECT_EQ(r.sets[2].root_offset, 80u);
  EXPECT_EQ(r.sets[2].root_records, 7u);
  EXPECT_EQ(r.sets[2].slot_bytes, 7u * 16 + 8);
  EXPECT_EQ(r.end, 200u);
  EXPECT_TRUE(r.fits);
  // Set 0 is where it was in a layout compatible for set 0 only.
  EXPECT_EQ(PlanRoot({three}, 4, 256, true).sets[0].root_offset, 8u);
  EXPECT_EQ(PlanRoot({three}, 4, 256, true).sets[0].slot_bytes, 48u);
  // Without room for kRootReserveAfterRecords more bytes after all three, a prefix of two
  // and the block's address (8 bytes to spare); with no room for one record, the address.
  const RootLayout tight = PlanRoot({three}, 192, 256, true);
  EXPECT_TRUE(tight.sets[0].partial());
  EXPECT_EQ(tight.sets[0].root_records, 2u);
  EXPECT_EQ(tight.sets[0].slot_bytes, 40u);
  const RootLayout tighter = PlanRoot({three}, 232, 256, true);
  EXPECT_FALSE(tighter.sets[0].records_in_root);
  EXPECT_EQ(tighter.sets[0].slot_bytes, 8u);
  // Off by default (the ring's plan, and the unit tests above).
  EXPECT_FALSE(PlanRoot({three}, 4, 256).sets[0].records_in_root);
}

TEST(RootPlan, SplitPushSpaceGivesEachBindPointHalfOfTheRootBytes) {
  // The H100's 256 bytes after a 4-byte application range: the graphics copy in [8, 128),
  // the compute copy 120 bytes further, in [128, 248).
  const RootPushSpace split = SplitPushSpace(4, 256, true);
  EXPECT_EQ(split.begin, 8u);
  EXPECT_EQ(split.half, 120u);
  EXPECT_EQ(split.graphics_end(), 128u);
  EXPECT_EQ(split.compute_shift(), 120u);
  // Lavapipe's 128 bytes: 56 each. A root of the add's three records (48 bytes, with 32 to
  // spare) carries two of them there and its block's address; on 256 bytes all three.
  EXPECT_EQ(SplitPushSpace(4, 128, true).half, 56u);
  auto three = std::make_shared<SetLayoutShadow>(Plan({B(0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3)}));
  EXPECT_TRUE(PlanRoot({three}, 4, split.graphics_end(), true).sets[0].records_in_root);
  EXPECT_FALSE(PlanRoot({three}, 4, split.graphics_end(), true).sets[0].partial());
  EXPECT_EQ(PlanRoot({three}, 4, SplitPushSpace(4, 128, true).graphics_end(), true).sets[0].root_records, 2u);
  // Not split: one region to the end, no shift.
  const RootPushSpace whole = SplitPushSpace(4, 256, false);
  EXPECT_EQ(whole.graphics_end(), 256u);
  EXPECT_EQ(whole.compute_shift(), 0u);
  // Nothing left after the application's ranges: no region.
  EXPECT_EQ(SplitPushSpace(256, 256, true).half, 0u);
}

// ggml's shape (docs/indirect-bindings.md, "Records in the root"): one layout of 12 storage
// buffers for every pipeline, each pipeline layout its own push-constant range (52 bytes for a
// matrix-vector product, 116 for a binary op) on the H100's 256 bytes, split. The kernels
// read their first 3 to 5 buffers: those records travel in the root, the rest in the block.
TEST(RootPlan, ALargeSetCarriesAPrefixOfItsRecordsBeforeItsBlocksAddress) {
  std::vector<VkDescriptorSetLayoutBinding> twelve;
  for (uint32_t i = 0; i < 12; ++i) twelve.push_back(B(i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1));
  auto ggml = std::make_shared<SetLayoutShadow>(Plan(twelve));
  ASSERT_FALSE(ggml->records_fit_root);
  ASSERT_TRUE(ggml->records_prefix_fit_root);
  const RootLayout matvec = PlanRoot({ggml}, 52, SplitPushSpace(52, 256, true).graphics_end(), true);
  EXPECT_EQ(matvec.sets[0].root_offset, 56u);
  EXPECT_EQ(matvec.sets[0].root_records, 5u);  // bindings 0..4: A, B, D and the two fusion inputs
  EXPECT_EQ(matvec.sets[0].slot_bytes, 5u * 16 + 8);
  EXPECT_TRUE(matvec.fits);
  const RootLayout binary = PlanRoot({ggml}, 116, SplitPushSpace(116, 256, true).graphics_end(), true);
  EXPECT_EQ(binary.sets[0].root_offset, 120u);
  EXPECT_EQ(binary.sets[0].root_records, 3u);  // A, B, D
  EXPECT_TRUE(binary.fits);
  // At most kMaxRootPrefixRecords, however much room there is.
  EXPECT_EQ(PlanRoot({ggml}, 0, 4096, true).sets[0].root_records, kMaxRootPrefixRecords);
  // A set above the large one still finds room for its address (kRootReserveAfterPrefix);
  // the large one's prefix is the same in both layouts (compatible for set 0).
  auto one = std::make_shared<SetLayoutShadow>(Plan({B(0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1)}));
  const RootLayout two = PlanRoot({ggml, one}, 116, SplitPushSpace(116, 256, true).graphics_end(), true);
  EXPECT_EQ(two.sets[0].root_records, 3u);
  EXPECT_EQ(two.sets[1].root_offset, 176u);
  EXPECT_FALSE(two.sets[1].records_in_root);
  EXPECT_TRUE(two.fits);
}

// The fuzzer's seed 289 under the split root (lavapipe's 128 bytes of push constants): a
// 2-record set (one dynamic) whose prefix fits alone, but not with two sets above it. The 3-set layout
// gives the prefix up and so moves every slot from set 0 on; it says so (reshaped_sets),
// and the 1-set layout, compatible for set 0, keeps the prefix and says nothing moved.
TEST(RootPlan, SetsMovedSoThatTheRootFitsAreNamed) {
  auto two = std::make_shared<SetLayoutShadow>(Plan({B(0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, 1),
                                                     B(2, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1)}));
  auto one = std::make_shared<SetLayoutShadow>(Plan({B(0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, 1)}));
  ASSERT_TRUE(two->records_prefix_fit_root || two->records_fit_root);
  const uint32_t end = SplitPushSpace(12, 128, true).graphics_end();
  const RootLayout alone = PlanRoot({two}, 12, end, true);
  ASSERT_TRUE(alone.fits);
  ASSERT_TRUE(alone.sets[0].records_in_root);
  EXPECT_EQ(alone.reshaped_sets, 0u);
  const RootLayout three = PlanRoot({two, one, two}, 12, end, true);
  ASSERT_TRUE(three.fits);
  EXPECT_FALSE(three.sets[0].records_in_root) << "set 0 gave its records up so that the root fits";
  EXPECT_EQ(three.reshaped_sets, 0b111u);
  // Room enough: nothing moves.
  EXPECT_EQ(PlanRoot({two, one, two}, 12, 4096, true).reshaped_sets, 0u);
}

// The conformance suite's descriptorset_random.sets8.*.sbolimithigh.* shape on lavapipe with
// the split root forced (docs/indirect-bindings.md, "The root"): eight sets, each with
// storage buffers and a descriptor that stays native, a 16-byte application range, 56
// bytes per bind point. The root fits in neither region; every one of the driver's 8
// bound sets is the application's, so no reserved set: the root goes to the ring with
// its address in push constants (graphics copy after the application's bytes, compute
// copy half the space further), its slots where the reserved-set plan puts them.
TEST(RootPlan, ARingRootWithNoSetLeftIsReadThroughItsAddressInPushConstants) {
  auto set = std::make_shared<SetLayoutShadow>(
      Plan({B(0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2), B(1, VK_DESCRIPTOR_TYPE_SAMPLER, 1)}));
  ASSERT_TRUE(set->has_native);
  const std::vector<std::shared_ptr<const SetLayoutShadow>> eight(8, set);
  const RootPushSpace space = SplitPushSpace(16, 128, true);
  ASSERT_EQ(space.half, 56u);
  ASSERT_FALSE(PlanRoot(eight, 16, space.graphics_end(), true).fits);
  const char* why_not = nullptr;
  const RootLayout ring = PlanRingRoot(eight, space, 8, true, &why_not);
  ASSERT_TRUE(ring.fits) << why_not;
  EXPECT_TRUE(ring.in_buffer);
  EXPECT_TRUE(ring.address_in_push);
  EXPECT_EQ(ring.AddressAt(0), 16u);
  EXPECT_EQ(ring.AddressAt(1), 16u + 56u);
  EXPECT_EQ(ring.end, 64u);  // eight 8-byte addresses from byte 0 of the ring copy
  for (uint32_t i = 0; i < 8; ++i) {
    EXPECT_EQ(ring.sets[i].root_offset, 8 * i) << i;
    EXPECT_FALSE(ring.sets[i].records_in_root) << i;
  }
  // One more set under the driver's limit: the reserved set, as before (no address).
  const RootLayout reserved = PlanRingRoot(eight, space, 9, true, &why_not);
  ASSERT_TRUE(reserved.fits);
  EXPECT_TRUE(reserved.in_buffer);
  EXPECT_FALSE(reserved.address_in_push);
  EXPECT_EQ(reserved.buffer_set, 8u);
  EXPECT_EQ(reserved.compute_shift, 0u);
  for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(reserved.sets[i].root_offset, ring.sets[i].root_offset) << i;
  // Not split: the one region every stage sees, no shift.
  const RootLayout whole = PlanRingRoot(eight, SplitPushSpace(16, 64, false), 8, true, &why_not);
  ASSERT_TRUE(whole.address_in_push);
  EXPECT_EQ(whole.AddressAt(0), 16u);
  EXPECT_EQ(whole.AddressAt(1), 16u);
  // No reserved-set layout on the device: the address too.
  EXPECT_TRUE(PlanRingRoot(eight, space, 9, false, &why_not).address_in_push);
  // Nowhere: the application's range fills push constants and no set is left, or more sets
  // with native descriptors than the driver binds.
  EXPECT_FALSE(PlanRingRoot(eight, SplitPushSpace(128, 128, true), 8, true, &why_not).fits);
  EXPECT_NE(why_not, nullptr);
  EXPECT_FALSE(PlanRingRoot(eight, space, 7, true, &why_not).fits);
  EXPECT_NE(why_not, nullptr);
}

TEST(RecordAllocator, OutOfPoolMemoryVersusFragmentedAndMerging) {
  RecordAllocator r(10);
  uint32_t a = 0, b = 0, c = 0, d = 0;
  ASSERT_EQ(r.Allocate(4, &a), RecordAllocator::Result::kOk);
  ASSERT_EQ(r.Allocate(3, &b), RecordAllocator::Result::kOk);
  ASSERT_EQ(r.Allocate(3, &c), RecordAllocator::Result::kOk);
  EXPECT_EQ(r.Allocate(1, &d), RecordAllocator::Result::kOutOfPoolMemory);
  r.Free(a, 4);
  r.Free(c, 3);
  EXPECT_EQ(r.free_total(), 7u);
  EXPECT_EQ(r.Allocate(5, &d), RecordAllocator::Result::kFragmented);
  r.Free(b, 3);  // merges all three runs
  ASSERT_EQ(r.Allocate(10, &d), RecordAllocator::Result::kOk);
  EXPECT_EQ(d, 0u);
  r.Reset();
  EXPECT_EQ(r.free_total(), 10u);
  EXPECT_EQ(r.Allocate(0, &d), RecordAllocator::Result::kOk);
}

}  // namespace
}  // namespace bindery::bindings
