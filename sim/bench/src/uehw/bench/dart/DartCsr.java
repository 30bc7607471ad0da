// SPDX-License-Identifier: Apache-2.0
package uehw.bench.dart;

/** Byte addresses of the Dart DFT CSRs (checked against the generated C header by HwgenTest). */
public final class DartCsr {
    private DartCsr() {
    }

    public static final int INFO = 0x00;
    /** The generator version (docs/integration.md): bits 23:16 major, 15:8 minor, 7:0 patch. */
    public static final int VERSION = 0xFC;
    public static final int CONTROL = 0x04;
    public static final int THRESHOLD = 0x08;
    public static final int MIN_TOKENS = 0x0C;
    public static final int CANDIDATES_LO = 0x10;
    public static final int CANDIDATES_HI = 0x14;
    public static final int HOST_PORTS_LO = 0x18;
    public static final int HOST_PORTS_HI = 0x1C;
    public static final int SEED = 0x20;
    public static final int COMMAND = 0x24;
    public static final int STATUS = 0x28;
    public static final int LOOKUPS = 0x40;
    public static final int HITS = 0x44;
    public static final int ALLOCATIONS = 0x48;
    public static final int FREES = 0x4C;
    public static final int FLUSHED = 0x50;
    public static final int REFUSED_FULL = 0x54;
    public static final int REFUSED_NO_TOKENS = 0x58;
    public static final int REFUSED_NO_CANDIDATE = 0x5C;
    public static final int HITS_WITHOUT_TOKEN = 0x60;
    public static final int BAD_PORT = 0x64;

    /** CONTROL bits. */
    public static final class Control {
        private Control() {
        }

        public static final int ENABLE = 1;
        public static final int TOR_MODE = 2;
        public static final int EVERY_MISROUTE = 4;
    }
}
