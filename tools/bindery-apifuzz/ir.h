// The program IR of the API fuzzer: a random valid Vulkan program as plain data. The
// generator builds it from a seed, the interpreter runs it on a device, the reducer drops
// parts of it, the printer shows it as Vulkan calls plus GLSL, and ir_text.cpp writes and
// reads it (regression cases, and the programs the reducer hands to child processes).
//
// Determinism without intra-dispatch races: every buffer has a role. Shaders only read
// kIn buffers (and uniform buffers), only store into kOut buffers (every invocation stores
// the same value to the same place, computed from inputs only), and only apply atomics
// to kCounter buffers (compute only, where the invocation count is exact). Transfers may
// move data between any of them between actions, each action is followed by a full
// barrier, and each draw has its own rendering instance.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bindery::apifuzz {

enum class Role : uint32_t { kIn = 0, kOut = 1, kCounter = 2 };
enum class DescType : uint32_t {
  kStorage = 0, kUniform = 1, kStorageDynamic = 2, kUniformDynamic = 3,
  // Images (R32_UINT, kTexSize x kTexSize, GENERAL layout): read with texelFetch (sampled,
  // combined with a sampler) or imageLoad/imageStore (storage: role kIn or kOut).
  kSampledImage = 4, kStorageImage = 5, kCombinedImageSampler = 6,
};
inline bool IsDynamic(DescType t) { return t == DescType::kStorageDynamic || t == DescType::kUniformDynamic; }
inline bool IsUniform(DescType t) { return t == DescType::kUniform || t == DescType::kUniformDynamic; }
inline bool IsImage(DescType t) {
  return t == DescType::kSampledImage || t == DescType::kStorageImage || t == DescType::kCombinedImageSampler;
}

// Stage bits, as VkShaderStageFlagBits.
constexpr uint32_t kVertex = 0x1, kFragment = 0x10, kCompute = 0x20;

// External memory (issue 30 part 8): a buffer created with VkExternalMemoryBufferCreateInfo
// (OPAQUE_FD) on memory allocated for export, or on memory imported from an fd exported by
// another allocation (which is freed after the import).
enum class External : uint32_t { kNone = 0, kExported = 1, kImported = 2 };

struct Buffer {
  uint32_t size = 0;  // bytes, a multiple of 4
  Role role = Role::kIn;
  External external = External::kNone;
};

struct Binding {
  uint32_t binding = 0;
  DescType type = DescType::kStorage;
  uint32_t count = 1;  // descriptor array size
  Role role = Role::kIn;  // which buffers (images) its descriptors point at (uniform, sampled: kIn)
  uint32_t stages = 0;
  // Its descriptors may be null (robustness2 nullDescriptor): the shaders' accesses stay
  // defined when the buffer has no length (index modulo max(length, 1)).
  bool nullable = false;
  // VkDescriptorBindingFlags (descriptor indexing): kUpdateAfterBind, kPartiallyBound,
  // kVariableCount (the layout's last binding; `count` is its maximum, each set's count is
  // given at allocation).
  uint32_t flags = 0;
};

// Binding flags, as VkDescriptorBindingFlagBits.
constexpr uint32_t kUpdateAfterBind = 0x1, kPartiallyBound = 0x4, kVariableCount = 0x8;

struct SetLayout {
  bool push = false;  // VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR
  // VK_DESCRIPTOR_SET_LAYOUT_CREATE_UPDATE_AFTER_BIND_POOL_BIT (with any kUpdateAfterBind
  // binding, and sometimes without one): no dynamic bindings, sets from update-after-bind pools.
  bool update_after_bind = false;
  std::vector<Binding> bindings;
};

struct PushRange {
  uint32_t stages = 0, offset = 0, size = 0;
};

struct PipelineLayout {
  std::vector<uint32_t> sets;  // set layout index per set number
  std::vector<PushRange> push;
};

enum class OpKind : uint32_t {
  kRead = 0,    // acc += binding[element].d[index % length]
  kWrite = 1,   // binding[element].d[index % length] = acc        (kOut bindings)
  kAtomic = 2,  // atomicAdd(binding[element].d[index % length], value) (kCounter, compute)
  kLength = 3,  // acc += binding[element].d.length()
  kPush = 4,    // acc += push-constant word at byte offset `index`
  // Packed data moved by bits (Features::packed_copies), as ggml copies quantized blocks:
  // 16 float16 (value 0) or uint8 (value 1) elements of the storage buffer the preceding
  // kRead op of the stage names (a kIn storage binding: the source) go to this kOut binding,
  // through 16/8-bit views of the two buffers: binding[element].h[(index + k) % length] =
  // source.h[(index * 3 + k) % length], k < 16. No arithmetic touches them: NaN patterns of the
  // input's random words must arrive unchanged. Skipped without such a preceding read.
  kCopyPacked = 5,
};

struct ShaderOp {
  OpKind kind = OpKind::kRead;
  uint32_t set = 0, binding = 0, element = 0, index = 0, value = 0;
  bool dynamic_element = false;  // element chosen through a runtime value (descriptor array indexing)
  bool nonuniform = false;       // that index wrapped in nonuniformEXT (descriptor indexing)
};

// Stage::module: the stage has a SPIR-V module of its own.
constexpr uint32_t kOwnModule = UINT32_MAX;

struct Stage {
  uint32_t stage = kCompute;
  std::vector<ShaderOp> ops;
  // Another value: the stage is one entry point of a module shared by every stage (of any
  // pipeline) with the same value — their GLSL compiled apart and linked into one module,
  // each keeping its own push-constant block (the interpreter names the entry points:
  // "main" for the first of each stage kind, "e<N>" for the next ones).
  uint32_t module = kOwnModule;
};

// How a graphics pipeline is created (VK_EXT_graphics_pipeline_library, where offered).
enum class LibraryMode : uint32_t {
  kMonolithic = 0,
  // Four libraries (vertex input, pre-rasterization, fragment shader, fragment output) made
  // with the pipeline's layout, linked without link-time optimisation.
  kLinked = 1,
  // The same, the libraries retaining link-time information, linked with it.
  kLinkTimeOptimised = 2,
  // The shader libraries' layouts hold only the sets their stage may use (independent sets,
  // VK_NULL_HANDLE for the others), linked with link-time optimisation through the
  // pipeline's layout (compatible with their union but for the independent-sets flag).
  kIndependentSets = 3,
  // Three libraries; the linking pipeline gives the fragment shader state itself.
  kFragmentInPipeline = 4,
  kCount
};

struct Pipeline {
  uint32_t layout = 0;
  bool graphics = false;
  uint32_t local_size = 1;     // compute: local_size_x
  bool dispatch_base = false;  // created with VK_PIPELINE_CREATE_DISPATCH_BASE_BIT
  std::vector<Stage> stages;   // compute: one; graphics: vertex, fragment
  LibraryMode library = LibraryMode::kMonolithic;  // graphics only
};

struct Pool {
  uint32_t max_sets = 1;
  bool free_bit = false;  // VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT
  bool update_after_bind = false;  // VK_DESCRIPTOR_POOL_CREATE_UPDATE_AFTER_BIND_BIT
};

// One descriptor: a buffer range (range 0 = VK_WHOLE_SIZE); for an image type, `buffer` is
// the image and `offset` the sampler (combined image sampler). kNullDesc in `buffer`: a
// null descriptor (VK_NULL_HANDLE buffer or view; offset 0, whole size).
constexpr uint32_t kNullDesc = UINT32_MAX;
struct Desc {
  uint32_t buffer = 0, offset = 0, range = 0;
};

enum class CmdKind : uint32_t {
  kBindPipeline, kBindSets, kPushConstants, kPushDescriptors,
  kDispatch, kDispatchBase, kDispatchIndirect,
  kDraw, kDrawIndexed, kDrawIndirect, kDrawIndexedIndirect, kDrawIndirectCount, kDrawIndexedIndirectCount,
  kDrawMulti, kDrawMultiIndexed,
  kFill, kUpdate, kCopy,
  // The commands up to the next kEndSecondary are recorded into a secondary command buffer
  // (which inherits no bound state) and executed from the primary, whose bound state is
  // undefined afterwards. `graphics`: a render-pass secondary (RENDER_PASS_CONTINUE, one draw,
  // executed inside a render pass instance begun with secondary contents).
  kBeginSecondary, kEndSecondary,
  // A pipeline-statistics query around commands of a primary: `first` names the query (one
  // pool of one query each), `stages` its VkQueryPipelineStatisticFlags (kBeginQuery; a
  // kEndQuery names the same `first`). A kBeginSecondary's `stages`: the statistics it
  // inherits (VkCommandBufferInheritanceInfo::pipelineStatistics), 0 for none.
  kBeginQuery, kEndQuery,
  // Image transfers between Program::transfer_images and buffers (--image-transfers): `values`
  // holds the regions (ImageRegionWords words each, see below), `binding` the destination
  // (a buffer for kImageToBuffer, else an image), `src` the source (a buffer for
  // kBufferToImage, else an image); `use_template`: the command's 2 form; kBlitImage: `size`
  // the filter (0 nearest, 1 linear); kClearImage: values[0..3] the clear colour, then ranges.
  kBufferToImage, kImageToBuffer, kImageToImage, kClearImage, kBlitImage,
  kCount
};

// The commands only --image-transfers adds (the i_ stream).
inline bool IsImageTransfer(CmdKind k) { return k >= CmdKind::kBufferToImage && k <= CmdKind::kBlitImage; }

// Words per region in Cmd::values of the image transfer commands.
// kBufferToImage / kImageToBuffer: bufferOffset, bufferRowLength, bufferImageHeight, mip,
//   baseLayer, layerCount, x, y, z, width, height, depth.
// kImageToImage: src mip, src layer, layer count, src x, y, z, dst mip, dst layer, dst x, y, z,
//   width, height, depth (both images of one type).
// kClearImage (after the 4 colour words): baseMip, levelCount, baseLayer, layerCount.
// kBlitImage: src mip, src layer, layer count, src offsets[0] xyz, [1] xyz, dst mip, dst layer,
//   dst offsets[0] xyz, [1] xyz.
constexpr uint32_t kBufferImageWords = 12, kImageCopyWords = 14, kClearRangeWords = 4, kBlitWords = 17;

// A command of a command buffer; which fields matter depends on the kind (the printer and
// the interpreter are the reference).
struct Cmd {
  CmdKind kind = CmdKind::kDispatch;
  bool graphics = false;       // bind point of binds and pushes
  uint32_t pipeline = 0;       // kBindPipeline; the bound pipeline's index for actions (printing)
  uint32_t layout = 0;         // binds, pushes
  uint32_t first = 0;          // first set / push offset / fill-update-copy dst offset
  uint32_t stages = 0;         // push constants; queries and secondaries: pipeline statistics
  uint32_t binding = 0;        // push descriptors: binding; fill/update/copy: dst buffer
  bool use_template = false;   // push descriptors through a template
  std::vector<uint32_t> sets;  // kBindSets: set slots
  std::vector<uint32_t> values;  // dynamic offsets, push-constant words, update words, draw/dispatch params
  std::vector<Desc> descs;     // push descriptors
  uint32_t src = 0, src_offset = 0, size = 0;  // copy source; fill/copy size (0 = VK_WHOLE_SIZE for fill)
};

struct Semaphore {};

struct Wait {
  uint32_t semaphore = 0;
  uint64_t value = 0;
};

enum class StepKind : uint32_t {
  kAlloc, kFree, kResetPool, kWrite, kCopySet, kSubmit, kHostSignal, kWaitIdle, kCount
};

// A host-side step, executed in order.
struct Step {
  StepKind kind = StepKind::kSubmit;
  uint32_t pool = 0, layout = 0, slot = 0;  // kAlloc: pool, set layout, slot; kFree: slot; kResetPool: pool
  // kWrite / kCopySet right after a kSubmit (update-after-bind bindings only): made after that
  // submission's command buffer was recorded and before it is submitted. A late step whose
  // submission is gone runs where it stands.
  bool late = false;
  uint32_t binding = 0, element = 0;        // kWrite / kCopySet: destination
  bool use_template = false;                // kWrite through vkUpdateDescriptorSetWithTemplate
  std::vector<Desc> descs;                  // kWrite
  // kCopySet: source and count; kAlloc: the variable-count binding's count (its layout has one)
  uint32_t src_slot = 0, src_binding = 0, src_element = 0, count = 0;
  std::vector<Cmd> cmds;                    // kSubmit
  std::vector<Wait> waits, signals;         // kSubmit; kHostSignal: signals[0]
  uint32_t queue = 0;                       // kSubmit: the program's queue it goes to
};

struct Features {
  bool push_descriptor = false;
  bool null_descriptor = false;  // robustness2 nullDescriptor
  bool images = false;           // R32_UINT optimal tiling is sampled- and storage-image capable
  bool multi_draw = false;
  bool draw_indirect_count = false;
  bool array_dynamic_indexing = false;
  uint32_t storage_alignment = 256, uniform_alignment = 256;
  uint32_t max_push_constants = 128;
  uint32_t max_storage_images = 4, max_sampled_images = 16;  // per stage
  // Descriptor indexing (Vulkan 1.2): binding flags, and nonuniformEXT indexing per type.
  bool partially_bound = false, variable_count = false;
  // Whether an image binding may keep never-written descriptors (partially bound, past a
  // variable count): not under the lavapipe stand-in (lavapipe 22.3 reads every image
  // descriptor of a bound set and crashes on a never-written one).
  bool unwritten_images = false;
  bool uab_storage = false, uab_uniform = false, uab_sampled = false, uab_storage_image = false;
  bool nonuniform_storage = false, nonuniform_uniform = false, nonuniform_sampled = false,
       nonuniform_storage_image = false;
  // Queues of the device's graphics+compute families the programs may use (at most 3), and
  // whether they share one driver queue (the test layer's stand-in on lavapipe): a driver
  // queue runs its submissions in order, so there a submission never waits for one that a
  // later submission on another queue signals (that would deadlock the driver queue).
  uint32_t queues = 1;
  bool shared_queues = false;
  // NVIDIA's driver (580.159.04, H100) loses the device when a compute shader uses a
  // dynamic storage buffer of a set whose earlier dynamic binding is not visible to compute
  // (docs/apifuzz.md): there dynamic bindings are made visible to every stage.
  bool dynamic_all_stages = false;
  // lavapipe (Mesa 22.3) writes a push-descriptor set pushed at COMPUTE into the graphics
  // stages too, numbering its descriptors through the *pushing* layout's earlier sets: where
  // those hold fewer descriptors than the graphics pipeline's layout, the push lands on a
  // lower graphics set number than its own (docs/apifuzz.md). There a compute push whose set
  // layout names a graphics stage takes away every set the graphics bind point holds. It
  // counts the earlier sets twice there: a FRAGMENT index past its array spills into COMPUTE's
  // (seed 75264), so such a compute push is not made (ComputePushSpillsIntoCompute).
  bool compute_push_reaches_graphics_sets = false;
  // OPAQUE_FD external memory for the programs' buffers (their usage), exported and imported
  // (VK_KHR_external_memory_fd): buffers may be on external memory.
  bool external_memory = false;
  // Pipeline-statistics queries around commands (pipelineStatisticsQuery), and secondaries
  // executed inside one (inheritedQueries; on lavapipe through a stand-in layer).
  bool pipeline_statistics = false;
  bool inherited_queries = false;
  // lavapipe (Mesa 22.3) sends the bound state down at vkCmdBeginQuery of a
  // pipeline-statistics query and crashes where pushed constants or descriptors are waiting
  // for a pipeline not bound yet (docs/apifuzz.md): there a query begins its command buffer.
  bool query_begins_first = false;
  // VK_EXT_graphics_pipeline_library (graphicsPipelineLibrary): graphics pipelines may be
  // linked from libraries (Pipeline::library).
  bool pipeline_library = false;
  // NVIDIA's driver (580.159.04, H100) dies natively, no layer loaded, on library chains
  // whose fragment shader is a library of its own (a general protection fault inside
  // libnvidia-eglcore: BindingsPipelineLibraries skips those shapes there; 21 of the 26
  // native crashes of seeds 1..74 on 2026-12-07 were such chains). Where set, the generator
  // keeps only kFragmentInPipeline (the other modes it draws become monolithic, the draws
  // unchanged, so every other seed's program stays what it was).
  bool fragment_library_crashes = false;
  // Stages may share a module of several entry points (Stage::module). Not a device feature
  // (every device takes such modules): the generator's switch, on for every device it
  // opens, off where a features file written before it lacks the line, so that such a
  // file's programs stay the ones it gave.
  bool multi_entry_modules = false;
  // Issue 30 part 8 (--push-images, BINDERY_APIFUZZ_PUSH_IMAGES=1; off by default, so a seed's
  // program is what it was): push-descriptor set layouts may hold images beside their buffers,
  // visible to the vertex stage (pre-rasterisation) and read there — zink's shape, where
  // lavapipe's lane-0 image index met converted uniform buffers. Its own stream (g_).
  bool push_images = false;
  // Issue 30 part 8 (--packed-copies, BINDERY_APIFUZZ_PACKED_COPIES=1, where the device has
  // storageBuffer16BitAccess and storageBuffer8BitAccess; off by default): compute and vertex
  // stages move float16 / uint8 data by bits (OpKind::kCopyPacked). Its own stream (k_).
  bool packed_copies = false;
  // Issue 30 (--many-sets, BINDERY_APIFUZZ_MANY_SETS=1; off by default, so a seed's program is
  // what it was): a pipeline layout with as many sets as the device binds (max_bound_sets, at
  // most 8), extending an earlier one, its sets keeping native descriptors (images) where a
  // set layout has them, and a pipeline of it. With the split root on lavapipe its root fits
  // neither push constants nor a reserved set (every bound set is the application's): the
  // ring root read through its address in push constants. Its own stream (w_).
  bool many_sets = false;
  uint32_t max_bound_sets = 4;  // the device's maxBoundDescriptorSets (4: the spec's minimum)
  // Image transfer commands (--image-transfers, from their own random stream): off unless
  // asked for, so that a seed's program is the one it was before they existed.
  bool image_transfers = false;
  bool AnyDescriptorIndexing() const {
    return partially_bound || variable_count || uab_storage || uab_uniform || uab_sampled || uab_storage_image;
  }
};

// Whether a binding of this type may carry kUpdateAfterBind on a device with `f`.
inline bool UpdateAfterBindAllowed(const Features& f, DescType t) {
  switch (t) {
    case DescType::kStorage: return f.uab_storage;
    case DescType::kUniform: return f.uab_uniform;
    case DescType::kSampledImage:
    case DescType::kCombinedImageSampler: return f.uab_sampled;
    case DescType::kStorageImage: return f.uab_storage_image;
    default: return false;  // dynamic buffers never
  }
}
// Whether shaders may index an array of this type with nonuniformEXT.
inline bool NonUniformAllowed(const Features& f, DescType t) {
  switch (t) {
    case DescType::kStorage:
    case DescType::kStorageDynamic: return f.nonuniform_storage;
    case DescType::kUniform:
    case DescType::kUniformDynamic: return f.nonuniform_uniform;
    case DescType::kSampledImage:
    case DescType::kCombinedImageSampler: return f.nonuniform_sampled;
    case DescType::kStorageImage: return f.nonuniform_storage_image;
  }
  return false;
}

struct Image {
  Role role = Role::kIn;  // kIn: read by shaders; kOut: stored to (storage image, compute/vertex)
};

// The formats of the transfer images: every texel size the layer's image kernels take (1,
// 2, 4, 8, 16 bytes), float and integer. `blit`: also blitted (BLIT_SRC / BLIT_DST and linear
// filtering are mandatory for these); `float_clear`: cleared with float colours.
struct TransferFormat {
  uint32_t format;  // VkFormat
  uint32_t texel_bytes;
  bool blit;
  bool float_clear;
};
constexpr TransferFormat kTransferFormats[] = {
    {37, 4, true, true},    // R8G8B8A8_UNORM
    {9, 1, true, true},     // R8_UNORM
    {21, 2, false, false},  // R8G8_UINT
    {98, 4, false, false},  // R32_UINT
    {97, 8, true, true},    // R16G16B16A16_SFLOAT
    {107, 16, false, false},  // R32G32B32A32_UINT
};

// An image the image transfer commands use (--image-transfers): optimal tiling, usage
// TRANSFER_SRC | TRANSFER_DST | SAMPLED (as an application makes a texture), filled from the
// seed before the program, in TRANSFER_DST_OPTIMAL between commands (a command reading one
// moves it to TRANSFER_SRC_OPTIMAL and back), read back whole after the program.
struct TransferImage {
  uint32_t format = 37;  // VkFormat (one of the generator's list)
  uint32_t type = 1;     // VkImageType
  uint32_t width = 1, height = 1, depth = 1, mips = 1, layers = 1;
};

struct Program {
  uint64_t seed = 0;
  std::vector<Buffer> buffers;
  std::vector<Image> images;  // read back after the buffers, before the color image
  std::vector<TransferImage> transfer_images;  // read back last
  uint32_t samplers = 0;      // NEAREST samplers for combined image samplers
  std::vector<SetLayout> set_layouts;
  std::vector<PipelineLayout> pipeline_layouts;
  std::vector<Pipeline> pipelines;
  std::vector<Pool> pools;
  uint32_t set_slots = 0;
  uint32_t semaphores = 0;  // timeline semaphores, initial value 0
  uint32_t queues = 1;      // queues the submissions use (Step::queue below this)
  std::vector<uint32_t> indirect;  // words of the indirect/index buffer, written by the host
  std::vector<Step> steps;
};

// "Identically defined" set layouts (the spec's compatibility rule compares definitions).
inline bool SameSetLayout(const SetLayout& a, const SetLayout& b) {
  if (a.push != b.push || a.update_after_bind != b.update_after_bind || a.bindings.size() != b.bindings.size())
    return false;
  for (size_t i = 0; i < a.bindings.size(); ++i) {
    const Binding& x = a.bindings[i];
    const Binding& y = b.bindings[i];
    if (x.binding != y.binding || x.type != y.type || x.count != y.count || x.role != y.role ||
        x.stages != y.stages || x.nullable != y.nullable || x.flags != y.flags)
      return false;
  }
  return true;
}

// The entry-point name of stage `stage` of pipeline `pipeline`: "main" in a module of its
// own; in a shared module (Stage::module) "main" for the first stage of its kind there (in
// pipeline order) and "e<N>" for the N-th after it.
inline std::string EntryPointName(const Program& p, size_t pipeline, size_t stage) {
  const Stage& me = p.pipelines[pipeline].stages[stage];
  if (me.module == kOwnModule) return "main";
  uint32_t before = 0;
  for (size_t i = 0; i <= pipeline; ++i) {
    const std::vector<Stage>& stages = p.pipelines[i].stages;
    for (size_t j = 0; j < stages.size() && (i < pipeline || j < stage); ++j)
      before += stages[j].module == me.module && stages[j].stage == me.stage ? 1 : 0;
  }
  return before == 0 ? std::string("main") : "e" + std::to_string(before);
}

inline const char* LibraryModeName(LibraryMode m) {
  switch (m) {
    case LibraryMode::kMonolithic: return "monolithic";
    case LibraryMode::kLinked: return "linked from libraries";
    case LibraryMode::kLinkTimeOptimised: return "linked from libraries, link-time optimised";
    case LibraryMode::kIndependentSets: return "linked from independent-set libraries, link-time optimised";
    case LibraryMode::kFragmentInPipeline: return "linked from libraries, fragment stage in the pipeline";
    case LibraryMode::kCount: break;
  }
  return "?";
}

// Text form: one token stream; Parse returns false (with a reason) on anything malformed.
std::string Serialize(const Program& p);
bool Parse(const std::string& text, Program* out, std::string* error);

// Bytes of the color image the graphics pipelines render to (R32_UINT).
constexpr uint32_t kImageSize = 8;
// Width and height of the images used as descriptors (R32_UINT).
constexpr uint32_t kTexSize = 4;

}  // namespace bindery::apifuzz
