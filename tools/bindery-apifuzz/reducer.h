// Shrinks a failing program while it keeps failing the same way under one configuration
// and stays clean natively (the validation layer is the judge of validity, so the cuts
// need no knowledge of the rules): drops submissions and host steps, commands, shader
// operations, bindings, push ranges and trailing sets, then objects nothing names.
#pragma once

#include <string>

#include "ir.h"
#include "runner.h"

namespace bindery::apifuzz {

struct Reduction {
  Program program;
  std::string failure;   // how the reduced program fails
  unsigned evaluations = 0;
};

// `failure` is Compare()'s text for the original program.
Reduction Reduce(const RunOptions& o, const std::string& config, const Program& p, const std::string& failure,
                 unsigned max_evaluations);

// The class of a failure (crash, hang, validation message id, differ) that a cut must keep.
std::string FailureClass(const std::string& failure);

}  // namespace bindery::apifuzz
