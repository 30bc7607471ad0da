// SPDX-License-Identifier: Apache-2.0
package uehw.bench.smartt;

/** Byte addresses of the SMaRTT CSRs (checked against the generated C header by HwgenTest). */
public final class SmarttCsr {
    private SmarttCsr() {
    }

    public static final int INFO = 0x00;
    /** The generator version (docs/integration.md): bits 23:16 major, 15:8 minor, 7:0 patch. */
    public static final int VERSION = 0xFC;
    public static final int FLOWS = 0x04;
    public static final int CONTROL = 0x08;
    public static final int MTU = 0x0C;
    public static final int BDP = 0x10;
    public static final int MAX_CWND = 0x14;
    public static final int INIT_CWND = 0x18;
    public static final int BASE_RTT = 0x1C;
    public static final int TARGET_RTT_FACTOR = 0x20;
    public static final int FD = 0x24;
    public static final int MD = 0x28;
    public static final int FI = 0x2C;
    public static final int MI = 0x30;
    public static final int QA_SCALING = 0x34;
    public static final int FAST_INCREASE_K = 0x38;
    public static final int FAST_INCREASE_CLOSENESS = 0x3C;
    public static final int WTD_ALPHA_SHIFT = 0x40;
    public static final int WTD_THRESHOLD = 0x44;
    public static final int STATUS = 0x48;
    public static final int INV_BDP = 0x4C;
    public static final int EVENTS = 0x60;
    public static final int ACKS = 0x64;
    public static final int NACKS = 0x68;
    public static final int TIMEOUTS = 0x6C;
    public static final int INITS = 0x70;
    public static final int FAIR_DECREASES = 0x74;
    public static final int MULTIPLICATIVE_DECREASES = 0x78;
    public static final int FAIR_INCREASES = 0x7C;
    public static final int MULTIPLICATIVE_INCREASES = 0x80;
    public static final int QUICK_ADAPTS = 0x84;
    public static final int FAST_INCREASES = 0x88;
    public static final int IGNORED = 0x8C;
    public static final int WTD_HELD = 0x90;
    public static final int OUT_OF_RANGE = 0x94;
    public static final int RTT_ZERO = 0x98;
    public static final int RTT_BELOW_BASE = 0x9C;
    public static final int SIZE_ZERO = 0xA0;
    public static final int SIZE_OVER_MTU = 0xA4;
    public static final int CLAMPED_MIN = 0xA8;
    public static final int CLAMPED_MAX = 0xAC;
    public static final int AT_TARGET = 0xB0;
}
