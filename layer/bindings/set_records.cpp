#include "bindings/set_records.h"

namespace bindery::bindings {

void WarnUnaddressable(DeviceBindings& b) {
  BINDERY_LOG(b.device.log(), kWarn, "bindings-unaddressable",
              "a descriptor names a buffer without a device address (sparse, protected, external or unbound); "
              "its record is null");
}

}  // namespace bindery::bindings
