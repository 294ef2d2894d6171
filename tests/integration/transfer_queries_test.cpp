// Transfer kernels and small-write flushes never land inside an application's query that a
// dispatch could change (chassis/counting_queries.h; docs/transfers.md, "What a kernel could
// change"). Each test runs one valid program natively and under Bindery — transfers forced
// (the compute strategy) and the default mode with the policy table's NVIDIA row
// (transfer_strategy=nvidia: what every NVIDIA user gets) — and compares the query results
// word for word and the buffers with the byte model; validation sits below and must stay
// silent. Transfers recorded outside the queries must have run as kernels (the summary), so
// every test fails when a kernel or a flush dispatch lands inside a query:
//
// - Primary/PipelineStatistics (vkCmdBeginQuery) and Primary/IndexedPipelineStatistics
//   (vkCmdBeginQueryIndexedEXT): statistics with COMPUTE_SHADER_INVOCATIONS (and graphics
//   statistics beside it) around the application's dispatches, aligned copies (one region,
//   several small ones), aligned and unaligned fills, a large unaligned update and small
//   unaligned writes; kernels before and after the query.
// - SmallWritesAroundAQuery: small unaligned writes queued before vkCmdBeginQuery (flushed by
//   one dispatch *before* the query starts), more inside it (copies from staging: nothing may
//   wait for a flush inside the query), then a batch after vkCmdEndQuery (a dispatch again).
// - SecondaryInheritingStatistics: a secondary begun with the query's statistics in its
//   inheritance info, executed inside the primary's query (its transfers and the flush of
//   its small writes at its end stay native), a secondary without them beside it (kernels),
//   and a secondary that begins a query of its own. Needs inheritedQueries: where the driver
//   lacks it (lavapipe) a stand-in layer below validation offers it (tests/inherited_queries_layer).
// - QueriesThatCannotSeeADispatch: occlusion, graphics-only statistics and primitives
//   generated around a kernel copy: the same results, and the kernel still runs there.
// - PerformanceQuery: VK_KHR_performance_query (skips where the device lacks it, lavapipe):
//   the copy inside the query is native, the one outside a kernel (counter values are
//   timings, so the summary is the check).
#include <cstring>
#include <functional>

#include "integration/scale_add_kernel.h"
#include "integration/transfer_model.h"
#include "support/vk_objects.h"

namespace bindery::test::transfer {
namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint32_t kElements = 1024;  // the application's dispatch: 16 groups of 64 invocations
constexpr uint32_t kGroups = kElements / 64;
// Statistics of the pools: compute invocations beside graphics statistics that read 0 here.
constexpr VkQueryPipelineStatisticFlags kStatistics =
    VK_QUERY_PIPELINE_STATISTIC_INPUT_ASSEMBLY_VERTICES_BIT | VK_QUERY_PIPELINE_STATISTIC_INPUT_ASSEMBLY_PRIMITIVES_BIT |
    VK_QUERY_PIPELINE_STATISTIC_VERTEX_SHADER_INVOCATIONS_BIT | VK_QUERY_PIPELINE_STATISTIC_CLIPPING_INVOCATIONS_BIT |
    VK_QUERY_PIPELINE_STATISTIC_CLIPPING_PRIMITIVES_BIT | VK_QUERY_PIPELINE_STATISTIC_FRAGMENT_SHADER_INVOCATIONS_BIT |
    VK_QUERY_PIPELINE_STATISTIC_COMPUTE_SHADER_INVOCATIONS_BIT;
constexpr uint32_t kStatisticCount = 7;
constexpr uint32_t kComputeStatistic = 6;  // results are in bit order

// Whether the driver itself has inheritedQueries (NVIDIA's does; lavapipe 22.3 does not, and
// the tests that need it load the stand-in below validation there).
bool DriverHasInheritedQueries() {
  static const bool has = [] {
    VkHarness probe({.bindery = false, .validation = false});
    VkPhysicalDeviceFeatures features{};
    if (probe.ok()) vkGetPhysicalDeviceFeatures(probe.physical_device(), &features);
    return features.inheritedQueries == VK_TRUE;
  }();
  return has;
}

// Whether the driver offers a device extension (the indexed and primitives-generated queries
// need VK_EXT_transform_feedback and VK_EXT_primitives_generated_query: lavapipe has both).
bool DriverOffers(const char* extension) {
  VkHarness probe({.bindery = false, .validation = false});
  if (!probe.ok()) return false;
  uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(probe.physical_device(), nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> all(count);
  vkEnumerateDeviceExtensionProperties(probe.physical_device(), nullptr, &count, all.data());
  for (const auto& e : all) {
    if (std::strcmp(e.extensionName, extension) == 0) return true;
  }
  return false;
}

// The device features and extensions a program of this file needs.
struct QueryDevice {
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  VkPhysicalDeviceTransformFeedbackFeaturesEXT xfb{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TRANSFORM_FEEDBACK_FEATURES_EXT};
  VkPhysicalDevicePrimitivesGeneratedQueryFeaturesEXT generated{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRIMITIVES_GENERATED_QUERY_FEATURES_EXT};
  RigOptions options;

  // `indexed`: vkCmdBeginQueryIndexedEXT and primitives-generated queries; `inherited`: the
  // inheritedQueries feature, through the stand-in below validation.
  QueryDevice(bool indexed, bool inherited) {
    features.features.pipelineStatisticsQuery = VK_TRUE;
    features.features.inheritedQueries = inherited ? VK_TRUE : VK_FALSE;
    if (indexed) {
      features.pNext = &xfb;
      xfb.transformFeedback = VK_TRUE;
      options.device_extensions = {VK_EXT_TRANSFORM_FEEDBACK_EXTENSION_NAME};
      if (DriverOffers(VK_EXT_PRIMITIVES_GENERATED_QUERY_EXTENSION_NAME)) {
        xfb.pNext = &generated;
        generated.primitivesGeneratedQuery = VK_TRUE;
        options.device_extensions.push_back(VK_EXT_PRIMITIVES_GENERATED_QUERY_EXTENSION_NAME);
      }
    }
    if (inherited && !DriverHasInheritedQueries()) options.layers_below = {"VK_LAYER_bindery_test_inherited_queries"};
    options.device_pnext = &features;
  }
  QueryDevice(const QueryDevice&) = delete;
  QueryDevice& operator=(const QueryDevice&) = delete;
};

// What one run of a program gave.
struct QueryRun {
  std::vector<uint64_t> results;  // every query of the pool, in order
  Summary summary;
  bool ran = false;
};

VkQueryPool CreatePool(VkDevice device, VkQueryType type, uint32_t count, VkQueryPipelineStatisticFlags statistics = 0) {
  VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  info.queryType = type;
  info.queryCount = count;
  info.pipelineStatistics = statistics;
  VkQueryPool pool = VK_NULL_HANDLE;
  EXPECT_EQ(vkCreateQueryPool(device, &info, nullptr, &pool), VK_SUCCESS);
  return pool;
}

std::vector<uint64_t> Results(VkDevice device, VkQueryPool pool, uint32_t count, uint32_t values_per_query) {
  std::vector<uint64_t> out(static_cast<size_t>(count) * values_per_query, ~0ull);
  EXPECT_EQ(vkGetQueryPoolResults(device, pool, 0, count, out.size() * sizeof(uint64_t), out.data(),
                                  values_per_query * sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
            VK_SUCCESS);
  return out;
}

// The application's own work: scale_add over kElements words, and what it must leave in `out`.
struct AppDispatch {
  HostBuffer in, out;
  ScaleAddKernel k;
  static constexpr uint32_t kParams[3] = {3, 0x55, kElements};
  AppDispatch(Rig& rig) {
    in = rig.Buffer(kElements * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    out = rig.Buffer(kElements * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    for (uint32_t i = 0; i < kElements; ++i) static_cast<uint32_t*>(in.mapped)[i] = i * 7 + 1;
    std::memset(out.mapped, 0, kElements * 4);
    k = CreateScaleAdd(rig.h(), in.buffer, out.buffer);
  }
  void Record(VkCommandBuffer cb) const {
    BindScaleAdd(cb, k, kParams);
    vkCmdDispatch(cb, kGroups, 1, 1);
  }
  ::testing::AssertionResult OutIsRight() const {
    for (uint32_t i = 0; i < kElements; ++i) {
      const uint32_t want = (i * 7 + 1) * kParams[0] + (i ^ kParams[1]);
      if (static_cast<const uint32_t*>(out.mapped)[i] != want) {
        return ::testing::AssertionFailure() << "out[" << i << "] is " << static_cast<const uint32_t*>(out.mapped)[i];
      }
    }
    return ::testing::AssertionSuccess();
  }
};

// Compute and transfer writes before the next dispatch's and transfers' accesses.
void ComputeAndTransferBarrier(VkCommandBuffer cb) {
  RecordMemoryBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                      VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                      VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                          VK_ACCESS_TRANSFER_WRITE_BIT);
}

// Records the transfers a program puts around or inside a query into `cb` and `model`:
// each kind the layer may take to a kernel under force or NVIDIA's row; calls only the
// layer makes valid (unaligned fills, updates) only where `layer_calls`.
class Transfers {
 public:
  Transfers(VkBuffer src, VkBuffer dst, const std::vector<uint8_t>& source, ByteModel& model, bool layer_calls)
      : src_(src), dst_(dst), source_(source), model_(model), layer_calls_(layer_calls) {}

  // One aligned copy of `size` bytes from the same offset of the source (a kernel from 1 MiB
  // on under NVIDIA's row).
  void Copy(VkCommandBuffer cb, uint64_t at, uint64_t size) {
    const VkBufferCopy region{at, at, size};
    vkCmdCopyBuffer(cb, src_, dst_, 1, &region);
    model_.Copy(source_.data(), at, at, size);
  }
  // Everything: a copy, a copy of five small regions (one batched dispatch), an aligned
  // fill, and where allowed an unaligned fill, an unaligned update and small unaligned
  // writes; disjoint, in [at, at + 6 MiB).
  void All(VkCommandBuffer cb, uint64_t at) {
    Copy(cb, at, 2 * kMiB);
    VkBufferCopy small[5];
    for (uint32_t i = 0; i < 5; ++i) {
      small[i] = {at + 2 * kMiB + i * 4096 + 8, at + 2 * kMiB + i * 4096, 1000 + 4 * i};
      model_.Copy(source_.data(), small[i].srcOffset, small[i].dstOffset, small[i].size);
    }
    vkCmdCopyBuffer(cb, src_, dst_, 5, small);
    vkCmdFillBuffer(cb, dst_, at + 2 * kMiB + 65536 + 4, kMiB + 1024, 0xA1B2C3D4u);
    model_.Fill(at + 2 * kMiB + 65536 + 4, kMiB + 1024, 0xA1B2C3D4u);
    if (!layer_calls_) return;
    vkCmdFillBuffer(cb, dst_, at + 3 * kMiB + 131072 + 1, 2 * kMiB + 2, 0x0F1E2D3Cu);
    model_.Fill(at + 3 * kMiB + 131072 + 1, 2 * kMiB + 2, 0x0F1E2D3Cu);
    vkCmdUpdateBuffer(cb, dst_, at + 5 * kMiB + 196608 + 3, 70001, source_.data() + 11);
    model_.Update(at + 5 * kMiB + 196608 + 3, source_.data() + 11, 70001);
    SmallWrites(cb, at + 5 * kMiB + 327680, 6);
  }
  // `count` small unaligned fills and updates at `at` (queued where the policy coalesces).
  void SmallWrites(VkCommandBuffer cb, uint64_t at, uint32_t count) {
    if (!layer_calls_) return;
    for (uint32_t i = 0; i < count; ++i) {
      const uint64_t offset = at + i * 64 + 1 + i % 3;
      if (i % 2 == 0) {
        vkCmdFillBuffer(cb, dst_, offset, 13, 0x11223344u + i);
        model_.Fill(offset, 13, 0x11223344u + i);
      } else {
        vkCmdUpdateBuffer(cb, dst_, offset, 21, source_.data() + i);
        model_.Update(offset, source_.data() + i, 21);
      }
    }
  }

 private:
  VkBuffer src_, dst_;
  const std::vector<uint8_t>& source_;
  ByteModel& model_;
  bool layer_calls_;
};

// One program run under `config`: buffers of `bytes`, the application's dispatch, a pool of
// `queries` statistics queries (`type`/`statistics` otherwise), then `record(cb, ...)`
// between begin and end of a command buffer; the query results and the summary come back.
struct Program {
  uint64_t bytes = 14 * kMiB;
  VkQueryType type = VK_QUERY_TYPE_PIPELINE_STATISTICS;
  VkQueryPipelineStatisticFlags statistics = kStatistics;
  uint32_t values_per_query = kStatisticCount;
  uint32_t queries = 1;
  bool indexed = false, inherited = false;
  std::function<void(Rig&, VkCommandBuffer, VkQueryPool, const AppDispatch&, Transfers&)> record;
};

QueryRun Run(const Config& config, const Program& program) {
  QueryRun run;
  QueryDevice device(program.indexed, program.inherited);
  Rig rig(config, device.options);
  EXPECT_TRUE(rig.ok()) << config.name << ": " << rig.error();
  if (!rig.ok()) return run;
  VkHarness& h = rig.h();
  auto [src, dst, source, model] = rig.Copy(program.bytes, 29);
  AppDispatch app(rig);
  EXPECT_NE(app.k.set, VK_NULL_HANDLE);
  VkQueryPool pool = CreatePool(h.device(), program.type, program.queries, program.statistics);
  Transfers transfers(src.buffer, dst.buffer, source, model, !config.NativeOnly());
  VkCommandBuffer cb = rig.Allocate();
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  EXPECT_EQ(vkBeginCommandBuffer(cb, &begin), VK_SUCCESS);
  vkCmdResetQueryPool(cb, pool, 0, program.queries);
  program.record(rig, cb, pool, app, transfers);
  rig.HostReadBarrier(cb);
  EXPECT_EQ(rig.Submit(cb), VK_SUCCESS) << config.name;
  run.results = Results(h.device(), pool, program.queries, program.values_per_query);
  EXPECT_TRUE(SameBytes(dst.mapped, model.data(), program.bytes)) << config.name;
  EXPECT_TRUE(app.OutIsRight()) << config.name;
  vkDestroyQueryPool(h.device(), pool, nullptr);
  h.Destroy(app.k.kernel);
  EXPECT_VALIDATION_SILENT(h) << config.name;
  run.summary = rig.Finish();
  run.ran = true;
  return run;
}

// The program natively and under `config`: the same query results; kernels ran under the
// layer (outside the queries), at least `min_kernels` jobs. Returns the native run.
QueryRun ExpectSameResults(const Config& config, const Program& program, uint64_t min_kernels = 1) {
  const QueryRun native = Run(kLayerOff, program);
  const QueryRun layer = Run(config, program);
  EXPECT_TRUE(native.ran && layer.ran);
  EXPECT_EQ(layer.results, native.results) << "the query counted the layer's work (native first)";
  EXPECT_GE(layer.summary.kernels, min_kernels) << "no kernel ran outside the queries: " << layer.summary.text;
  std::printf("[ queries ] %s: %s\n", config.name, layer.summary.text.c_str());
  return native;
}

// The query form a program uses: vkCmdBeginQuery, or vkCmdBeginQueryIndexedEXT with index 0.
struct QueryCommands {
  PFN_vkCmdBeginQueryIndexedEXT begin_indexed = nullptr;
  PFN_vkCmdEndQueryIndexedEXT end_indexed = nullptr;
  QueryCommands(VkDevice device, bool indexed) {
    if (!indexed) return;
    begin_indexed = reinterpret_cast<PFN_vkCmdBeginQueryIndexedEXT>(
        vkGetDeviceProcAddr(device, "vkCmdBeginQueryIndexedEXT"));
    end_indexed = reinterpret_cast<PFN_vkCmdEndQueryIndexedEXT>(vkGetDeviceProcAddr(device, "vkCmdEndQueryIndexedEXT"));
    EXPECT_NE(begin_indexed, nullptr);
  }
  void Begin(VkCommandBuffer cb, VkQueryPool pool, uint32_t query) const {
    if (begin_indexed != nullptr) return begin_indexed(cb, pool, query, 0, 0);
    vkCmdBeginQuery(cb, pool, query, 0);
  }
  void End(VkCommandBuffer cb, VkQueryPool pool, uint32_t query) const {
    if (end_indexed != nullptr) return end_indexed(cb, pool, query, 0);
    vkCmdEndQuery(cb, pool, query);
  }
};

class TransferQueries : public ::testing::TestWithParam<Config> {};

// Kernels before and after the query; inside it the application's two dispatches and every
// kind of transfer.
Program AroundTransfers(bool indexed) {
  Program p;
  p.indexed = indexed;
  p.record = [indexed](Rig& rig, VkCommandBuffer cb, VkQueryPool pool, const AppDispatch& app, Transfers& t) {
    const QueryCommands q(rig.h().device(), indexed);
    t.Copy(cb, 0, 2 * kMiB);  // a kernel before the query
    q.Begin(cb, pool, 0);
    app.Record(cb);
    t.All(cb, 2 * kMiB);
    ComputeAndTransferBarrier(cb);
    app.Record(cb);
    q.End(cb, pool, 0);
    t.Copy(cb, 12 * kMiB, 2 * kMiB);  // and after it
  };
  return p;
}

TEST_P(TransferQueries, PrimaryPipelineStatistics) {
  const QueryRun native = ExpectSameResults(GetParam(), AroundTransfers(false), 2);
  // The query saw the application's two dispatches, and only them.
  ASSERT_EQ(native.results.size(), kStatisticCount);
  EXPECT_EQ(native.results[kComputeStatistic], 2u * kElements);
}

TEST_P(TransferQueries, PrimaryIndexedPipelineStatistics) {
  if (!DriverOffers(VK_EXT_TRANSFORM_FEEDBACK_EXTENSION_NAME)) GTEST_SKIP() << "no vkCmdBeginQueryIndexedEXT";
  ExpectSameResults(GetParam(), AroundTransfers(true), 2);
}

// Small writes queued before the begin are flushed before the query starts (by a dispatch:
// the query does not count it); inside the query nothing is queued; after its end a batch is
// queued and flushed by a dispatch again.
TEST_P(TransferQueries, SmallWritesAroundAQuery) {
  Program p;
  p.record = [](Rig&, VkCommandBuffer cb, VkQueryPool pool, const AppDispatch& app, Transfers& t) {
    t.SmallWrites(cb, 64, 8);
    vkCmdBeginQuery(cb, pool, 0, 0);
    app.Record(cb);
    t.SmallWrites(cb, kMiB, 8);
    ComputeAndTransferBarrier(cb);  // a flush point inside the query
    t.SmallWrites(cb, 2 * kMiB, 8);
    vkCmdEndQuery(cb, pool, 0);
    t.SmallWrites(cb, 3 * kMiB, 8);
    TransferToTransferBarrier(cb);
  };
  // One dispatch before the begin, one after the end.
  ExpectSameResults(GetParam(), p, 2);
}

// A secondary inheriting the statistics runs inside the primary's query: nothing in it is a
// kernel (its copy, its unaligned fill, the flush of its small writes at its end); a
// secondary without them (outside the query) takes kernels; a secondary beginning a query
// of its own keeps kernels out of that query only.
TEST_P(TransferQueries, SecondaryInheritingStatistics) {
  Program p;
  p.inherited = true;
  p.queries = 2;
  p.record = [](Rig& rig, VkCommandBuffer cb, VkQueryPool pool, const AppDispatch& app, Transfers& t) {
    auto secondary = [&](VkQueryPipelineStatisticFlags inherited, auto&& body) {
      VkCommandBuffer s = rig.Allocate(VK_COMMAND_BUFFER_LEVEL_SECONDARY);
      VkCommandBufferInheritanceInfo inheritance{VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO};
      inheritance.pipelineStatistics = inherited;
      VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
      begin.pInheritanceInfo = &inheritance;
      EXPECT_EQ(vkBeginCommandBuffer(s, &begin), VK_SUCCESS);
      body(s);
      EXPECT_EQ(vkEndCommandBuffer(s), VK_SUCCESS);
      return s;
    };
    const VkCommandBuffer inside = secondary(kStatistics, [&](VkCommandBuffer s) {
      app.Record(s);
      t.All(s, 0);
      ComputeAndTransferBarrier(s);
      t.SmallWrites(s, 6 * kMiB, 8);  // still queued at its end where it could be
    });
    const VkCommandBuffer beside = secondary(0, [&](VkCommandBuffer s) { t.Copy(s, 8 * kMiB, 2 * kMiB); });
    const VkCommandBuffer own = secondary(0, [&](VkCommandBuffer s) {
      vkCmdBeginQuery(s, pool, 1, 0);
      app.Record(s);
      t.Copy(s, 10 * kMiB, 2 * kMiB);
      vkCmdEndQuery(s, pool, 1);
      t.Copy(s, 12 * kMiB, 2 * kMiB);  // a kernel again
    });
    vkCmdBeginQuery(cb, pool, 0, 0);
    vkCmdExecuteCommands(cb, 1, &inside);
    vkCmdEndQuery(cb, pool, 0);
    ComputeAndTransferBarrier(cb);
    const VkCommandBuffer rest[2] = {beside, own};
    vkCmdExecuteCommands(cb, 2, rest);
  };
  ExpectSameResults(GetParam(), p, 2);
}

// Queries a dispatch cannot change keep the kernels: the same results, and the copy inside
// each ran as a kernel (one per query, nothing outside them).
TEST_P(TransferQueries, QueriesThatCannotSeeADispatch) {
  struct Case {
    const char* name;
    VkQueryType type;
    VkQueryPipelineStatisticFlags statistics;
    uint32_t values;
  };
  const Case cases[] = {
      {"occlusion", VK_QUERY_TYPE_OCCLUSION, 0, 1},
      {"graphics statistics", VK_QUERY_TYPE_PIPELINE_STATISTICS, kStatistics & ~VK_QUERY_PIPELINE_STATISTIC_COMPUTE_SHADER_INVOCATIONS_BIT,
       kStatisticCount - 1},
      {"primitives generated", VK_QUERY_TYPE_PRIMITIVES_GENERATED_EXT, 0, 1},
  };
  if (!DriverOffers(VK_EXT_TRANSFORM_FEEDBACK_EXTENSION_NAME)) GTEST_SKIP() << "no VK_EXT_transform_feedback";
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    if (c.type == VK_QUERY_TYPE_PRIMITIVES_GENERATED_EXT && !DriverOffers(VK_EXT_PRIMITIVES_GENERATED_QUERY_EXTENSION_NAME)) {
      std::printf("[ queries ] no VK_EXT_primitives_generated_query: its case is left out\n");
      continue;
    }
    Program p;
    p.indexed = true;
    p.type = c.type;
    p.statistics = c.statistics;
    p.values_per_query = c.values;
    p.record = [&c](Rig& rig, VkCommandBuffer cb, VkQueryPool pool, const AppDispatch& app, Transfers& t) {
      const QueryCommands q(rig.h().device(), c.type == VK_QUERY_TYPE_PRIMITIVES_GENERATED_EXT);
      q.Begin(cb, pool, 0);
      app.Record(cb);
      t.Copy(cb, 0, 2 * kMiB);
      q.End(cb, pool, 0);
    };
    ExpectSameResults(GetParam(), p, 1);
  }
}

INSTANTIATE_TEST_SUITE_P(Transfer, TransferQueries, ::testing::Values(kForceCompute, kAutoNvidiaPolicy), ConfigName);

// VK_KHR_performance_query: any counter may see a dispatch. Where the device has the
// extension (not lavapipe), a copy inside such a query stays native while one outside it is
// a kernel: the counters are timings, so the summary's kernel count is the check.
TEST(TransferPerformanceQuery, CopyInsideIsNative) {
  VkHarness probe({.bindery = false, .validation = false});
  ASSERT_TRUE(probe.ok()) << probe.error();
  uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(probe.physical_device(), nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> extensions(count);
  vkEnumerateDeviceExtensionProperties(probe.physical_device(), nullptr, &count, extensions.data());
  bool offered = false;
  for (const auto& e : extensions) offered |= std::strcmp(e.extensionName, VK_KHR_PERFORMANCE_QUERY_EXTENSION_NAME) == 0;
  if (!offered) GTEST_SKIP() << "the device has no VK_KHR_performance_query (lavapipe 22.3)";
  VkPhysicalDevicePerformanceQueryFeaturesKHR supported{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PERFORMANCE_QUERY_FEATURES_KHR};
  VkPhysicalDeviceFeatures2 features2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &supported};
  vkGetPhysicalDeviceFeatures2(probe.physical_device(), &features2);
  if (!supported.performanceCounterQueryPools) GTEST_SKIP() << "no performanceCounterQueryPools";

  VkPhysicalDevicePerformanceQueryFeaturesKHR performance{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PERFORMANCE_QUERY_FEATURES_KHR};
  performance.performanceCounterQueryPools = VK_TRUE;
  RigOptions options;
  options.device_extensions = {VK_KHR_PERFORMANCE_QUERY_EXTENSION_NAME};
  options.device_pnext = &performance;
  Rig rig(kForceCompute, options);
  ASSERT_TRUE(rig.ok()) << rig.error();
  VkHarness& h = rig.h();
  auto enumerate = reinterpret_cast<PFN_vkEnumeratePhysicalDeviceQueueFamilyPerformanceQueryCountersKHR>(
      vkGetInstanceProcAddr(h.instance(), "vkEnumeratePhysicalDeviceQueueFamilyPerformanceQueryCountersKHR"));
  auto passes = reinterpret_cast<PFN_vkGetPhysicalDeviceQueueFamilyPerformanceQueryPassesKHR>(
      vkGetInstanceProcAddr(h.instance(), "vkGetPhysicalDeviceQueueFamilyPerformanceQueryPassesKHR"));
  auto acquire = reinterpret_cast<PFN_vkAcquireProfilingLockKHR>(vkGetDeviceProcAddr(h.device(), "vkAcquireProfilingLockKHR"));
  auto release = reinterpret_cast<PFN_vkReleaseProfilingLockKHR>(vkGetDeviceProcAddr(h.device(), "vkReleaseProfilingLockKHR"));
  ASSERT_TRUE(enumerate != nullptr && passes != nullptr && acquire != nullptr && release != nullptr);
  uint32_t counters = 0;
  enumerate(h.physical_device(), h.queue_family(), &counters, nullptr, nullptr);
  std::vector<VkPerformanceCounterKHR> list(counters, {VK_STRUCTURE_TYPE_PERFORMANCE_COUNTER_KHR});
  std::vector<VkPerformanceCounterDescriptionKHR> descriptions(counters,
                                                               {VK_STRUCTURE_TYPE_PERFORMANCE_COUNTER_DESCRIPTION_KHR});
  enumerate(h.physical_device(), h.queue_family(), &counters, list.data(), descriptions.data());
  // A command buffer-scoped counter's query must span the whole command buffer: the copy
  // after the query needs another scope.
  uint32_t chosen = UINT32_MAX;
  for (uint32_t i = 0; i < counters && chosen == UINT32_MAX; ++i) {
    if (list[i].scope != VK_PERFORMANCE_COUNTER_SCOPE_COMMAND_BUFFER_KHR) chosen = i;
  }
  if (chosen == UINT32_MAX) GTEST_SKIP() << "no performance counter of command or render-pass scope";
  VkQueryPoolPerformanceCreateInfoKHR perf{VK_STRUCTURE_TYPE_QUERY_POOL_PERFORMANCE_CREATE_INFO_KHR};
  perf.queueFamilyIndex = h.queue_family();
  perf.counterIndexCount = 1;
  perf.pCounterIndices = &chosen;
  uint32_t pass_count = 0;
  passes(h.physical_device(), &perf, &pass_count);
  if (pass_count != 1) GTEST_SKIP() << "the first counter needs " << pass_count << " passes";
  VkAcquireProfilingLockInfoKHR lock{VK_STRUCTURE_TYPE_ACQUIRE_PROFILING_LOCK_INFO_KHR};
  lock.timeout = UINT64_MAX;
  if (acquire(h.device(), &lock) != VK_SUCCESS) GTEST_SKIP() << "the profiling lock was refused (profiling restricted?)";

  VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  info.pNext = &perf;
  info.queryType = VK_QUERY_TYPE_PERFORMANCE_QUERY_KHR;
  info.queryCount = 1;
  VkQueryPool pool = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateQueryPool(h.device(), &info, nullptr, &pool), VK_SUCCESS);
  auto [src, dst, source, model] = rig.Copy(4 * kMiB, 5);
  VkCommandBuffer reset = h.BeginCommands();
  vkCmdResetQueryPool(reset, pool, 0, 1);
  ASSERT_EQ(h.SubmitAndWait(reset), VK_SUCCESS);
  VkCommandBuffer cb = rig.Allocate();
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  ASSERT_EQ(vkBeginCommandBuffer(cb, &begin), VK_SUCCESS);
  Transfers t(src.buffer, dst.buffer, source, model, true);
  vkCmdBeginQuery(cb, pool, 0, 0);
  t.Copy(cb, 0, 2 * kMiB);
  vkCmdEndQuery(cb, pool, 0);
  t.Copy(cb, 2 * kMiB, 2 * kMiB);
  rig.HostReadBarrier(cb);
  ASSERT_EQ(vkEndCommandBuffer(cb), VK_SUCCESS);
  VkPerformanceQuerySubmitInfoKHR pass{VK_STRUCTURE_TYPE_PERFORMANCE_QUERY_SUBMIT_INFO_KHR};
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.pNext = &pass;
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cb;
  ASSERT_EQ(vkQueueSubmit(h.queue(), 1, &si, VK_NULL_HANDLE), VK_SUCCESS);
  ASSERT_EQ(vkQueueWaitIdle(h.queue()), VK_SUCCESS);
  EXPECT_TRUE(SameBytes(dst.mapped, model.data(), 4 * kMiB));
  release(h.device());
  vkDestroyQueryPool(h.device(), pool, nullptr);
  EXPECT_VALIDATION_SILENT(h);
  const Summary summary = rig.Finish();
  EXPECT_EQ(summary.kernels, 1u) << "the copy inside the performance query was a kernel: " << summary.text;
}

}  // namespace
}  // namespace bindery::test::transfer
