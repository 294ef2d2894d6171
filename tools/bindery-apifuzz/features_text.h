// The features the generator draws from (ir.h's Features) as text, one "name value" a line:
// `--dump-features FILE` writes a device's, `--features FILE` with `--print`/`--dump` makes
// the program a seed gives on that device without it (an H100 program listed on lavapipe).
#pragma once

#include <string>

#include "ir.h"

namespace bindery::apifuzz {

std::string FeaturesText(const Features& f);

// Reads the text FeaturesText writes; a missing line keeps the default, an unknown name or a
// bad value is an error (a file of another version should not pass silently).
bool ParseFeatures(const std::string& text, Features* f, std::string* error);

}  // namespace bindery::apifuzz
