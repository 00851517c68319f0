// The module is its header (`include/CPrefetch.h`); SwiftPM builds a C target from at least one
// source file.
#include "CPrefetch.h"
