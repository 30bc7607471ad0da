// SPDX-License-Identifier: Apache-2.0
package uehw.model.packet;

/**
 * The Internet checksum (RFC 1071): the ones' complement of the ones' complement sum of 16-bit
 * big-endian words. Written for the tests, independently of any RTL.
 */
public final class InternetChecksum {
    private InternetChecksum() {
    }

    /** The ones' complement sum (folded to 16 bits) of bytes [offset, offset + length), odd length padded with 0. */
    public static int sum(byte[] data, int offset, int length, int initial) {
        long sum = initial;
        for (int i = 0; i + 1 < length; i += 2) {
            sum += ((data[offset + i] & 0xFF) << 8) | (data[offset + i + 1] & 0xFF);
        }
        if ((length & 1) != 0) {
            sum += (data[offset + length - 1] & 0xFF) << 8;
        }
        while ((sum >> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >> 16);
        }
        return (int) sum;
    }

    /** The checksum to store: ~sum. */
    public static int checksum(byte[] data, int offset, int length) {
        return ~sum(data, offset, length, 0) & 0xFFFF;
    }

    /** A header or segment whose stored checksum is right sums to 0xFFFF. */
    public static boolean verifies(byte[] data, int offset, int length) {
        return sum(data, offset, length, 0) == 0xFFFF;
    }
}
