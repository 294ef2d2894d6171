// The `bindings_dump` setting: each module the capability rewrites is written to a folder
// (original and rewritten .spv, and the layout it used, as text), so a user can replay a
// surprising rewrite with `bindery-spirv` and attach the files to a bug report.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "spirv/rewrite.h"

namespace bindery::bindings {

// Writes <dir>/<name>.orig.spv, <name>.rewritten.spv and <name>.layout.txt, where <name>
// is a hash of the module and options. Returns the base path written, or "" on failure.
std::string DumpRewrite(const std::string& dir, const std::vector<uint32_t>& original,
                        const spirv::RewriteOptions& options, const std::vector<uint32_t>& rewritten,
                        const spirv::RewriteReport& report);

// DumpRewrite, plus <name>.invalid.txt holding `message` (the validator's verdict on the
// rewritten module: the bindings_validate setting). Returns the base path, or "".
std::string DumpInvalidRewrite(const std::string& dir, const std::vector<uint32_t>& original,
                               const spirv::RewriteOptions& options, const std::vector<uint32_t>& rewritten,
                               const spirv::RewriteReport& report, const std::string& message);

// The options as text (one line per set, one per binding).
std::string DescribeOptions(const spirv::RewriteOptions& options);

}  // namespace bindery::bindings
