// A program's result bytes on disk, with the regions they hold (buffers, color image,
// images), so that a difference the runner finds between two runs (two processes) can be
// named: which buffer or image, which offset, which two values. Children write one file per
// program into BINDERY_APIFUZZ_BYTES_DIR; the parent deletes those of programs that passed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "interpreter.h"

namespace bindery::apifuzz {

// The directory children write result files into (BINDERY_APIFUZZ_BYTES_DIR), or "".
std::string ResultDir();

// <dir>/<config>-<seed><suffix>.bin
std::string ResultPath(const std::string& dir, const std::string& config, uint64_t seed, const std::string& suffix);

bool WriteResult(const std::string& path, const RunResult& r);
bool ReadResult(const std::string& path, RunResult* r);

// The first differing word, as "buffer 2 (out) offset 0x1c: 0x0000002a vs 0x00000031 (3 of
// 20 words differ there; 1 of 4 regions differ)" (a's value first); "" when equal, or why the
// two cannot be compared.
std::string FirstDifference(const RunResult& a, const RunResult& b);

// Every differing word (at most `max_per_region` a region), one a line, for a closer look
// (`bindery-apifuzz --compare-results A B`).
std::string AllDifferences(const RunResult& a, const RunResult& b, size_t max_per_region = 64);

// The same for two files; says so when one is missing.
std::string FirstDifferenceOfFiles(const std::string& a, const std::string& b);

}  // namespace bindery::apifuzz
