#include "spirv_validate.h"

#include <spirv-tools/libspirv.hpp>

namespace bindery::spirv_exec {
namespace {

bool EnvFor(const std::string& target, spv_target_env& env) {
  if (target == "vulkan1.0") env = SPV_ENV_VULKAN_1_0;
  else if (target == "vulkan1.1" || target == "spirv1.1" || target == "spirv1.2") env = SPV_ENV_VULKAN_1_1;
  else if (target == "spirv1.4") env = SPV_ENV_VULKAN_1_1_SPIRV_1_4;
  else if (target == "vulkan1.2") env = SPV_ENV_VULKAN_1_2;
  else if (target == "vulkan1.3") env = SPV_ENV_VULKAN_1_3;
  else return false;
  return true;
}

}  // namespace

bool TargetFor(const std::string& target, spirv::TargetEnv& out) {
  if (target == "vulkan1.0") out = spirv::TargetEnv::kVulkan1_0;
  else if (target == "vulkan1.1" || target == "spirv1.1" || target == "spirv1.2") out = spirv::TargetEnv::kVulkan1_1;
  else if (target == "spirv1.4") out = spirv::TargetEnv::kVulkan1_1Spirv1_4;
  else if (target == "vulkan1.2") out = spirv::TargetEnv::kVulkan1_2;
  else if (target == "vulkan1.3") out = spirv::TargetEnv::kVulkan1_3;
  else return false;
  return true;
}

std::string ValidateSpirv(const std::vector<uint32_t>& words, const std::string& target, bool scalar_layout) {
  spv_target_env env;
  if (!EnvFor(target, env)) return "unknown target " + target;
  spvtools::SpirvTools tools(env);
  std::string messages;
  tools.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t& pos, const char* m) {
    messages += "word " + std::to_string(pos.index) + ": " + m + "\n";
  });
  spvtools::ValidatorOptions options;
  options.SetScalarBlockLayout(scalar_layout);
  if (tools.Validate(words.data(), words.size(), options)) return "";
  std::string text;
  tools.Disassemble(words, &text, SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES | SPV_BINARY_TO_TEXT_OPTION_INDENT);
  // The disassembly helps read the message; keep the report bounded.
  if (text.size() > 20000) text = text.substr(0, 20000) + "\n...";
  return messages.empty() ? "invalid (no message)" : messages + "--- module ---\n" + text;
}

}  // namespace bindery::spirv_exec
