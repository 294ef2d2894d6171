// Loading the build-time compiled shaders, and SPIRV-Tools validation for the tests.
#include "spv_files.h"

#include <fstream>
#include <sstream>

namespace bindery::spirv::test {
namespace {

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) out.push_back(item);
  return out;
}

}  // namespace

std::vector<SpvFile> AllSpvFiles() {
  std::vector<SpvFile> files;
  for (const std::string& shader : Split(BINDERY_SPV_SHADERS))
    for (const std::string& env : Split(BINDERY_SPV_ENVS)) {
      SpvFile f{shader, env, {}};
      std::ifstream in(std::string(BINDERY_SPV_DIR) + "/" + f.Name() + ".spv", std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      f.words.resize(bytes.size() / 4);
      std::copy(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(f.words.size() * 4),
                reinterpret_cast<char*>(f.words.data()));
      files.push_back(std::move(f));
    }
  return files;
}

TargetEnv TargetFor(const std::string& env) {
  if (env == "vulkan1.0") return TargetEnv::kVulkan1_0;
  if (env == "vulkan1.1") return TargetEnv::kVulkan1_1;
  if (env == "spirv1.4") return TargetEnv::kVulkan1_1Spirv1_4;
  if (env == "vulkan1.2") return TargetEnv::kVulkan1_2;
  return TargetEnv::kVulkan1_3;
}

spv_target_env SpvEnvFor(TargetEnv target) {
  switch (target) {
    case TargetEnv::kVulkan1_0: return SPV_ENV_VULKAN_1_0;
    case TargetEnv::kVulkan1_1: return SPV_ENV_VULKAN_1_1;
    case TargetEnv::kVulkan1_1Spirv1_4: return SPV_ENV_VULKAN_1_1_SPIRV_1_4;
    case TargetEnv::kVulkan1_2: return SPV_ENV_VULKAN_1_2;
    case TargetEnv::kVulkan1_3: return SPV_ENV_VULKAN_1_3;
  }
  return SPV_ENV_VULKAN_1_2;
}

std::string Validate(const std::vector<uint32_t>& words, TargetEnv target) {
  spv_context context = spvContextCreate(SpvEnvFor(target));
  spv_const_binary_t binary{words.data(), words.size()};
  spv_diagnostic diagnostic = nullptr;
  spv_result_t r = spvValidate(context, &binary, &diagnostic);
  std::string message;
  if (r != SPV_SUCCESS) message = diagnostic ? diagnostic->error : "spirv-val failed";
  spvDiagnosticDestroy(diagnostic);
  spvContextDestroy(context);
  return message;
}

std::string Disassemble(const std::vector<uint32_t>& words) {
  spv_context context = spvContextCreate(SPV_ENV_UNIVERSAL_1_6);
  spv_text text = nullptr;
  spv_diagnostic diagnostic = nullptr;
  std::string out;
  if (spvBinaryToText(context, words.data(), words.size(), SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES, &text,
                      &diagnostic) == SPV_SUCCESS)
    out.assign(text->str, text->length);
  spvTextDestroy(text);
  spvDiagnosticDestroy(diagnostic);
  spvContextDestroy(context);
  return out;
}

}  // namespace bindery::spirv::test
