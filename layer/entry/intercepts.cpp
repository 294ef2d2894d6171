#include "entry/intercepts.h"

#include <cstring>

namespace bindery {

const Intercept* FindIntercept(const char* name) {
  if (name == nullptr) return nullptr;
  // Cold path (proc-addr queries): a linear scan over a few dozen names is fine.
  const InterceptTable tables[] = {CoreIntercepts(), transfer::TransferIntercepts()};
  for (const InterceptTable& table : tables) {
    for (unsigned i = 0; i < table.count; ++i) {
      if (std::strcmp(table.entries[i].name, name) == 0) return &table.entries[i];
    }
  }
  return nullptr;
}

}  // namespace bindery
