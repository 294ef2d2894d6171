// ValidateSpecialized and friends (module_validator.h).
#include "spirv/validate/module_validator.h"

#include <cstring>
#include <unordered_map>

#include <spirv-tools/libspirv.hpp>
#include <spirv-tools/optimizer.hpp>

namespace bindery::spirv {
namespace {

spv_target_env EnvFor(TargetEnv target) {
  switch (target) {
    case TargetEnv::kVulkan1_0: return SPV_ENV_VULKAN_1_0;
    case TargetEnv::kVulkan1_1: return SPV_ENV_VULKAN_1_1;
    case TargetEnv::kVulkan1_1Spirv1_4: return SPV_ENV_VULKAN_1_1_SPIRV_1_4;
    case TargetEnv::kVulkan1_2: return SPV_ENV_VULKAN_1_2;
    case TargetEnv::kVulkan1_3: return SPV_ENV_VULKAN_1_3;
  }
  return SPV_ENV_VULKAN_1_2;
}

}  // namespace

std::vector<SpecValue> SpecValuesOf(const SpecMapEntry* entries, uint32_t count, const void* data, std::size_t data_size) {
  std::vector<SpecValue> values;
  if (entries == nullptr || data == nullptr) return values;
  for (uint32_t i = 0; i < count; ++i) {
    const SpecMapEntry& e = entries[i];
    if (e.size == 0 || e.size > 8 || e.offset > data_size || e.size > data_size - e.offset) continue;
    SpecValue v;
    v.id = e.id;
    v.words.assign((e.size + 3) / 4, 0u);
    std::memcpy(v.words.data(), static_cast<const uint8_t*>(data) + e.offset, e.size);
    values.push_back(std::move(v));
  }
  return values;
}

std::vector<uint32_t> Specialize(const std::vector<uint32_t>& words, TargetEnv target,
                                 const std::vector<SpecValue>& values, std::string* error) {
  spvtools::Optimizer opt(EnvFor(target));
  std::string messages;
  opt.SetMessageConsumer([&](spv_message_level_t level, const char*, const spv_position_t&, const char* m) {
    if (level <= SPV_MSG_ERROR) messages += std::string(m) + "\n";
  });
  std::unordered_map<uint32_t, std::vector<uint32_t>> defaults;
  for (const SpecValue& v : values) defaults[v.id] = v.words;
  if (!defaults.empty()) opt.RegisterPass(spvtools::CreateSetSpecConstantDefaultValuePass(defaults));
  opt.RegisterPass(spvtools::CreateFreezeSpecConstantValuePass());
  opt.RegisterPass(spvtools::CreateFoldSpecConstantOpAndCompositePass());
  spvtools::OptimizerOptions options;
  options.set_run_validator(false);  // validated after, with the messages kept
  std::vector<uint32_t> out;
  if (!opt.Run(words.data(), words.size(), &out, options)) {
    *error = "specialization failed: " + (messages.empty() ? std::string("no message") : messages);
    return {};
  }
  error->clear();
  return out;
}

namespace {

// "" or the validator's first message.
std::string Validate(const std::vector<uint32_t>& words, TargetEnv target) {
  spvtools::SpirvTools tools(EnvFor(target));
  std::string message;
  tools.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t& pos, const char* m) {
    if (message.empty()) message = "word " + std::to_string(pos.index) + ": " + m;
  });
  if (tools.Validate(words)) return "";
  return message.empty() ? "invalid (the validator gave no message)" : message;
}

}  // namespace

std::string ValidateSpecialized(const std::vector<uint32_t>& words, TargetEnv target,
                                const std::vector<SpecValue>& values) {
  // The optimizer's passes assume a valid module (on an invalid one they may crash: found
  // by the fuzzer), so the module as given is validated first and only a valid one is
  // specialized.
  std::string message = Validate(words, target);
  if (!message.empty()) return message;
  std::string error;
  const std::vector<uint32_t> specialized = Specialize(words, target, values, &error);
  if (!error.empty()) return error;
  message = Validate(specialized, target);
  return message.empty() ? "" : "after specialization: " + message;
}

RewriteVerdict JudgeRewrite(const std::vector<uint32_t>& original, const std::vector<uint32_t>& rewritten,
                            TargetEnv target, const std::vector<SpecValue>& values) {
  RewriteVerdict v;
  std::string message = ValidateSpecialized(rewritten, target, values);
  if (message.empty()) return v;
  const std::string original_message = ValidateSpecialized(original, target, values);
  if (!original_message.empty()) {
    v.original_invalid = true;
    v.message = original_message;
    return v;
  }
  v.rewrite_invalid = true;
  v.message = std::move(message);
  return v;
}

}  // namespace bindery::spirv
