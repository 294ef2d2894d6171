// bindery-spirv: runs the descriptor-to-pointer rewrite on a file and shows what it did.
//   bindery-spirv rewrite IN.spv [--sets 0,1] [--root-offset N] [--no-int64] [--bounds-checks] [--float16] [--int16] [--int8] [--records-in-root] [--root-records N]
//                            [--base-alignment N: descriptors' base address alignment]
//                            [--no-restrict: bare pointers, none kept in RestrictPointer variables]
//                 [--ubo] [--target vulkan1.0|1.1|1.1spv1.4|1.2|1.3] [--entry NAME] [--glsl] -o OUT.spv
//   --entry NAME: the rewrite is for that entry point alone (the others are left out), as
//                 the layer makes it for a pipeline stage of a module with several
//   bindery-spirv info IN.spv
#include <spirv-tools/libspirv.h>
#include <spirv_cross_c.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "spirv/rewrite.h"

namespace {

using namespace bindery::spirv;

int Fail(const std::string& message) {
  std::fprintf(stderr, "bindery-spirv: %s\n", message.c_str());
  return 1;
}

bool ReadWords(const std::string& path, std::vector<uint32_t>* words, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) { *error = "cannot open " + path; return false; }
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() % 4 != 0) { *error = path + ": size " + std::to_string(bytes.size()) + " is not a multiple of 4"; return false; }
  words->resize(bytes.size() / 4);
  std::copy(bytes.begin(), bytes.end(), reinterpret_cast<char*>(words->data()));
  return true;
}

std::string Disassemble(const std::vector<uint32_t>& words) {
  spv_context context = spvContextCreate(SPV_ENV_UNIVERSAL_1_6);
  spv_text text = nullptr;
  spv_diagnostic diagnostic = nullptr;
  std::string out;
  if (spvBinaryToText(context, words.data(), words.size(),
                      SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES | SPV_BINARY_TO_TEXT_OPTION_INDENT, &text,
                      &diagnostic) == SPV_SUCCESS)
    out.assign(text->str, text->length);
  else
    out = std::string("(disassembly failed: ") + (diagnostic ? diagnostic->error : "?") + ")\n";
  spvTextDestroy(text);
  spvDiagnosticDestroy(diagnostic);
  spvContextDestroy(context);
  return out;
}

spv_target_env SpvEnv(TargetEnv t) {
  switch (t) {
    case TargetEnv::kVulkan1_0: return SPV_ENV_VULKAN_1_0;
    case TargetEnv::kVulkan1_1: return SPV_ENV_VULKAN_1_1;
    case TargetEnv::kVulkan1_1Spirv1_4: return SPV_ENV_VULKAN_1_1_SPIRV_1_4;
    case TargetEnv::kVulkan1_2: return SPV_ENV_VULKAN_1_2;
    case TargetEnv::kVulkan1_3: return SPV_ENV_VULKAN_1_3;
  }
  return SPV_ENV_VULKAN_1_2;
}

std::string Validate(const std::vector<uint32_t>& words, TargetEnv t) {
  spv_context context = spvContextCreate(SpvEnv(t));
  spv_const_binary_t binary{words.data(), words.size()};
  spv_diagnostic diagnostic = nullptr;
  std::string message;
  if (spvValidate(context, &binary, &diagnostic) != SPV_SUCCESS) message = diagnostic ? diagnostic->error : "invalid";
  spvDiagnosticDestroy(diagnostic);
  spvContextDestroy(context);
  return message;
}

std::string Glsl(const std::vector<uint32_t>& words) {
  spvc_context context = nullptr;
  if (spvc_context_create(&context) != SPVC_SUCCESS) return "(SPIRV-Cross unavailable)\n";
  spvc_parsed_ir ir = nullptr;
  spvc_compiler compiler = nullptr;
  spvc_compiler_options options = nullptr;
  const char* source = nullptr;
  std::string out;
  if (spvc_context_parse_spirv(context, words.data(), words.size(), &ir) == SPVC_SUCCESS &&
      spvc_context_create_compiler(context, SPVC_BACKEND_GLSL, ir, SPVC_CAPTURE_MODE_TAKE_OWNERSHIP, &compiler) == SPVC_SUCCESS &&
      spvc_compiler_create_compiler_options(compiler, &options) == SPVC_SUCCESS &&
      spvc_compiler_options_set_uint(options, SPVC_COMPILER_OPTION_GLSL_VERSION, 460) == SPVC_SUCCESS &&
      spvc_compiler_options_set_bool(options, SPVC_COMPILER_OPTION_GLSL_VULKAN_SEMANTICS, SPVC_TRUE) == SPVC_SUCCESS &&
      spvc_compiler_install_compiler_options(compiler, options) == SPVC_SUCCESS &&
      spvc_compiler_compile(compiler, &source) == SPVC_SUCCESS) {
    out = source;
  } else {
    out = std::string("(SPIRV-Cross: ") + spvc_context_get_last_error_string(context) + ")\n";
  }
  spvc_context_destroy(context);
  return out;
}

const char* KindName(ResourceKind k) {
  switch (k) {
    case ResourceKind::kStorageBuffer: return "storage buffer";
    case ResourceKind::kUniformBuffer: return "uniform buffer";
    case ResourceKind::kPushConstants: return "push constants";
    case ResourceKind::kOther: return "other";
  }
  return "?";
}

int Info(const std::vector<uint32_t>& words) {
  ModuleInfo info = Inspect(words.data(), words.size());
  if (!info.error.empty()) return Fail("not a module we can read: " + info.error);
  std::printf("SPIR-V %u.%u, push constants %u bytes\n", (info.spirv_version >> 16) & 0xff,
              (info.spirv_version >> 8) & 0xff, info.push_constant_bytes);
  for (const EntryPointInfo& ep : info.entry_points) {
    std::printf("entry point \"%s\" (%s)\n", ep.name.c_str(), ep.execution_model.c_str());
    for (const ResourceInfo& r : ep.resources) {
      if (r.kind == ResourceKind::kPushConstants) {
        std::printf("  push constants %s\n", r.name.c_str());
        continue;
      }
      std::string count = r.array_size == 0 ? "[]" : r.array_size == 1 ? "" : "[" + std::to_string(r.array_size) + "]";
      std::printf("  set %u binding %u: %s%s %s\n", r.set, r.binding, KindName(r.kind), count.c_str(), r.name.c_str());
    }
  }
  return 0;
}

bool ParseTarget(const std::string& s, TargetEnv* t) {
  if (s == "vulkan1.0") *t = TargetEnv::kVulkan1_0;
  else if (s == "vulkan1.1") *t = TargetEnv::kVulkan1_1;
  else if (s == "vulkan1.1spv1.4") *t = TargetEnv::kVulkan1_1Spirv1_4;
  else if (s == "vulkan1.2") *t = TargetEnv::kVulkan1_2;
  else if (s == "vulkan1.3") *t = TargetEnv::kVulkan1_3;
  else return false;
  return true;
}

bool ParseUint(const std::string& s, uint32_t* v) {
  if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos) return false;
  *v = static_cast<uint32_t>(std::stoul(s));
  return true;
}

int Rewrite(const std::vector<uint32_t>& words, const std::vector<std::string>& args) {
  std::string out_path;
  uint32_t root_offset = kNoRootOffset;
  bool ubo = false, glsl = false, sets_given = false, records_in_root = false;
  uint32_t root_records = 0;  // --root-records: a prefix of each set's records in the root, then its block's address
  std::set<uint32_t> sets;
  RewriteOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](std::string* v) {
      if (i + 1 >= args.size()) return false;
      *v = args[++i];
      return true;
    };
    std::string v;
    if (a == "-o") { if (!value(&out_path)) return Fail("-o needs a file"); }
    else if (a == "--sets") {
      if (!value(&v)) return Fail("--sets needs a list");
      std::stringstream in(v);
      std::string item;
      while (std::getline(in, item, ',')) {
        uint32_t s = 0;
        if (!ParseUint(item, &s)) return Fail("bad set number '" + item + "'");
        sets.insert(s);
      }
      sets_given = true;
    } else if (a == "--root-offset") {
      if (!value(&v) || !ParseUint(v, &root_offset)) return Fail("--root-offset needs a number");
    } else if (a == "--no-int64") o.shader_int64 = false;
    else if (a == "--no-restrict") o.restrict_pointers = false;
    else if (a == "--bounds-checks") o.bounds_checks = true;
    else if (a == "--float16") o.float16 = true;
    else if (a == "--int16") o.int16 = true;
    else if (a == "--int8") o.int8 = true;
    else if (a == "--records-in-root") records_in_root = true;
    else if (a == "--root-records") {
      if (!value(&v) || !ParseUint(v, &root_records) || root_records == 0) return Fail("--root-records needs a number > 0");
      records_in_root = true;
    }
    else if (a == "--base-alignment") {
      if (!value(&v) || !ParseUint(v, &o.descriptor_base_alignment)) return Fail("--base-alignment needs a number");
    } else if (a == "--ubo") ubo = true;
    else if (a == "--glsl") glsl = true;
    else if (a == "--entry") {
      if (!value(&o.entry_point)) return Fail("--entry needs an entry point's name");
    } else if (a == "--target") {
      if (!value(&v) || !ParseTarget(v, &o.target)) return Fail("--target takes vulkan1.0|vulkan1.1|vulkan1.1spv1.4|vulkan1.2|vulkan1.3");
    } else return Fail("unknown option " + a);
  }
  if (out_path.empty()) return Fail("rewrite needs -o OUT.spv");
  ModuleInfo info = Inspect(words.data(), words.size());
  if (!info.error.empty()) return Fail("not a module we can read: " + info.error);
  if (root_offset == kNoRootOffset) root_offset = (info.push_constant_bytes + 7u) & ~7u;
  RewriteOptions layout = DefaultLayout(info, root_offset, ubo);
  for (const SetLayout& s : layout.sets)
    if (!sets_given || sets.count(s.set)) o.sets.push_back(s);
  if (records_in_root) {
    // Each set's records in the root instead of its block's address, slots packed.
    uint32_t cursor = (root_offset + 7u) & ~7u;
    for (SetLayout& s : o.sets) {
      s.root_offset = cursor;
      s.records_in_root = true;
      uint32_t records = 0;
      for (const BindingLayout& b : s.bindings) records = std::max(records, b.first_record + std::max(1u, b.array_size));
      if (root_records != 0 && root_records < records) {
        s.root_records = root_records;
        cursor += 16 * root_records + 8;
      } else {
        cursor += 16 * records;
      }
    }
  }
  o.convert_uniform_buffers = ubo;
  RewriteResult r = RewriteDescriptorsToPointers(words.data(), words.size(), o);
  if (!r.error.empty()) return Fail("not a module we can read: " + r.error);
  std::printf("== report\n%s", r.report.ToString().c_str());
  std::printf("== before\n%s", Disassemble(words).c_str());
  if (r.report.converted) std::printf("== after\n%s", Disassemble(r.module).c_str());
  if (glsl) {
    std::printf("== before (GLSL)\n%s", Glsl(words).c_str());
    if (r.report.converted) std::printf("== after (GLSL)\n%s", Glsl(r.module).c_str());
  }
  if (r.report.converted) {
    std::string why = Validate(r.module, o.target);
    std::printf("== spirv-val: %s\n", why.empty() ? "valid" : why.c_str());
    if (!why.empty()) return Fail("the rewritten module does not validate");
  }
  std::ofstream out(out_path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(r.module.data()), static_cast<std::streamsize>(r.module.size() * 4));
  if (!out) return Fail("cannot write " + out_path);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: bindery-spirv rewrite IN.spv [--sets 0,1] [--root-offset N] [--no-int64] [--bounds-checks] [--float16] [--int16] [--int8]\n"
                 "                     [--records-in-root] [--root-records N] [--base-alignment N] [--ubo] [--no-restrict]\n"
                 "                     [--target vulkan1.0|1.1|1.1spv1.4|1.2|1.3] [--entry NAME] [--glsl] -o OUT.spv\n"
                 "       bindery-spirv info IN.spv\n");
    return 2;
  }
  std::string command = argv[1];
  std::vector<uint32_t> words;
  std::string error;
  if (!ReadWords(argv[2], &words, &error)) return Fail(error);
  if (command == "info") return Info(words);
  if (command == "rewrite") return Rewrite(words, std::vector<std::string>(argv + 3, argv + argc));
  return Fail("unknown command " + command);
}
