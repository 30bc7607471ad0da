// SPDX-License-Identifier: Apache-2.0
package uehw.bench.dart;

/** Byte addresses of the DASR CSRs (checked against the generated C header by HwgenTest). */
public final class DasrCsr {
    private DasrCsr() {
    }

    public static final int INFO = 0x00;
    /** The generator version (docs/integration.md): bits 23:16 major, 15:8 minor, 7:0 patch. */
    public static final int VERSION = 0xFC;
    public static final int CAPACITY = 0x04;
    public static final int IDLE_TIMEOUT = 0x08;
    public static final int WINDOW = 0x0C;
    public static final int LINE_RATE_BYTES = 0x10;
    public static final int STATUS = 0x14;
    public static final int MEMBERS = 0x18;
    public static final int OVERFLOW = 0x1C;
    public static final int FREE = 0x20;
    public static final int PACKETS = 0x40;
    public static final int LOOK_AHEAD_ENTRIES = 0x44;
    public static final int ADDS = 0x48;
    public static final int REMOVES = 0x4C;
    public static final int EVICTIONS = 0x50;
    public static final int OVERFLOWED = 0x54;
    public static final int LOOK_AHEAD_ADDS = 0x58;
    public static final int LOOK_AHEAD_SKIPPED = 0x5C;
    public static final int STATE_CHANGES = 0x60;
    public static final int ENDS_WITHOUT_START = 0x64;
    public static final int MESSAGE_COUNT_SATURATED = 0x68;
    public static final int SENDER_OUT_OF_RANGE = 0x6C;
}
