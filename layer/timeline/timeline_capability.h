// The timeline capability, as the shell sees it: VK_KHR_timeline_semaphore with
// wait-before-signal on drivers without it (docs/timeline.md).
#pragma once

#include "chassis/capability.h"

namespace bindery::timeline {

Capability& TimelineCapability();

}  // namespace bindery::timeline
