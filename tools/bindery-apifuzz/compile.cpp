#include "compile.h"

#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>
#include <spirv-tools/linker.hpp>

#include <map>
#include <mutex>

#include "ir.h"

namespace bindery::apifuzz {

std::vector<uint32_t> CompileGlsl(const std::string& source, uint32_t stage, std::string* error,
                                  const std::string& entry) {
  static std::once_flag init;
  std::call_once(init, [] { glslang::InitializeProcess(); });
  static std::map<std::string, std::vector<uint32_t>> cache;
  const std::string key = std::to_string(stage) + " " + entry + "\n" + source;
  if (auto it = cache.find(key); it != cache.end()) return it->second;

  const EShLanguage lang = stage == kCompute ? EShLangCompute : stage == kVertex ? EShLangVertex : EShLangFragment;
  glslang::TShader shader(lang);
  const char* text = source.c_str();
  shader.setStrings(&text, 1);
  if (entry != "main") {
    shader.setEntryPoint(entry.c_str());
    shader.setSourceEntryPoint("main");
  }
  shader.setEnvInput(glslang::EShSourceGlsl, lang, glslang::EShClientVulkan, 100);
  shader.setEnvClient(glslang::EShClientVulkan, glslang::EShTargetVulkan_1_2);
  shader.setEnvTarget(glslang::EShTargetSpv, glslang::EShTargetSpv_1_5);
  const EShMessages messages = static_cast<EShMessages>(EShMsgSpvRules | EShMsgVulkanRules);
  if (!shader.parse(GetDefaultResources(), 100, false, messages)) {
    *error = std::string("glslang: ") + shader.getInfoLog();
    return {};
  }
  glslang::TProgram program;
  program.addShader(&shader);
  if (!program.link(messages)) {
    *error = std::string("glslang link: ") + program.getInfoLog();
    return {};
  }
  std::vector<uint32_t> spirv;
  glslang::SpvOptions options;
  options.disableOptimizer = true;
  glslang::GlslangToSpv(*program.getIntermediate(lang), spirv, &options);
  cache.emplace(key, spirv);
  return spirv;
}

std::vector<uint32_t> LinkModules(const std::vector<std::vector<uint32_t>>& modules, std::string* error) {
  spvtools::Context context(SPV_ENV_VULKAN_1_2);
  std::string messages;
  context.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t&, const char* m) {
    messages += std::string(m) + "\n";
  });
  std::vector<uint32_t> linked;
  if (spvtools::Link(context, modules, &linked) != SPV_SUCCESS) {
    *error = "spirv-link: " + messages;
    return {};
  }
  return linked;
}

}  // namespace bindery::apifuzz
