// The descriptor-to-pointer pass (rewrite.h describes what it does). One object per
// rewrite: Analyze() finds the converted variables and the closure of ids whose pointer
// type changes (access chains, phis, selects, copies, function parameters and returns,
// function variables holding pointers) and refuses what it cannot retype; Apply() edits
// the module. Both report failure as a reason string, never by aborting.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "spirv/id_map.h"
#include "spirv/resources.h"
#include "spirv/rewrite.h"
#include "spirv/type_manager.h"
#include "spirv/use_kinds.h"

namespace bindery::spirv {

class PointerPass {
 public:
  // The per-rewrite tables take their storage from the thread's pool and give it back, so
  // one rewrite after another on a thread allocates them once (pointer_pass_analyze.cpp).
  PointerPass(Module& module, const RewriteOptions& options);
  ~PointerPass();
  PointerPass(const PointerPass&) = delete;
  PointerPass& operator=(const PointerPass&) = delete;

  // "" when the module can be rewritten; else the reason it cannot.
  std::string Analyze(RewriteReport* report);
  std::string Apply(RewriteReport* report);

 private:
  struct Converted {
    VariableInfo var;
    const SetLayout* set = nullptr;
    const BindingLayout* binding = nullptr;
    uint32_t psb_block_pointer = 0;  // ptr<PhysicalStorageBuffer, pointee_block>
    bool needs_size = false;
    uint32_t memory_flags = 0;       // kCoherent... decorations of the variable itself
    // The struct its pointer points to: the block, or a copy of it when converted buffers
    // sharing the block differ in the member decorations they need (pointer_pass_memory.cpp).
    uint32_t pointee_block = 0;
  };
  // Decorations of a converted variable that must stay in effect once it is a pointer.
  static constexpr uint32_t kCoherent = 1, kVolatile = 2, kNonWritable = 4, kNonReadable = 8;
  // A pointer whose buffer is known: where its size lives (for OpArrayLength and checks).
  struct Root {
    uint32_t converted = 0;   // index into converted_
    uint32_t size = 0;        // id of the size value (offset type), 0 if not loaded
  };
  struct Use { uint32_t function; uint32_t index; uint32_t operand; };

  // Analysis.
  std::string FindConverted(RewriteReport* report);
  void FindInLayout(const VariableInfo& v, const SetLayout** set, const BindingLayout** binding) const;
  std::string CheckConvertible(const VariableInfo& v, const SetLayout& set, const BindingLayout& binding) const;
  void AddConverted(const VariableInfo& v, const SetLayout* set, const BindingLayout* binding);
  std::string CheckConvertedBlocksNotShared() const;
  void BuildUses();
  std::string Close();
  // Close's steps (pointer_pass_analyze.cpp): the retyped ids found from the converted
  // variables through their uses, then the checks that each merge, call and return of
  // them is retyped whole and that no global instruction names a converted variable.
  std::string PropagateRetyped();
  std::string RetypeUser(uint32_t id, bool is_var, bool arrayed, const Use& u, std::vector<uint32_t>* work);
  void MarkParameterRetyped(uint32_t callee, uint32_t position, std::vector<uint32_t>* work);
  void MarkCallsRetyped(uint32_t function_id, std::vector<uint32_t>* work);
  bool RetypedOrUndef(uint32_t v) const;
  std::string CheckMergesAreAllRetyped() const;
  std::string CheckCallsAndReturnsAreAllRetyped() const;
  std::string CheckNoGlobalNamesConverted() const;
  bool MarkRetyped(uint32_t id, std::vector<uint32_t>* work);
  uint32_t MappedType(uint32_t old_type);
  const Instruction* LocalDef(uint32_t id) const;
  // The alignment an access through `pointer` (an input id) is known to have from the
  // descriptor base alignment and the layout; 0 if unknown (pointer_pass_alignment.cpp).
  uint32_t DescriptorAccessAlignment(uint32_t pointer) const;
  // Lookups in the tables Analyze sized at the module's bound then: ids the rewrite takes
  // later (and words of malformed input) are past them, so every index is checked here.
  bool Retyped(uint32_t id) const { return id < retyped_.size() && retyped_[id] != 0; }
  int32_t ConvertedOf(uint32_t id) const { return id < converted_of_var_.size() ? converted_of_var_[id] : -1; }

  // Rewrite.
  void SetUpTypes();
  void SetUpPushConstants(RewriteReport* report);
  std::string ChoosePushConstantVariable(const VariableInfo** chosen) const;
  // A member of the root (a set's block address or a binding's dynamic offsets): its
  // byte offset, type, where its member index goes, and its debug name.
  struct RootMember {
    uint32_t offset;
    uint32_t type;
    uint32_t* index;
    // Its debug name, `name_prefix` then `name_number` in decimal (written into the
    // OpMemberName by AddName, so no string is built per member).
    const char* name_prefix;
    uint32_t name_number;
    void AddName(Instruction* member_name) const {
      char name[64];
      const int n = std::snprintf(name, sizeof name, "%s%u", name_prefix, name_number);
      member_name->add_string_operand(std::string_view(name, n > 0 ? static_cast<std::size_t>(n) : 0));
    }
  };
  // SetUpPushConstants' steps (pointer_pass_apply.cpp): the root's members collected, then
  // joined to the push-constant block (the old block's members first, the block declared
  // again, its variable retyped or made) with the pointer types root reads go through.
  void CollectRootMembers(std::vector<RootMember>* members);
  void AddRootMembersOfSet(uint32_t s, std::vector<RootMember>* members);
  void JoinPushConstants(const std::vector<RootMember>& members, RewriteReport* report);
  bool TakeOldPushConstantMembers(const VariableInfo& pc, std::vector<uint32_t>* member_types,
                                  std::vector<Instruction>* member_decorations, uint32_t* end, RewriteReport* report);
  void CreatePushConstantBlock(const std::vector<RootMember>& members, const std::vector<uint32_t>& member_types,
                               const std::vector<uint32_t>& offsets, const std::vector<Instruction>& member_decorations);
  void RetypePushConstantVariable(const VariableInfo& pc, uint32_t pointer);
  void CreatePushConstantVariable(uint32_t pointer);
  void SetUpRootPointerTypes();
  // RootPlacement::kStorageBuffer: the root buffer from `members` (offset order).
  void SetUpRootBuffer(const std::vector<RootMember>& members, RewriteReport* report);
  // RootPlacement::kPushAddress: the root block its address points to (false: refused, why in report).
  bool SetUpRootStruct(const std::vector<RootMember>& members, RewriteReport* report);
  // Both: the members as a read-only block struct of their own (0: they overlap, why in report).
  uint32_t CreateRootBlock(const std::vector<RootMember>& members, spv::Decoration block_decoration, RewriteReport* report);
  uint32_t RootBase();
  uint32_t LoadRoot(uint32_t type, uint32_t pointer, uint32_t alignment);
  // One function rewritten (pointer_pass_functions.cpp), in named steps: whether it needs
  // it (StartFunction), its prologue (root and record pointers), each block begun (a loop
  // header with a checked access split), its type and parameters retyped, then each other
  // instruction (RewriteInstruction): chains into arrayed converted variables, array
  // lengths, memory operands, bounds-checked accesses; last the phis of split blocks mended.
  std::string RewriteFunction(uint32_t f);
  bool StartFunction(uint32_t f, std::vector<uint32_t>* direct);
  std::string RewriteInstruction(const Instruction& original, Instruction&& inst, std::vector<size_t>* original_phis);
  bool FunctionNeedsRewrite(uint32_t f, std::vector<uint32_t>* direct) const;
  uint32_t PointeeOf(uint32_t old_id);
  bool IsBufferPointer(uint32_t old_id);  // a retyped pointer into a converted buffer (PhysicalStorageBuffer)
  uint32_t UndefOf(uint32_t type);
  bool Guarded(const Instruction& x);  // an access a bounds check wraps
  void EmitFunctionPrologue(const std::vector<uint32_t>& direct);
  void BeginBlock(const std::vector<Instruction>& in, uint32_t i, Instruction label);
  void SplitLoopHeader(const std::vector<Instruction>& in);
  void RetypeFunction(uint32_t f, const std::vector<Instruction>& in, uint32_t i, Instruction inst);
  bool IsArrayedConvertedChain(const Instruction& original) const;
  void RewriteArrayedChain(const Instruction& original, const Instruction& inst, uint32_t result);
  std::string RewriteArrayLength(const Instruction& original, uint32_t result);
  void RetypeParameter(Instruction inst, uint32_t result);
  void RetypeResult(uint32_t result, Instruction* inst);
  std::string AddMemoryOperands(const Instruction& original, Instruction* inst, uint32_t guard_pointer[2],
                                uint32_t guard_bytes[2]);
  std::string AlignCopyOperandSets(Instruction* inst, uint32_t first, uint32_t at);
  std::string EmitGuardedAccess(Instruction inst, uint32_t result, const uint32_t guard_pointer[2],
                                const uint32_t guard_bytes[2]);
  void FixSplitPredecessors(const std::vector<size_t>& original_phis);
  // The module-level edits once every function is rewritten (rewrite.cpp).
  std::string FinishModule();
  void RemoveConvertedVariables();
  void UpdateEntryPointInterfaces();
  void DeclarePhysicalAddressing();
  // Emits the loads of record `record_index` (an id, u32) of converted variable `c`:
  // returns the pointer id (into `result_id` when non-zero) and sets *size when asked.
  uint32_t EmitRecordPointer(uint32_t c, uint32_t record_index, uint32_t result_id, uint32_t* size);
  uint32_t EmitRootPointer(uint32_t set_index);
  uint32_t Emit(spv::Op op, uint32_t type, std::initializer_list<uint32_t> operands);
  bool KeepsRestrictPointer(uint32_t c) const;
  void EmitWithId(spv::Op op, uint32_t type, uint32_t result, std::initializer_list<uint32_t> operands);
  uint32_t EmitArrayLength(uint32_t c, uint32_t size, uint32_t result_id);
  // A 64-bit value clamped to UINT32_MAX (still 64-bit).
  uint32_t ClampToU32(uint32_t value64);
  // Bounds checks: the byte offset of pointer `id` from its root, in the offset type, and
  // whether an access of `bytes` there is inside; "" or why not.
  std::string EmitInBounds(uint32_t id, uint32_t bytes, uint32_t* condition);
  std::string EmitOffset(uint32_t id, uint32_t* offset, uint32_t* overflow, Root* root);
  // EmitOffset's steps: the chains back to the root, each chain's and each index's part,
  // and the sum's last addition. `OffsetSum` is the offset so far: a constant folded here,
  // the id of the emitted dynamic part (0: none), and (32-bit) the id of "it wrapped".
  struct OffsetSum {
    uint32_t constant = 0;
    uint32_t dynamic = 0;
    uint32_t overflow = 0;
  };
  std::string FindChainsToRoot(uint32_t id, std::vector<const Instruction*>* chains, Root* root, uint32_t* root_type);
  std::string AddChainOffset(const Instruction& chain, uint32_t* type, OffsetSum* sum);
  std::string AddIndexOffset(uint32_t index, uint32_t* type, OffsetSum* sum);
  std::string AddIndexTerm(uint32_t index, uint32_t stride, OffsetSum* sum);
  void AddIndexTerm64(uint32_t index, uint32_t width, bool is_signed, uint32_t stride, OffsetSum* sum);
  void AddIndexTerm32(uint32_t index, bool is_signed, uint32_t stride, OffsetSum* sum);
  void FinishOffset(const OffsetSum& sum, uint32_t* offset, uint32_t* overflow);
  void AddAligned(Instruction* inst, uint32_t first_memory_operand, uint32_t alignment);
  // 64-bit array indices (pointer_pass_wide_indices.cpp): with shaderInt64 every array
  // index of `chain` (a rewritten chain on a buffer pointer whose old base pointer type is
  // `base_pointer_type`, pointing to `pointee`; indices from operand `first`) becomes
  // 64-bit, so no driver forms a byte offset beyond 4 GiB in 32 bits.
  void WidenChainIndices(Instruction* chain, uint32_t base_pointer_type, uint32_t pointee, uint32_t first);
  // WidenChainIndices' steps: the chain as it is rebuilt (`base`, OpPtrAccessChain's Element
  // while kept (0: none), then `pending`, the indices whose offsets stay small), the
  // Element, the indices, the stride by which an array index leaves the chain, the move.
  struct WideChain {
    uint32_t base = 0;
    uint32_t element_index = 0;
    std::vector<uint32_t>* pending = nullptr;
    bool in_bounds = false;
    bool changed = false;  // an offset moved to integer arithmetic
    Instruction Make(uint32_t type_id, uint32_t result_id) const;
  };
  void WidenElement(uint32_t element, uint32_t base_pointer_type, WideChain* chain);
  uint32_t WidenIndices(const std::vector<uint32_t>& operands, uint32_t first, uint32_t pointee, WideChain* chain);
  uint32_t ArrayStrideLeavingChain(uint32_t array_type, spv::Op t_op, uint32_t element, uint32_t array_length) const;
  void MoveIndexToArithmetic(uint32_t element, uint32_t index, uint32_t stride, WideChain* chain);
  // `index` as a 64-bit value; `strided_type` carries the ArrayStride it is scaled by.
  uint32_t WideIndex(uint32_t index, uint32_t strided_type);
  // A constant index whose offset (by strided_type's ArrayStride) is below 2 GiB.
  bool SmallConstantIndex(uint32_t index, uint32_t strided_type) const;
  // `pointer` (of `pointer_type`) moved by index x stride bytes in 64-bit integer arithmetic.
  uint32_t OffsetPointer(uint32_t pointer, uint32_t pointer_type, uint32_t index, uint32_t stride);
  bool IndexIntType(uint32_t id, uint32_t* width, bool* is_signed) const;
  // 8/16-bit storage-only types (pointer_pass_functions.cpp): a type with a member the
  // module may only load, store and convert; the 32-bit scalar or vector such a value
  // widens to and the conversion that does it (false for composites).
  bool IsStorageOnlyType(uint32_t type) const;
  bool WidenedType(uint32_t type, uint32_t* wide, spv::Op* op);
  const char* ShapeName(uint32_t type) const;

  // Variable decorations (pointer_pass_memory.cpp). PlanVariableDecorations decides which
  // converted buffers keep their block and which get a decorated copy (and refuses a copy
  // the code could not retype); ApplyVariableDecorations puts the decorations on members.
  std::string PlanVariableDecorations();
  void ApplyVariableDecorations();
  // Indices into converted_ ordered by block type (stable: by index within a block).
  void SortByBlock(std::vector<uint32_t>* order) const;
  // SortByBlock, and per converted buffer (by index into converted_) 1 where the buffers
  // sharing its block differ in the decorations `member_kinds` selects, 0 where they agree.
  void SortByBlockMarkingDifferences(uint32_t member_kinds, std::vector<uint32_t>* order,
                                     std::vector<uint32_t>* users_differ) const;
  // Vulkan memory model: Coherent / Volatile of the variable(s) behind old pointer `id`
  // become memory operands of the access `inst` (first memory operand at `first`).
  void AddCoherenceOperands(Instruction* inst, uint32_t first, uint32_t id, bool is_store);
  int32_t StaticRootOf(uint32_t id) const;  // converted index behind old pointer id, or -1
  // VulkanMemoryModelDeviceScope when the Vulkan memory model meets a Device scope.
  void AddDeviceScopeCapability();

  Module& m_;
  TypeManager types_;
  const RewriteOptions& options_;
  ExtInstSets ext_sets_;  // the grammar of each extended instruction set the module imports
  std::vector<VariableInfo> vars_;
  std::vector<Converted> converted_;
  std::vector<int32_t> converted_of_var_;   // var id -> index in converted_, -1
  std::vector<uint8_t> retyped_;            // id -> its pointer type changes
  std::vector<uint32_t> retyped_params_;    // function parameter ids retyped
  std::vector<uint8_t> retyped_return_;     // function index -> returns a retyped pointer
  IdMap<uint32_t> function_index_;  // function id -> index
  // id -> its uses in functions, as one array sorted by id (use_begin_[id] .. use_begin_[id + 1]):
  // a vector per id was an allocation per id and most of the fixed cost of a small module.
  std::vector<Use> use_list_;
  std::vector<uint32_t> use_begin_;
  struct UseRange {
    const Use* first;
    const Use* last;
    const Use* begin() const { return first; }
    const Use* end() const { return last; }
  };
  UseRange UsesOf(uint32_t id) const {
    if (std::size_t{id} + 1 >= use_begin_.size()) return {nullptr, nullptr};
    return {use_list_.data() + use_begin_[id], use_list_.data() + use_begin_[id + 1]};
  }
  std::vector<std::pair<uint32_t, uint32_t>> local_def_;  // id -> (function+1, index)
  IdMap<uint32_t> mapped_type_;
  bool vulkan_memory_model_ = false;
  // Arithmetic capabilities of small types the module declares (else they are storage-only).
  bool IsStorageOnlyFloat(uint32_t type) const;  // a 16-bit float scalar/vector without Float16
  bool has_int8_ = false, has_int16_ = false, has_float16_ = false;
  bool add_int8_ = false, add_int16_ = false, add_float16_ = false;

  // Types used by the emitted code.
  uint32_t u32_ = 0, u64_ = 0, uvec2_ = 0, bool_ = 0, offset_type_ = 0;
  uint32_t address_type_ = 0;   // u64 or uvec2
  uint32_t records_pointer_ = 0, address_pointer_ = 0;  // PSB pointers to the record array / one address
  uint32_t pc_var_ = 0, pc_struct_ = 0, pc_address_pointer_ = 0, pc_u32_pointer_ = 0;
  bool new_pc_var_ = false;
  // RootPlacement::kPushAddress: the address's member in the push constants, its pointer
  // type there, and the pointer type of the root block.
  uint32_t root_address_member_ = 0, pc_root_address_pointer_ = 0, root_struct_pointer_ = 0;
  std::vector<uint32_t> root_member_;      // per set in options_.sets: member index of its records in the root
  std::vector<uint32_t> block_member_;     // per set: member index of its block's address (kNoMember: none read)
  static constexpr uint32_t kNoMember = 0xffffffffu;
  std::vector<uint32_t> dynamic_member_;   // per converted: member index of its dynamic offsets, or ~0
  bool uses_int64_ = false;
  bool emitted_device_scope_ = false;

  // Per function being rewritten.
  std::vector<Instruction> out_;
  IdMap<uint32_t> replace_;  // old id -> new id (this function)
  IdMap<Root> roots_;        // pointer id -> its root
  IdMap<uint32_t> label_after_split_;  // original label -> last label
  uint32_t current_label_ = 0;
  uint32_t block_label_ = 0;
  std::vector<uint32_t> set_records_;                    // per set: records pointer in this function
  IdMap<uint32_t> split_root_;     // chain result -> its element pointer
  IdMap<uint8_t> loop_headers_;    // labels of loop headers (present: a header)
  IdMap<uint32_t> undef_of_type_;
  // A loop header with a checked access (BeginBlock): the index of its OpLoopMerge in the
  // function's instructions, emitted early, and whether the header still has to be split
  // after its phis.
  size_t hoisted_loop_merge_ = SIZE_MAX;
  bool split_header_pending_ = false;
};

}  // namespace bindery::spirv
