// SPDX-License-Identifier: Apache-2.0
package uehw.bench.trim;

/** Byte addresses of the trimming queue CSRs (checked against the generated C header by HwgenTest). */
public final class TrimQueueCsr {
    private TrimQueueCsr() {
    }

    public static final int INFO = 0x00;
    /** The generator version (docs/integration.md): bits 23:16 major, 15:8 minor, 7:0 patch. */
    public static final int VERSION = 0xFC;
    public static final int CAPACITY = 0x04;
    public static final int CONTROL = 0x08;
    public static final int KMIN = 0x0C;
    public static final int KMAX = 0x10;
    public static final int TRIM_DSCP = 0x14;
    public static final int UDP_PORT = 0x18;
    public static final int SEED = 0x1C;
    public static final int DATA_OCCUPANCY = 0x20;
    public static final int DATA_HIGH_WATER = 0x24;
    public static final int CONTROL_OCCUPANCY = 0x28;
    public static final int CONTROL_HIGH_WATER = 0x2C;
    public static final int TRIM_WAITING = 0x30;
    public static final int IN_PACKETS = 0x40;
    public static final int IN_BYTES = 0x44;
    public static final int OUT_DATA_PACKETS = 0x48;
    public static final int OUT_DATA_BYTES = 0x4C;
    public static final int OUT_CONTROL_PACKETS = 0x50;
    public static final int OUT_CONTROL_BYTES = 0x54;
    public static final int OUT_TRIMMED_PACKETS = 0x58;
    public static final int OUT_TRIMMED_BYTES = 0x5C;
    public static final int TRIMMED = 0x60;
    public static final int MARKED = 0x64;
    public static final int DROP_BAD_FRAME = 0x68;
    public static final int DROP_OVERSIZE = 0x6C;
    public static final int DROP_MALFORMED = 0x70;
    public static final int DROP_RUNT = 0x74;
    public static final int DROP_CONTROL_FULL = 0x78;
    public static final int DROP_CONTROL_OVERSIZE = 0x7C;
    public static final int DROP_DATA_FULL = 0x80;
    public static final int DROP_TRIM_FULL = 0x84;
    public static final int DROP_NON_ECT = 0x88;
    public static final int NON_ECT_ABOVE_KMAX = 0x8C;
    public static final int NON_IP = 0x90;
    public static final int INTERNAL_OVERRUN = 0x94;
    public static final int BAD_IPV4_CHECKSUM = 0x98;
}
