// SPDX-License-Identifier: Apache-2.0
package uehw.bench.reps;

/** Byte addresses of the REPS CSRs (checked against the generated C header by HwgenTest). */
public final class RepsCsr {
    private RepsCsr() {
    }

    public static final int INFO = 0x00;
    /** The generator version (docs/integration.md): bits 23:16 major, 15:8 minor, 7:0 patch. */
    public static final int VERSION = 0xFC;
    public static final int CONNECTIONS = 0x04;
    public static final int FREEZING_TIMEOUT = 0x08;
    public static final int NUM_PKTS_BDP = 0x0C;
    public static final int EVS_SIZE = 0x10;
    public static final int SEED = 0x14;
    public static final int INIT_CONN = 0x18;
    public static final int STATUS = 0x1C;
    public static final int SENDS = 0x20;
    public static final int SENDS_EXPLORED = 0x24;
    public static final int SENDS_RECYCLED = 0x28;
    public static final int SENDS_REPLAYED = 0x2C;
    public static final int ACKS = 0x30;
    public static final int ACKS_RECYCLED = 0x34;
    public static final int ACKS_MARKED = 0x38;
    public static final int FAILURES = 0x3C;
    public static final int FREEZE_ENTER = 0x40;
    public static final int FREEZE_EXIT = 0x44;
    public static final int INITS = 0x48;
    public static final int OOR_SEND = 0x4C;
    public static final int OOR_CTRL = 0x50;
    public static final int INIT_OVERRUN = 0x54;
}
