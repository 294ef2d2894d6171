// The chassis's tracking stage: a stage of the stack (placed by the shell like a
// capability) whose hooks fill the shared trackers (chassis/trackers.h) with what passes
// through them. Its position decides what "sent down" means: the shell puts it below the
// capabilities that rewrite state and above those that record their own work.
#pragma once

#include "chassis/capability.h"

namespace bindery {

Capability& TrackingStage();

}  // namespace bindery
