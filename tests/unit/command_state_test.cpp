// The bookkeeping a copy kernel relies on to give the application its state back.
#include "chassis/command_state.h"
#include "chassis/counting_queries.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

namespace bindery {
namespace {

// Records what RestoreCompute / SuspendForCompute send down.
struct Recorder {
  struct Push {
    VkPipelineLayout layout;
    VkShaderStageFlags stages;
    uint32_t offset, size;
    std::vector<uint8_t> bytes;
  };
  struct SetBind {
    VkPipelineLayout layout;
    uint32_t first;
    std::vector<VkDescriptorSet> sets;
    std::vector<uint32_t> offsets;
  };
  std::vector<VkPipeline> bound;
  std::vector<Push> pushes;
  std::vector<SetBind> set_binds;
  int conditional_begins = 0, conditional_ends = 0;
};
Recorder* g_recorder = nullptr;

VKAPI_ATTR void VKAPI_CALL Bind(VkCommandBuffer, VkPipelineBindPoint, VkPipeline p) { g_recorder->bound.push_back(p); }
VKAPI_ATTR void VKAPI_CALL Push(VkCommandBuffer, VkPipelineLayout l, VkShaderStageFlags s, uint32_t o, uint32_t n,
                                const void* v) {
  const auto* b = static_cast<const uint8_t*>(v);
  g_recorder->pushes.push_back({l, s, o, n, std::vector<uint8_t>(b, b + n)});
}
VKAPI_ATTR void VKAPI_CALL BeginCond(VkCommandBuffer, const VkConditionalRenderingBeginInfoEXT*) {
  ++g_recorder->conditional_begins;
}
VKAPI_ATTR void VKAPI_CALL EndCond(VkCommandBuffer) { ++g_recorder->conditional_ends; }
VKAPI_ATTR void VKAPI_CALL BindSets(VkCommandBuffer, VkPipelineBindPoint, VkPipelineLayout l, uint32_t first,
                                    uint32_t count, const VkDescriptorSet* sets, uint32_t dynamic_count,
                                    const uint32_t* offsets) {
  g_recorder->set_binds.push_back({l, first, std::vector<VkDescriptorSet>(sets, sets + count),
                                   std::vector<uint32_t>(offsets, offsets + dynamic_count)});
}

class CommandStateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_recorder = &recorder_;
    table_.CmdBindPipeline = &Bind;
    table_.CmdPushConstants = &Push;
    table_.CmdBeginConditionalRenderingEXT = &BeginCond;
    table_.CmdEndConditionalRenderingEXT = &EndCond;
    table_.CmdBindDescriptorSets = &BindSets;
  }
  static VkDescriptorSet Set(uintptr_t v) { return reinterpret_cast<VkDescriptorSet>(v); }
  static VkPipelineLayout Layout(uintptr_t v) { return reinterpret_cast<VkPipelineLayout>(v); }
  Recorder recorder_;
  VkLayerDispatchTable table_{};
  PoolInfo compute_pool_{0, VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT, false, {}};
};

TEST_F(CommandStateTest, RestoresPipelineAndReplaysTheLatestPushesInOrder) {
  CommandState s(VK_NULL_HANDLE, compute_pool_, false, 128);
  s.Reset();
  const uint32_t a[2] = {1, 2}, b[2] = {3, 4}, c[1] = {5};
  s.OnBindPipeline(VK_PIPELINE_BIND_POINT_COMPUTE, reinterpret_cast<VkPipeline>(uintptr_t{7}));
  s.OnPushConstants(Layout(1), VK_SHADER_STAGE_COMPUTE_BIT, 0, 8, a);
  s.OnPushConstants(Layout(1), VK_SHADER_STAGE_COMPUTE_BIT, 8, 4, c);
  s.OnPushConstants(Layout(2), VK_SHADER_STAGE_COMPUTE_BIT, 0, 8, b);  // same range again: replaces, moves last
  s.RestoreCompute(VK_NULL_HANDLE, table_);
  ASSERT_EQ(recorder_.bound.size(), 1u);
  EXPECT_EQ(recorder_.bound[0], reinterpret_cast<VkPipeline>(uintptr_t{7}));
  ASSERT_EQ(recorder_.pushes.size(), 2u);
  EXPECT_EQ(recorder_.pushes[0].offset, 8u);
  EXPECT_EQ(recorder_.pushes[1].layout, Layout(2));
  EXPECT_EQ(recorder_.pushes[1].bytes, (std::vector<uint8_t>{3, 0, 0, 0, 4, 0, 0, 0}));
}

TEST_F(CommandStateTest, NothingToRestoreAfterReset) {
  CommandState s(VK_NULL_HANDLE, compute_pool_, false, 128);
  const uint32_t a = 9;
  s.OnBindPipeline(VK_PIPELINE_BIND_POINT_COMPUTE, reinterpret_cast<VkPipeline>(uintptr_t{7}));
  s.OnPushConstants(Layout(1), VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &a);
  s.Reset();
  s.RestoreCompute(VK_NULL_HANDLE, table_);
  EXPECT_TRUE(recorder_.bound.empty());
  EXPECT_TRUE(recorder_.pushes.empty());
}

TEST_F(CommandStateTest, ConditionalRenderingIsSuspendedAndResumed) {
  CommandState s(VK_NULL_HANDLE, compute_pool_, false, 128);
  s.SuspendForCompute(VK_NULL_HANDLE, table_);
  EXPECT_EQ(recorder_.conditional_ends, 0) << "no block active";
  VkConditionalRenderingBeginInfoEXT info{VK_STRUCTURE_TYPE_CONDITIONAL_RENDERING_BEGIN_INFO_EXT};
  s.OnBeginConditionalRendering(info);
  s.SuspendForCompute(VK_NULL_HANDLE, table_);
  s.RestoreCompute(VK_NULL_HANDLE, table_);
  EXPECT_EQ(recorder_.conditional_ends, 1);
  EXPECT_EQ(recorder_.conditional_begins, 1);
  s.OnEndConditionalRendering();
  s.SuspendForCompute(VK_NULL_HANDLE, table_);
  EXPECT_EQ(recorder_.conditional_ends, 1);
}

TEST_F(CommandStateTest, ComputeWorkOnlyWhereItCanBeUndone) {
  PoolInfo transfer_only{1, VK_QUEUE_TRANSFER_BIT, false, {}};
  EXPECT_FALSE(CommandState(VK_NULL_HANDLE, transfer_only, false, 128).CanRecordComputeWork()) << "no compute";
  PoolInfo protected_pool{0, VK_QUEUE_COMPUTE_BIT, true, {}};
  EXPECT_FALSE(CommandState(VK_NULL_HANDLE, protected_pool, false, 128).CanRecordComputeWork()) << "protected";
  CommandState secondary(VK_NULL_HANDLE, compute_pool_, true, 128);
  secondary.Reset({.conditional_rendering = true});
  EXPECT_FALSE(secondary.CanRecordComputeWork()) << "cannot suspend the primary's conditional rendering";

  CommandState many(VK_NULL_HANDLE, compute_pool_, false, 128);
  EXPECT_TRUE(many.CanRecordComputeWork());
  const uint32_t v = 1;
  for (uint32_t i = 0; i < 9; ++i) many.OnPushConstants(Layout(1), VK_SHADER_STAGE_COMPUTE_BIT, 4 * i, 4, &v);
  EXPECT_FALSE(many.CanRecordComputeWork()) << "more distinct push ranges than can be replayed";
  many.Reset();
  EXPECT_TRUE(many.CanRecordComputeWork());
}

// A bug once fixed: one shared byte array replayed a VERTEX push with the COMPUTE push's
// bytes written later at the same offsets. Each record keeps its own bytes.
TEST_F(CommandStateTest, PushesToDifferentStagesAtTheSameOffsetsKeepTheirOwnBytes) {
  CommandState s(VK_NULL_HANDLE, compute_pool_, false, 128);
  const uint32_t vertex[2] = {0x11111111, 0x22222222}, compute[2] = {0x33333333, 0x44444444};
  s.OnPushConstants(Layout(1), VK_SHADER_STAGE_VERTEX_BIT, 0, 8, vertex);
  s.OnPushConstants(Layout(2), VK_SHADER_STAGE_COMPUTE_BIT, 0, 8, compute);
  s.RestoreCompute(VK_NULL_HANDLE, table_);
  ASSERT_EQ(recorder_.pushes.size(), 2u);
  EXPECT_EQ(recorder_.pushes[0].stages, static_cast<VkShaderStageFlags>(VK_SHADER_STAGE_VERTEX_BIT));
  EXPECT_EQ(recorder_.pushes[0].bytes, (std::vector<uint8_t>{0x11, 0x11, 0x11, 0x11, 0x22, 0x22, 0x22, 0x22}));
  EXPECT_EQ(recorder_.pushes[1].stages, static_cast<VkShaderStageFlags>(VK_SHADER_STAGE_COMPUTE_BIT));
  EXPECT_EQ(recorder_.pushes[1].bytes, (std::vector<uint8_t>{0x33, 0x33, 0x33, 0x33, 0x44, 0x44, 0x44, 0x44}));
}

TEST_F(CommandStateTest, ReplacedPushesFreeTheirBytesForLaterOnes) {
  CommandState s(VK_NULL_HANDLE, compute_pool_, false, 16);
  for (uint32_t round = 0; round < 20; ++round) {
    for (uint32_t r = 0; r < 8; ++r) {
      const uint32_t v = round * 100 + r;
      s.OnPushConstants(Layout(1), VK_SHADER_STAGE_COMPUTE_BIT, 4 * (r % 4), 4, &v);
      s.OnPushConstants(Layout(1), VK_SHADER_STAGE_VERTEX_BIT, 4 * (r % 4), 4, &v);
    }
  }
  EXPECT_TRUE(s.CanRecordComputeWork()) << "8 distinct ranges fit";
  s.RestoreCompute(VK_NULL_HANDLE, table_);
  ASSERT_EQ(recorder_.pushes.size(), 8u);
  for (const auto& p : recorder_.pushes) {
    uint32_t v;
    std::memcpy(&v, p.bytes.data(), 4);
    EXPECT_EQ(v, 1900 + 4 + p.offset / 4) << "each record keeps the last value pushed to its range";
  }
}

// State the layer cannot replay keeps kernels out of the command buffer.
TEST_F(CommandStateTest, UnreplayablePushConstants2AndComputeShaderObjectsKeepComputeWorkOut) {
  CommandState s(VK_NULL_HANDLE, compute_pool_, false, 128);
  const uint32_t v = 1;
  PushConstantsInfo info{static_cast<VkStructureType>(1000545004), nullptr, Layout(3), VK_SHADER_STAGE_COMPUTE_BIT, 0,
                         4, &v};
  s.OnPushConstants2(info);
  EXPECT_TRUE(s.CanRecordComputeWork()) << "a push with a layout is replayed like vkCmdPushConstants";
  EXPECT_EQ(s.push_record_count(), 1u);
  VkPipelineLayoutCreateInfo dynamic_layout{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  info.layout = VK_NULL_HANDLE;
  info.pNext = &dynamic_layout;
  s.OnPushConstants2(info);
  EXPECT_FALSE(s.CanRecordComputeWork()) << "a push through a pipeline layout create info cannot be replayed";

  CommandState t(VK_NULL_HANDLE, compute_pool_, false, 128);
  const VkShaderStageFlagBits compute = VK_SHADER_STAGE_COMPUTE_BIT, vertex = VK_SHADER_STAGE_VERTEX_BIT;
  const ShaderObject shader = 42;
  t.OnBindShaders(1, &vertex, &shader);
  EXPECT_TRUE(t.CanRecordComputeWork()) << "graphics shader objects are not disturbed by a compute pipeline";
  t.OnBindShaders(1, &compute, &shader);
  EXPECT_FALSE(t.CanRecordComputeWork()) << "a compute shader object is bound";
  t.OnBindPipeline(VK_PIPELINE_BIND_POINT_COMPUTE, reinterpret_cast<VkPipeline>(uintptr_t{7}));
  EXPECT_TRUE(t.CanRecordComputeWork()) << "a compute pipeline replaced it";
}

// The record path's shortcut: a push of the same range as the last one only replaces its
// bytes and layout; the replay is what the full bookkeeping would give.
TEST_F(CommandStateTest, RepeatedPushOfTheLastRangeKeepsOrderAndTakesTheNewBytes) {
  CommandState s(VK_NULL_HANDLE, compute_pool_, false, 128);
  s.Reset();
  const uint32_t a[2] = {1, 2}, b[2] = {3, 4}, c[1] = {5}, d[1] = {6};
  s.OnPushConstants(Layout(1), VK_SHADER_STAGE_COMPUTE_BIT, 0, 8, a);
  s.OnPushConstants(Layout(1), VK_SHADER_STAGE_COMPUTE_BIT, 8, 4, c);
  s.OnPushConstants(Layout(3), VK_SHADER_STAGE_COMPUTE_BIT, 8, 4, d);  // the last range again
  s.OnPushConstants(Layout(3), VK_SHADER_STAGE_COMPUTE_BIT, 8, 4, d);
  s.OnPushConstants(Layout(2), VK_SHADER_STAGE_COMPUTE_BIT, 0, 8, b);  // an earlier range: moves last
  s.OnPushConstants(Layout(2), VK_SHADER_STAGE_COMPUTE_BIT, 0, 8, b);
  EXPECT_EQ(s.push_record_count(), 2u);
  s.RestoreCompute(VK_NULL_HANDLE, table_);
  ASSERT_EQ(recorder_.pushes.size(), 2u);
  EXPECT_EQ(recorder_.pushes[0].layout, Layout(3));
  EXPECT_EQ(recorder_.pushes[0].offset, 8u);
  EXPECT_EQ(recorder_.pushes[0].bytes, std::vector<uint8_t>({6, 0, 0, 0}));
  EXPECT_EQ(recorder_.pushes[1].layout, Layout(2));
  EXPECT_EQ(recorder_.pushes[1].offset, 0u);
  EXPECT_EQ(recorder_.pushes[1].bytes, std::vector<uint8_t>({3, 0, 0, 0, 4, 0, 0, 0}));
}

// A query that counts dispatches (chassis/counting_queries.h) keeps compute work out while it
// is active: from its begin to its end, the same pool, query and index; others do not.
TEST_F(CommandStateTest, ComputeWorkStaysOutOfQueriesThatCountDispatches) {
  CommandState s(VK_NULL_HANDLE, compute_pool_, false, 128);
  s.Reset();
  const auto pool = [](uintptr_t v) { return reinterpret_cast<VkQueryPool>(v); };
  s.OnBeginQuery(/*counts_dispatches=*/false, pool(1), 0, 0);
  EXPECT_TRUE(s.CanRecordComputeWork()) << "an occlusion query does not see a dispatch";
  s.OnBeginQuery(true, pool(2), 3, 0);
  EXPECT_FALSE(s.CanRecordComputeWork());
  EXPECT_TRUE(s.DispatchesCounted());
  s.OnEndQuery(pool(2), 4, 0);
  EXPECT_FALSE(s.CanRecordComputeWork()) << "another query of the pool ended";
  s.OnEndQuery(pool(2), 3, 1);
  EXPECT_FALSE(s.CanRecordComputeWork()) << "another index ended";
  s.OnEndQuery(pool(1), 0, 0);
  EXPECT_FALSE(s.CanRecordComputeWork());
  s.OnBeginQuery(true, pool(5), 0, 0);  // a performance query beside it
  s.OnEndQuery(pool(2), 3, 0);
  EXPECT_FALSE(s.CanRecordComputeWork()) << "the performance query is still active";
  s.OnEndQuery(pool(5), 0, 0);
  EXPECT_TRUE(s.CanRecordComputeWork());
  // More than the spec allows at once (one per query type): counted until the reset.
  for (uintptr_t i = 0; i < 5; ++i) s.OnBeginQuery(true, pool(10 + i), 0, 0);
  for (uintptr_t i = 0; i < 5; ++i) s.OnEndQuery(pool(10 + i), 0, 0);
  EXPECT_FALSE(s.CanRecordComputeWork()) << "one begin was not kept: its end cannot be told apart";
  s.Reset();
  EXPECT_TRUE(s.CanRecordComputeWork());
  s.OnBeginQuery(true, pool(2), 0, 0);
  s.Reset();
  EXPECT_TRUE(s.CanRecordComputeWork()) << "a reset ends every query of the recording";
}

// A secondary that inherits statistics a dispatch counts may run inside such a query of its
// primary: no compute work there at all. A primary's inheritance info is ignored.
TEST_F(CommandStateTest, InheritedCountingStatisticsKeepASecondaryNative) {
  CommandState secondary(VK_NULL_HANDLE, compute_pool_, true, 128);
  secondary.Reset({.counting_statistics = true});
  EXPECT_FALSE(secondary.CanRecordComputeWork());
  EXPECT_TRUE(secondary.DispatchesCounted());
  secondary.Reset({.counting_statistics = false});
  EXPECT_TRUE(secondary.CanRecordComputeWork());
  CommandState primary(VK_NULL_HANDLE, compute_pool_, false, 128);
  primary.Reset({.counting_statistics = true});
  EXPECT_TRUE(primary.CanRecordComputeWork()) << "pInheritanceInfo is ignored for a primary";
}

// The spec's answer per query type (docs/transfers.md, "What a kernel could change").
TEST(CountingQueries, OnlyQueriesThatCanSeeADispatchCount) {
  EXPECT_TRUE(QueryCountsDispatches(VK_QUERY_TYPE_PIPELINE_STATISTICS,
                                    VK_QUERY_PIPELINE_STATISTIC_COMPUTE_SHADER_INVOCATIONS_BIT));
  EXPECT_TRUE(QueryCountsDispatches(VK_QUERY_TYPE_PIPELINE_STATISTICS,
                                    VK_QUERY_PIPELINE_STATISTIC_VERTEX_SHADER_INVOCATIONS_BIT |
                                        VK_QUERY_PIPELINE_STATISTIC_COMPUTE_SHADER_INVOCATIONS_BIT));
  const VkQueryPipelineStatisticFlags graphics = 0x3FF | VK_QUERY_PIPELINE_STATISTIC_TASK_SHADER_INVOCATIONS_BIT_EXT |
                                                 VK_QUERY_PIPELINE_STATISTIC_MESH_SHADER_INVOCATIONS_BIT_EXT |
                                                 VK_QUERY_PIPELINE_STATISTIC_CLUSTER_CULLING_SHADER_INVOCATIONS_BIT_HUAWEI;
  EXPECT_FALSE(QueryCountsDispatches(VK_QUERY_TYPE_PIPELINE_STATISTICS, graphics)) << "graphics stages only";
  EXPECT_TRUE(QueryCountsDispatches(VK_QUERY_TYPE_PIPELINE_STATISTICS, 0x4000)) << "a statistic newer than the headers";
  EXPECT_TRUE(QueryCountsDispatches(VK_QUERY_TYPE_PERFORMANCE_QUERY_KHR, 0));
  EXPECT_TRUE(QueryCountsDispatches(VK_QUERY_TYPE_PERFORMANCE_QUERY_INTEL, 0));
  for (VkQueryType t : {VK_QUERY_TYPE_OCCLUSION, VK_QUERY_TYPE_TIMESTAMP, VK_QUERY_TYPE_TRANSFORM_FEEDBACK_STREAM_EXT,
                        VK_QUERY_TYPE_PRIMITIVES_GENERATED_EXT, VK_QUERY_TYPE_MESH_PRIMITIVES_GENERATED_EXT,
                        VK_QUERY_TYPE_RESULT_STATUS_ONLY_KHR, VK_QUERY_TYPE_ACCELERATION_STRUCTURE_COMPACTED_SIZE_KHR,
                        VK_QUERY_TYPE_ACCELERATION_STRUCTURE_SIZE_KHR, VK_QUERY_TYPE_MICROMAP_COMPACTED_SIZE_EXT}) {
    EXPECT_FALSE(QueryCountsDispatches(t, VK_QUERY_PIPELINE_STATISTIC_COMPUTE_SHADER_INVOCATIONS_BIT)) << t;
  }
  EXPECT_TRUE(QueryCountsDispatches(static_cast<VkQueryType>(1000999000), 0)) << "a query type newer than the headers";
  EXPECT_TRUE(InheritedStatisticsCountDispatches(VK_QUERY_PIPELINE_STATISTIC_COMPUTE_SHADER_INVOCATIONS_BIT));
  EXPECT_FALSE(InheritedStatisticsCountDispatches(graphics));
  EXPECT_FALSE(InheritedStatisticsCountDispatches(0));
}

}  // namespace
}  // namespace bindery

namespace bindery {
namespace {

// The compute descriptor sets an application bound are bound again in order; a bind whose
// sets a later bind all covers is dropped; graphics binds are not recorded; more than the
// record holds, or a push descriptor, makes the sets untrackable (no image kernel then).
TEST_F(CommandStateTest, ComputeDescriptorSetsAreBoundAgainInOrder) {
  CommandState s(VK_NULL_HANDLE, compute_pool_, false, 128);
  s.Reset();
  const VkDescriptorSet ab[2] = {Set(1), Set(2)}, c = Set(3), d = Set(4);
  const uint32_t offsets[3] = {16, 32, 48};
  s.OnBindDescriptorSets(VK_PIPELINE_BIND_POINT_COMPUTE, Layout(1), 0, 2, ab, 2, offsets);
  s.OnBindDescriptorSets(VK_PIPELINE_BIND_POINT_GRAPHICS, Layout(9), 0, 1, &d, 0, nullptr);
  s.OnBindDescriptorSets(VK_PIPELINE_BIND_POINT_COMPUTE, Layout(2), 1, 1, &c, 1, offsets + 2);
  s.OnBindDescriptorSets(VK_PIPELINE_BIND_POINT_COMPUTE, Layout(3), 2, 1, &d, 0, nullptr);
  s.OnBindDescriptorSets(VK_PIPELINE_BIND_POINT_COMPUTE, Layout(4), 2, 1, &c, 0, nullptr);  // drops the previous
  EXPECT_EQ(s.set_bind_count(), 3u);
  s.RestoreComputeDescriptorSets(VK_NULL_HANDLE, table_);
  ASSERT_EQ(recorder_.set_binds.size(), 3u);
  EXPECT_EQ(recorder_.set_binds[0].layout, Layout(1));
  EXPECT_EQ(recorder_.set_binds[0].sets, (std::vector<VkDescriptorSet>{Set(1), Set(2)}));
  EXPECT_EQ(recorder_.set_binds[0].offsets, (std::vector<uint32_t>{16, 32}));
  EXPECT_EQ(recorder_.set_binds[1].first, 1u);
  EXPECT_EQ(recorder_.set_binds[1].offsets, (std::vector<uint32_t>{48}));
  EXPECT_EQ(recorder_.set_binds[2].layout, Layout(4));
  EXPECT_TRUE(s.ComputeDescriptorSetsRestorable());
  // A bind covering everything drops all earlier ones (their storage is compacted).
  s.OnBindDescriptorSets(VK_PIPELINE_BIND_POINT_COMPUTE, Layout(5), 0, 2, ab, 0, nullptr);
  EXPECT_EQ(s.set_bind_count(), 2u);  // set 2's bind stays
  for (uint32_t i = 0; i < 40; ++i) s.OnBindDescriptorSets(VK_PIPELINE_BIND_POINT_COMPUTE, Layout(6), 3 + i % 9, 1, &c, 0, nullptr);
  EXPECT_FALSE(s.ComputeDescriptorSetsRestorable()) << "more distinct binds than the record holds";
  s.Reset();
  EXPECT_TRUE(s.ComputeDescriptorSetsRestorable());
  s.OnComputeDescriptorsUntrackable();
  EXPECT_FALSE(s.ComputeDescriptorSetsRestorable());
}

// The tracking stage's bind hook rewrites the last record in place where a bind binds again
// what it bound (RebindLastOne inline, RebindLast out of line) and records anything else
// with OnBindDescriptorSets: every sequence of binds must then be bound again exactly as
// OnBindDescriptorSets alone would bind it. Random sequences over few set numbers, so that
// rebinds of the last range, covering binds and partial overlaps all occur.
TEST_F(CommandStateTest, RebindingTheLastRangeInPlaceRestoresWhatRecordingEveryBindRestores) {
  std::mt19937 random(20261207);
  CommandState reference(VK_NULL_HANDLE, compute_pool_, false, 128), fast(VK_NULL_HANDLE, compute_pool_, false, 128);
  auto restore = [&](const CommandState& s) {
    recorder_.set_binds.clear();
    s.RestoreComputeDescriptorSets(VK_NULL_HANDLE, table_);
    return recorder_.set_binds;
  };
  int in_place = 0;
  for (int sequence = 0; sequence < 200; ++sequence) {
    reference.Reset();
    fast.Reset();
    for (int step = 0; step < 30; ++step) {
      const uint32_t first = random() % 3, count = 1 + random() % 2, dynamic_count = random() % 3;
      VkDescriptorSet sets[2] = {Set(1 + random() % 50), Set(1 + random() % 50)};
      const uint32_t offsets[2] = {static_cast<uint32_t>(random() % 64) * 16, static_cast<uint32_t>(random() % 64) * 16};
      const VkPipelineLayout layout = Layout(1 + random() % 4);
      reference.OnBindDescriptorSets(VK_PIPELINE_BIND_POINT_COMPUTE, layout, first, count, sets, dynamic_count, offsets);
      if (fast.RebindLastOne(layout, first, count, sets, dynamic_count) ||
          fast.RebindLast(layout, first, count, sets, dynamic_count, offsets)) {
        ++in_place;
      } else {
        fast.OnBindDescriptorSets(VK_PIPELINE_BIND_POINT_COMPUTE, layout, first, count, sets, dynamic_count, offsets);
      }
      ASSERT_EQ(fast.set_bind_count(), reference.set_bind_count()) << "sequence " << sequence << " step " << step;
      const auto want = restore(reference), got = restore(fast);
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(got[i].layout, want[i].layout);
        EXPECT_EQ(got[i].first, want[i].first);
        EXPECT_EQ(got[i].sets, want[i].sets);
        ASSERT_EQ(got[i].offsets, want[i].offsets) << "sequence " << sequence << " step " << step << " bind " << i;
      }
    }
  }
  EXPECT_GT(in_place, 200) << "the sequences should rebind the last range often";
  // A bind that is not the last one's range changes nothing through the in-place forms.
  fast.Reset();
  const VkDescriptorSet a = Set(7), b = Set(8);
  const VkDescriptorSet pair[2] = {a, b};
  EXPECT_FALSE(fast.RebindLastOne(Layout(1), 0, 1, &a, 0)) << "nothing recorded yet";
  fast.OnBindDescriptorSets(VK_PIPELINE_BIND_POINT_COMPUTE, Layout(1), 0, 1, &a, 0, nullptr);
  EXPECT_FALSE(fast.RebindLastOne(Layout(1), 1, 1, &b, 0));
  EXPECT_FALSE(fast.RebindLast(Layout(1), 0, 2, pair, 0, nullptr));
  EXPECT_TRUE(fast.RebindLastOne(Layout(2), 0, 1, &b, 0));
  const auto binds = restore(fast);
  ASSERT_EQ(binds.size(), 1u);
  EXPECT_EQ(binds[0].layout, Layout(2));
  EXPECT_EQ(binds[0].sets, std::vector<VkDescriptorSet>{b});
}

}  // namespace
}  // namespace bindery
