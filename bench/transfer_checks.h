// Cheap correctness checks of one configuration's transfers: a few fills, copies and
// updates at aligned and unaligned offsets on ~1 MiB, read back through a host-visible
// buffer and compared byte for byte. Warnings for the report, never fatal.
#pragma once

#include <cstdint>
#include <vector>

#include "transfer_benchmarks.h"
#include "transfer_device.h"

namespace bindery::bench {

// Bytes each check covers; the device's buffers must hold at least this much.
inline constexpr uint64_t kCheckBytes = (1ull << 20) + 4096;

// Aligned checks on every configuration, unaligned fills/updates only with the layer.
std::vector<CheckResult> CheckTransfers(TransferDevice& device);

}  // namespace bindery::bench
