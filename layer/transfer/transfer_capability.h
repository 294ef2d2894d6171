// The transfers capability, as the shell sees it: fill, update and copy at any byte and
// at full bandwidth (docs/transfers.md).
#pragma once

#include "chassis/capability.h"

namespace bindery::transfer {

Capability& TransferCapability();

}  // namespace bindery::transfer
