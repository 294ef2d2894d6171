// The descriptor-to-pointer rewrite: the public contract of layer/spirv/ (no Vulkan
// runtime, no layer state). The indirect-bindings runtime, the `bindery-spirv` tool, the
// execution harness, the fuzzer and the benchmark all go through this header.
//
// What the rewrite does: every buffer variable named by the layout (StorageBuffer class,
// legacy Uniform + BufferBlock, and Uniform + Block when convert_uniform_buffers is set)
// stops being a descriptor. Its pointer is loaded at run time from the argument block of
// its set: an array of 16-byte records { uint64 address; uint64 size; }, one per
// descriptor (array element), at index first_record + array_index. The block's own
// address is a member of the *root* (uint64, or uvec2 without shaderInt64) at
// SetLayout::root_offset. The root lives in push constants, placed by the caller after
// the application's own (RootPlacement::kPushConstants), or in a read-only storage
// buffer at (root_buffer_set, binding 0) that the caller binds as a dynamic storage
// buffer (RootPlacement::kStorageBuffer: push-constant space is full), or in memory
// whose address alone lies in push constants (RootPlacement::kPushAddress: no set left
// for that buffer either).
//
// Failure is a value: malformed input gives `error`; anything the pass does not support
// gives report.converted == false with report.reason ("not converted: <reason>") and the
// original module, never a wrong module.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bindery::spirv {

inline constexpr uint32_t kNoRootOffset = 0xffffffffu;
// RewriteOptions::execution_model: an entry point of any execution model.
inline constexpr uint32_t kAnyExecutionModel = 0xffffffffu;

// Vulkan environment the rewritten module targets (decides the SPIR-V version rules, e.g.
// whether OpEntryPoint lists every global variable, SPIR-V >= 1.4).
enum class TargetEnv { kVulkan1_0, kVulkan1_1, kVulkan1_1Spirv1_4, kVulkan1_2, kVulkan1_3 };

// One binding of a converted set.
struct BindingLayout {
  uint32_t binding = 0;
  // Descriptors in the binding. For a runtime-sized descriptor array in the shader, the
  // number of records the block holds for it (accesses beyond it are the app's bug;
  // DefaultLayout gives kDefaultRuntimeArrayRecords unless told).
  uint32_t array_size = 1;
  // Index of the binding's first record in the set's block (records are laid out in
  // binding order, one per array element).
  uint32_t first_record = 0;
  // Dynamic buffers: byte offset in push constants of array_size uint32 dynamic offsets
  // (one per element) that are added to the record's address and subtracted from its size
  // at run time; kNoRootOffset when the binding is not dynamic.
  uint32_t dynamic_offsets_root_offset = kNoRootOffset;
};

struct SetLayout {
  uint32_t set = 0;
  // Byte offset in push constants of the address of this set's argument block
  // (8-byte aligned; uint64 with shaderInt64, else uvec2 {low, high}).
  uint32_t root_offset = 0;
  std::vector<BindingLayout> bindings;  // bindings of this set to convert
  // The set's records themselves lie in the root from root_offset (record i at
  // root_offset + 16 i, as in a block), copied there when the set is bound: the shader
  // reads each buffer's address straight from the root, as a driver reads its
  // descriptors, with no load of the argument block before its first access.
  bool records_in_root = false;
  // With records_in_root: only the set's first `root_records` records lie in the root (a
  // binding whose records all lie below it is read from there), followed at root_offset +
  // 16 root_records by the address of the set's block, where the later bindings' records
  // are read. 0: every record lies in the root (no block address).
  uint32_t root_records = 0;
  // Does `b` (a binding of this set) read its records from the root?
  bool BindingInRoot(const BindingLayout& b) const {
    return records_in_root && (root_records == 0 || b.first_record + (b.array_size == 0 ? 1 : b.array_size) <= root_records);
  }
};

enum class RootPlacement {
  kPushConstants,  // members of the module's push-constant block (a new one if it has none)
  // A new read-only buffer variable at DescriptorSet root_buffer_set, Binding 0 (the
  // StorageBuffer class from SPIR-V 1.3, Uniform + BufferBlock before; storage-buffer
  // layout, so dynamic offsets keep their 4-byte stride); the module's own push
  // constants are left as they are. Offsets in the layout are offsets in that buffer.
  kStorageBuffer,
  // The root's members in memory the caller fills (offsets in the layout are offsets
  // there), read through a PhysicalStorageBuffer pointer whose 8-byte address (uint64,
  // or uvec2 without shaderInt64) joins the module's push-constant block at
  // root_address_offset, as kPushConstants adds members: for a root too large for push
  // constants where no descriptor set is left for kStorageBuffer's.
  kPushAddress,
};

struct RewriteOptions {
  std::vector<SetLayout> sets;
  RootPlacement root_placement = RootPlacement::kPushConstants;
  uint32_t root_buffer_set = 0;  // kStorageBuffer: the root buffer's descriptor set
  uint32_t root_address_offset = 0;  // kPushAddress: the root's address in push constants (8-byte aligned)
  TargetEnv target = TargetEnv::kVulkan1_2;
  bool shader_int64 = true;            // else addresses travel as uvec2 and are bitcast
  // The device has shaderFloat16 / shaderInt16 / shaderInt8 (the application's, or the
  // layer's): a module's 16/8-bit values, which it may declare for storage only, may then
  // be merged and zeroed as they are (the capability is added to the module), where
  // otherwise a bounds-checked load widens them to 32 bits and back — which a driver may
  // not do bit for bit for a 16-bit float (a signalling NaN comes back quiet: ggml's
  // quantized blocks, copied as float16 words, changed on lavapipe and the H100).
  bool float16 = false;
  bool int16 = false;
  bool int8 = false;
  bool bounds_checks = false;          // reads out of bounds give 0, writes/atomics dropped
  bool convert_uniform_buffers = false;
  // Every converted descriptor's base address is a multiple of this (the device's
  // minStorageBufferOffsetAlignment, and minUniformBufferOffsetAlignment when uniform
  // buffers convert): loads and stores through them state the alignment the layout then
  // proves (spirv/access_alignment.h). 0: unknown, each states its scalar alignment.
  uint32_t descriptor_base_alignment = 0;
  // A converted buffer the module does not declare Aliased may be assumed to alias no
  // other (SPIR-V's default for descriptors): its pointer is kept in a Function variable
  // decorated RestrictPointer and read from there, so that a driver may assume of the
  // pointer what it assumed of the descriptor (a read-only buffer's loads on a read-only
  // path, loads moved across stores to other buffers). A pointer made by OpConvertUToPtr
  // alone may alias anything. Off: the bare pointer (for comparison; issue 32).
  bool restrict_pointers = true;
  // Bits 1 << spv::ExecutionModel: modules whose entry points are all of these models get
  // their dynamically uniform descriptor-array indices broadcast from the first active
  // lane (spirv/uniform_descriptor_index.h: a driver workaround; 0 never).
  uint32_t broadcast_descriptor_index_models = 0;
  // The entry point the rewritten module is made for (a pipeline stage names one, by name
  // and stage). SPIR-V lets each entry point of a module have a push-constant variable of
  // its own, but no entry point may statically use two
  // (VUID-StandaloneSpirv-OpEntryPoint-06674): one root cannot join every entry point's
  // block at once. Named, the other entry points (and their execution modes) are left out
  // of the result and the root joins the block that entry point uses, or a new one.
  // Empty: every entry point is kept, and a module whose entry points use different
  // push-constant variables is refused (RootPlacement::kPushConstants).
  std::string entry_point;
  uint32_t execution_model = kAnyExecutionModel;  // spv::ExecutionModel, or any
  // Bits 1 << spv::ExecutionModel where the driver takes a dynamically uniform
  // descriptor-array index from lane 0 whether or not it is an invocation (lavapipe: every
  // stage). A module with an entry point of these models that gets no broadcast (above)
  // and whose such index derives from a converted uniform buffer is refused: it runs
  // natively (spirv/uniform_descriptor_index.h). 0 never.
  uint32_t lane_zero_descriptor_index_models = 0;
};

enum class BindingOutcome {
  kConverted,
  kNotInLayout,        // the layout does not name it: left a descriptor
  kUniformBufferKept,  // a uniform buffer and convert_uniform_buffers is off
  kNotABuffer,         // image, sampler, texel buffer...: always native
};

struct BindingReport {
  uint32_t set = 0;
  uint32_t binding = 0;
  std::string name;  // OpName of the variable, if any
  BindingOutcome outcome = BindingOutcome::kConverted;
  // kConverted: the records the binding reads in its set's block and the byte offset of
  // that block's address in the root (numbers, not text: ToString words them, so a rewrite
  // builds no string per binding that nothing may read).
  uint32_t first_record = 0;
  uint32_t last_record = 0;
  uint32_t root_offset = 0;
};

struct RewriteReport {
  bool converted = false;  // false: `module` is the input, unchanged
  std::string reason;      // when !converted: "not converted: <reason>"
  // When !converted: the module names no buffer of the layout, so nothing needs converting
  // and the caller may use it as it is (a stage whose converted binding the caller saw is
  // not statically read through any buffer the pass would rewrite).
  bool no_buffer_in_layout = false;
  std::vector<BindingReport> bindings;
  // One past the last push-constant byte the rewritten module reads (its own block and,
  // in push constants, the root); the caller's pipeline layout must cover [0, this) for
  // the module's stages.
  uint32_t push_constant_end = 0;
  // RootPlacement::kStorageBuffer (kPushAddress): one past the last root byte the module
  // reads from the root buffer (through the root's address; 0 otherwise).
  uint32_t root_buffer_end = 0;
  // Descriptor-array indices broadcast (options.broadcast_descriptor_index_models).
  uint32_t broadcast_indices = 0;
  std::string ToString() const;  // human-readable, one line per binding
};

struct RewriteResult {
  std::string error;            // non-empty: the input is not a module we can read (why)
  std::vector<uint32_t> module;  // rewritten (or the unchanged input when not converted)
  RewriteReport report;
};

RewriteResult RewriteDescriptorsToPointers(const uint32_t* words, std::size_t word_count,
                                           const RewriteOptions& options);

struct Module;  // module.h

// One parse of a module for both its inspection and its rewrite: pipeline creation
// inspects a module it has not seen and then rewrites it, and both read this parse. The
// module is parsed on first need (never, where both answers are cached), into this thread's
// module storage (the rewrite's, reused from one module to the next). The rewrite edits the
// parsed form in place: an Inspect after it parses again. One ModuleParse per thread at a
// time, and no rewrite of words while one lives (they share that storage).
class ModuleParse {
 public:
  ModuleParse(const uint32_t* words, std::size_t word_count) : words_(words), word_count_(word_count) {}
  ~ModuleParse() {
    if (module_ != nullptr) Release();  // nothing to do where nothing was parsed (a cache hit)
  }
  ModuleParse(const ModuleParse&) = delete;
  ModuleParse& operator=(const ModuleParse&) = delete;
  const uint32_t* words() const { return words_; }
  std::size_t word_count() const { return word_count_; }
  // The module as parsed ("" in *error, else why it cannot be read), parsed now where needed.
  Module& Parsed(std::string* error);
  // The rewrite edited the module (the next Parsed parses again).
  void MarkEdited() { state_ = State::kEdited; }

 private:
  enum class State { kNone, kParsed, kEdited };
  const uint32_t* words_;
  std::size_t word_count_;
  State state_ = State::kNone;
  std::string error_;
  void Release();
  Module* module_ = nullptr;  // the thread's, or after the thread's teardown one of its own
  bool owned_ = false;        // module_ is this parse's own
};

// The rewrite of a parsed module (RewriteDescriptorsToPointers above parses `words` and
// calls this): the same result.
RewriteResult RewriteDescriptorsToPointers(ModuleParse& parse, const RewriteOptions& options);

// ---- inspection (the CLI's `info`, and building layouts) -----------------------------

enum class ResourceKind {
  kStorageBuffer,   // StorageBuffer class or Uniform + BufferBlock
  kUniformBuffer,   // Uniform + Block
  kPushConstants,
  kOther,           // images, samplers, texel buffers, acceleration structures...
};

struct ResourceInfo {
  uint32_t set = 0;
  uint32_t binding = 0;
  ResourceKind kind = ResourceKind::kOther;
  uint32_t array_size = 1;  // 0 for a runtime-sized descriptor array
  std::string name;
};

struct EntryPointInfo {
  std::string name;
  std::string execution_model;  // "GLCompute", "Vertex", "Fragment", ...
  std::vector<ResourceInfo> resources;  // what the entry point's call tree uses
};

struct ModuleInfo {
  std::string error;  // non-empty: could not be read
  uint32_t spirv_version = 0;  // e.g. 0x00010300
  uint32_t push_constant_bytes = 0;  // size of the module's own push-constant block(s)
  std::vector<EntryPointInfo> entry_points;
};

ModuleInfo Inspect(const uint32_t* words, std::size_t word_count);
// The same from a parse the rewrite may use next (ModuleParse).
ModuleInfo Inspect(ModuleParse& parse);

// Records DefaultLayout gives a runtime-sized descriptor array, whose length the shader
// does not state (the application's descriptor count decides it): 1024 records, 16 KiB of
// argument block. Generous on purpose: records the caller leaves zero (address 0, size 0)
// make every access through them out of bounds, so with bounds checks a shader indexing
// past what is bound reads 0 and writes nothing instead of reading past the block.
inline constexpr uint32_t kDefaultRuntimeArrayRecords = 1024;

// A layout converting every storage buffer (and uniform buffer when `ubo`) the module
// uses, sets in ascending order, roots packed from `root_offset` (8 bytes per set), the
// records of each set in binding order. A runtime-sized descriptor array gets
// `runtime_array_records` records (the first overload: kDefaultRuntimeArrayRecords);
// a caller that knows the bound descriptor count passes it.
RewriteOptions DefaultLayout(const ModuleInfo& info, uint32_t root_offset, bool ubo);
RewriteOptions DefaultLayout(const ModuleInfo& info, uint32_t root_offset, bool ubo, uint32_t runtime_array_records);

}  // namespace bindery::spirv
