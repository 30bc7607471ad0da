// SPDX-License-Identifier: Apache-2.0
// Preloaded into the UEC reference simulator (LD_PRELOAD) so that its -debug output prints every
// double at 17 significant digits: its times (timeAsUs) then read back to the picosecond. It changes
// the formatting of cout and nothing else; the simulator's binary and results are untouched.
#include <iostream>

namespace {
struct FullPrecision {
    FullPrecision() {
        static std::ios_base::Init init; // cout exists before it is configured
        std::cout.precision(17);
    }
} fullPrecision;
}
