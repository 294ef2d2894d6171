#include "core/stats.h"

#include <cstdio>

namespace bindery {

std::string Stats::Summary() const {
  char line[256];
  std::snprintf(line, sizeof(line),
                "pipelines rewritten %llu, fallen back %llu; transfers polyfilled %llu (kernels %llu, edge copies "
                "%llu), passed through %llu; submissions parked %llu",
                static_cast<unsigned long long>(pipelines_rewritten.load()),
                static_cast<unsigned long long>(pipelines_fallen_back.load()),
                static_cast<unsigned long long>(transfers_polyfilled.load()),
                static_cast<unsigned long long>(transfer_kernels.load()),
                static_cast<unsigned long long>(transfer_edge_copies.load()),
                static_cast<unsigned long long>(transfers_passed_through.load()),
                static_cast<unsigned long long>(submissions_parked.load()));
  return line;
}

}  // namespace bindery
