// SPDX-License-Identifier: Apache-2.0
package uehw.bench.dart;

/** Byte addresses of the DASR limiter CSRs (checked against the generated C header by HwgenTest). */
public final class DasrLimiterCsr {
    private DasrLimiterCsr() {
    }

    public static final int INFO = 0x00;
    /** The generator version (docs/integration.md): bits 23:16 major, 15:8 minor, 7:0 patch. */
    public static final int VERSION = 0xFC;
    public static final int FLOWS = 0x04;
    public static final int BYTE_TIME = 0x08;
    public static final int STATUS = 0x0C;
    public static final int ACKS = 0x40;
    public static final int SENTS = 0x44;
    public static final int QUERIES = 0x48;
    public static final int ELIGIBLE_QUERIES = 0x4C;
    public static final int OUT_OF_RANGE = 0x50;
    public static final int N_ZERO = 0x54;
    public static final int GAP_SATURATED = 0x58;
    public static final int BAD_KIND = 0x5C;
}
