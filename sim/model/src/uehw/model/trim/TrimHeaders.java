// SPDX-License-Identifier: Apache-2.0
package uehw.model.trim;

import static uehw.model.packet.PacketFormat.*;

import java.util.Arrays;

import uehw.model.packet.InternetChecksum;
import uehw.model.packet.Packet;

/**
 * The trimming queue's header rewrites, written from the RFCs (not from the RTL's incremental
 * method): the trimmed header (smartt-reps.txt Sec. 2.1) and the CE mark (RFC 3168).
 */
public final class TrimHeaders {
    private TrimHeaders() {
    }

    /** Sec. 2.1: keep max(trim-bytes, headers) bytes, TRIMMED and TRIM_DSCP set, lengths and checksums fixed. */
    public static byte[] trimmed(byte[] frame, boolean ipv6, int trimBytes, int trimDscp) {
        int keep = Math.min(frame.length, ipv6 ? Math.max(trimBytes, Ipv6AllHeaderBytes) : trimBytes);
        byte[] t = Arrays.copyOf(frame, keep);
        if (ipv6) {
            int tc = trimDscp << 2 | (t[Ipv6TcFlow] >> 4) & 3;
            t[Ipv6VersionTc] = (byte) (t[Ipv6VersionTc] & 0xF0 | tc >> 4);
            t[Ipv6TcFlow] = (byte) ((tc & 0xF) << 4 | t[Ipv6TcFlow] & 0x0F);
            put16(t, Ipv6PayloadLength, keep - Ipv6UdpOffset);
            put16(t, Ipv6UdpOffset + UdpLength, keep - Ipv6UdpOffset);
            t[Ipv6TransportOffset + TpFlags] |= (byte) FlagTrimmed;
            new Packet(t).fixUdpChecksum();
        } else {
            t[Ipv4Tos] = (byte) (trimDscp << 2 | t[Ipv4Tos] & 3);
            put16(t, Ipv4TotalLength, keep - EthHeaderBytes);
            put16(t, Ipv4UdpOffset + UdpLength, keep - Ipv4UdpOffset);
            put16(t, Ipv4UdpOffset + UdpChecksum, 0);
            t[Ipv4TransportOffset + TpFlags] |= (byte) FlagTrimmed;
            new Packet(t).fixIpv4HeaderChecksum();
        }
        return t;
    }

    /** RFC 3168: CE, with the IPv4 header checksum recomputed in full. */
    public static byte[] markCe(byte[] frame, boolean ipv4) {
        byte[] m = frame.clone();
        if (ipv4) {
            m[Ipv4Tos] |= (byte) EcnCe;
            put16(m, Ipv4Checksum, 0);
            int headerBytes = (m[Ipv4VersionIhl] & 0xF) * 4; // options included
            put16(m, Ipv4Checksum, InternetChecksum.checksum(m, EthHeaderBytes, headerBytes));
        } else {
            m[Ipv6TcFlow] |= (byte) (EcnCe << 4);
        }
        return m;
    }

    private static void put16(byte[] b, int o, int v) {
        b[o] = (byte) (v >>> 8);
        b[o + 1] = (byte) v;
    }
}
