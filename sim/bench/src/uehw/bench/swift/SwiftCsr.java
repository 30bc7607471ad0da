// SPDX-License-Identifier: Apache-2.0
package uehw.bench.swift;

/** Byte addresses of the Swift CSRs (checked against the generated C header by HwgenTest). */
public final class SwiftCsr {
    private SwiftCsr() {
    }

    public static final int INFO = 0x00;
    public static final int VERSION = 0xFC;
    public static final int FLOWS = 0x04;
    public static final int CONTROL = 0x08;
    public static final int AI = 0x0C;
    public static final int BETA = 0x10;
    public static final int MAX_MDF = 0x14;
    public static final int MIN_CWND = 0x18;
    public static final int MAX_CWND = 0x1C;
    public static final int INIT_CWND = 0x20;
    public static final int RETX_RESET_THRESHOLD = 0x24;
    public static final int BASE_TARGET = 0x28;
    public static final int PER_HOP = 0x2C;
    public static final int FS_RANGE = 0x30;
    public static final int FS_ALPHA = 0x34;
    public static final int FS_BETA = 0x38;
    public static final int ENDPOINT_TARGET = 0x3C;
    public static final int ENDPOINT_EWMA_SHIFT = 0x40;
    public static final int STATUS = 0x44;
    public static final int EVENTS = 0x60;
    public static final int ACKS = 0x64;
    public static final int NACKS = 0x68;
    public static final int TIMEOUTS = 0x6C;
    public static final int INITS = 0x70;
    public static final int FABRIC_INCREASES = 0x74;
    public static final int FABRIC_DECREASES = 0x78;
    public static final int ENDPOINT_INCREASES = 0x7C;
    public static final int ENDPOINT_DECREASES = 0x80;
    public static final int HELD = 0x84;
    public static final int RESETS = 0x88;
    public static final int OUT_OF_RANGE = 0x8C;
    public static final int RTT_ZERO = 0x90;
    public static final int ENDPOINT_ABOVE_RTT = 0x94;
    public static final int HOPS_CLAMPED = 0x98;
    public static final int CLAMPED_MAX = 0x9C;
    public static final int CLAMPED_MIN = 0xA0;
    public static final int PACED = 0xA4;
    public static final int PACING_SATURATED = 0xA8;
}
