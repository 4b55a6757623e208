// Nothing to compile: the module only declares libFuzzer's driver (include/CFuzzerDriver.h).
// SwiftPM needs one source file per C target.
#include "CFuzzerDriver.h"
