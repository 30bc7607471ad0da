// SPDX-License-Identifier: Apache-2.0
package uehw.model.packet;

import static uehw.model.packet.PacketFormat.*;

import java.util.Arrays;

/**
 * A frame of the project's format (docs/packet-format.md, offsets from uehw.hw.common.PacketFormat):
 * building with correct lengths and checksums, reading fields, and checking the checksums with
 * {@link InternetChecksum}. IPv4 UDP checksums are computed (0 is allowed, RFC 768); IPv6 needs one.
 */
public final class Packet {
    public final byte[] bytes;

    public Packet(byte[] bytes) {
        this.bytes = bytes;
    }

    /** What a transport packet carries. */
    public record Fields(boolean ipv6, int dscp, int ecn, int entropy, int flowId, int sequence, int flags, int tokens,
                         int echoedEntropy) {
    }

    /** Builds Ethernet + IP + UDP + transport header + payload of {@code payloadBytes} pattern bytes. */
    public static Packet transport(Fields f, int payloadBytes, int payloadSeed) {
        int udp = f.ipv6() ? Ipv6UdpOffset : Ipv4UdpOffset;
        int tp = udp + UdpHeaderBytes;
        int total = tp + TransportHeaderBytes + payloadBytes;
        byte[] b = new byte[total];
        for (int i = 0; i < 6; i++) {
            b[EthDst + i] = (byte) (0x02 + i);
            b[EthSrc + i] = (byte) (0x12 + i);
        }
        int tc = f.dscp() << 2 | f.ecn();
        if (f.ipv6()) {
            put16(b, EthType, EthTypeIpv6);
            b[Ipv6VersionTc] = (byte) (0x60 | tc >> 4);
            b[Ipv6TcFlow] = (byte) ((tc & 0xF) << 4 | 0x1);
            put16(b, Ipv6PayloadLength, total - EthHeaderBytes - Ipv6HeaderBytes);
            b[Ipv6NextHeader] = (byte) ProtocolUdp;
            b[Ipv6HopLimit] = 64;
            for (int i = 0; i < 16; i++) {
                b[Ipv6Src + i] = (byte) (0x20 + i);
                b[Ipv6Dst + i] = (byte) (0x40 + i);
            }
        } else {
            put16(b, EthType, EthTypeIpv4);
            b[Ipv4VersionIhl] = 0x45;
            b[Ipv4Tos] = (byte) tc;
            put16(b, Ipv4TotalLength, total - EthHeaderBytes);
            b[Ipv4Ttl] = 64;
            b[Ipv4Protocol] = (byte) ProtocolUdp;
            put32(b, Ipv4Src, 0x0A000001);
            put32(b, Ipv4Dst, 0x0A000002);
        }
        put16(b, udp + UdpSrcPort, f.entropy());
        put16(b, udp + UdpDstPort, TransportUdpPort);
        put16(b, udp + UdpLength, total - udp);
        put32(b, tp + TpFlowId, f.flowId());
        put32(b, tp + TpSequence, f.sequence());
        b[tp + TpFlags] = (byte) f.flags();
        b[tp + TpVersionTokens] = (byte) (TransportVersion << 4 | f.tokens() & 0xF);
        put16(b, tp + TpEchoedEntropy, f.echoedEntropy());
        int x = payloadSeed;
        for (int i = tp + TransportHeaderBytes; i < total; i++) {
            x = x * 1103515245 + 12345;
            b[i] = (byte) (x >>> 16);
        }
        Packet p = new Packet(b);
        p.fixChecksums();
        return p;
    }

    public boolean isIpv4() {
        return bytes.length >= EthHeaderBytes && get16(EthType) == EthTypeIpv4;
    }

    public boolean isIpv6() {
        return bytes.length >= EthHeaderBytes && get16(EthType) == EthTypeIpv6;
    }

    public int udpOffset() {
        return isIpv6() ? Ipv6UdpOffset : Ipv4UdpOffset;
    }

    public int transportOffset() {
        return udpOffset() + UdpHeaderBytes;
    }

    public int ecn() {
        return isIpv6() ? (bytes[Ipv6TcFlow] >> 4) & 3 : bytes[Ipv4Tos] & 3;
    }

    public int dscp() {
        return isIpv6() ? ((bytes[Ipv6VersionTc] & 0xF) << 2) | ((bytes[Ipv6TcFlow] >> 6) & 3)
                : (bytes[Ipv4Tos] >> 2) & 0x3F;
    }

    public int flags() {
        return bytes[transportOffset() + TpFlags] & 0xFF;
    }

    public int get16(int offset) {
        return (bytes[offset] & 0xFF) << 8 | (bytes[offset + 1] & 0xFF);
    }

    /** The unsigned 32-bit big-endian field at {@code offset}. */
    public long get32(int offset) {
        return (long) get16(offset) << 16 | get16(offset + 2);
    }

    /** The IPv4 header checksum verifies (true for IPv6, which has none). */
    public boolean ipv4HeaderVerifies() {
        return !isIpv4() || InternetChecksum.verifies(bytes, EthHeaderBytes, Ipv4HeaderBytes);
    }

    /**
     * The UDP checksum verifies over the pseudo-header and the UDP length (IPv4: 0 means none).
     * A UDP length below the 8-byte UDP header or past the end of the frame (RFC 768) never verifies.
     */
    public boolean udpVerifies() {
        int udp = udpOffset();
        int length = get16(udp + UdpLength);
        if (length < UdpHeaderBytes || udp + length > bytes.length) {
            return false;
        }
        if (isIpv4() && get16(udp + UdpChecksum) == 0) {
            return true;
        }
        return InternetChecksum.sum(bytes, udp, length, pseudoHeaderSum(length)) == 0xFFFF;
    }

    private int pseudoHeaderSum(int udpLength) {
        return isIpv6()
                ? InternetChecksum.sum(bytes, Ipv6Src, 32, udpLength + ProtocolUdp)
                : InternetChecksum.sum(bytes, Ipv4Src, 8, udpLength + ProtocolUdp);
    }

    /** Recomputes the IPv4 header checksum and the UDP checksum. */
    public void fixChecksums() {
        if (isIpv4()) {
            fixIpv4HeaderChecksum();
        }
        fixUdpChecksum();
    }

    /** Recomputes the IPv4 header checksum (RFC 791, 20-byte header). */
    public void fixIpv4HeaderChecksum() {
        put16(bytes, Ipv4Checksum, 0);
        put16(bytes, Ipv4Checksum, InternetChecksum.checksum(bytes, EthHeaderBytes, Ipv4HeaderBytes));
    }

    /** Recomputes the UDP checksum over the pseudo-header and the UDP length's bytes (RFC 768, RFC 8200 Sec. 8.1). */
    public void fixUdpChecksum() {
        int udp = udpOffset();
        int length = get16(udp + UdpLength);
        put16(bytes, udp + UdpChecksum, 0);
        int c = ~InternetChecksum.sum(bytes, udp, length, pseudoHeaderSum(length)) & 0xFFFF;
        put16(bytes, udp + UdpChecksum, c == 0 ? 0xFFFF : c); // RFC 768: a computed 0 is sent as 0xFFFF
    }

    /** Writes a big-endian 16-bit field. */
    public static void put16(byte[] b, int offset, int v) {
        b[offset] = (byte) (v >>> 8);
        b[offset + 1] = (byte) v;
    }

    /** Writes a big-endian 32-bit field. */
    public static void put32(byte[] b, int offset, int v) {
        put16(b, offset, v >>> 16);
        put16(b, offset + 2, v);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Packet p && Arrays.equals(bytes, p.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }
}
