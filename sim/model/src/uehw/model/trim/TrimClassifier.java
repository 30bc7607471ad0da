// SPDX-License-Identifier: Apache-2.0
package uehw.model.trim;

import static uehw.model.packet.PacketFormat.*;

import uehw.model.packet.InternetChecksum;

/**
 * The trimming queue's ingress classification, a verdict per frame (docs/trimming-queue.md,
 * "Classification and admission"): runt, IP version, the transport (UDP to UDP_PORT, not an IPv4
 * fragment), control (ACK, NACK or a trimmed header), ECN-capable, and whether a 20-byte IPv4
 * header's checksum fails (RFC 791: such a header is not to be trusted). Written from the rules,
 * not from the RTL.
 */
public final class TrimClassifier {
    private TrimClassifier() {
    }

    private static int u16(byte[] f, int o) {
        return (f[o] & 0xFF) << 8 | (f[o + 1] & 0xFF);
    }

    /** The frame's class, from docs/trimming-queue.md. */
    public record Verdict(boolean runt, boolean ip, boolean ipv4, boolean ipv6, boolean transport, boolean control, boolean ecnCapable,
                  boolean badIpv4Checksum) {
    }

    /** RFC 791: MF set or a non-zero fragment offset. */
    public static boolean ipv4Fragment(byte[] f) {
        return (u16(f, Ipv4FlagsFragment) & (Ipv4MoreFragments | Ipv4FragmentOffsetMask)) != 0;
    }

    public static Verdict classify(byte[] f, int udpPort) {
        int n = f.length;
        int type = n >= 14 ? u16(f, EthType) : -1;
        boolean v4Type = type == EthTypeIpv4;
        boolean v6Type = type == EthTypeIpv6;
        boolean runt = n < EthHeaderBytes || v4Type && n < Ipv4UdpOffset || v6Type && n < Ipv6UdpOffset;
        if (runt) {
            return new Verdict(true, false, false, false, false, false, false, false);
        }
        // A non-IP frame may end with its Ethernet header: it has no version byte.
        int versionIhl = n > Ipv4VersionIhl ? f[Ipv4VersionIhl] & 0xFF : 0;
        int version = versionIhl >> 4;
        boolean v4 = v4Type && version == 4;
        boolean v6 = v6Type && version == 6;
        boolean ihl5 = (versionIhl & 0xF) == 5;
        // Only a 20-byte header is verified (the others are never trimmed).
        boolean badChecksum = v4 && ihl5 && !InternetChecksum.verifies(f, EthHeaderBytes, Ipv4HeaderBytes);
        // A fragment has no transport header to trust (RFC 791): other IP.
        boolean udp = v4 && ihl5 && !ipv4Fragment(f) && (f[Ipv4Protocol] & 0xFF) == ProtocolUdp
                || v6 && (f[Ipv6NextHeader] & 0xFF) == ProtocolUdp;
        int udpAt = v6 ? Ipv6UdpOffset : Ipv4UdpOffset;
        if (udp && n < udpAt + UdpHeaderBytes) {
            return new Verdict(true, true, v4, v6, false, false, false, false); // shorter than its UDP header
        }
        boolean transport = udp && u16(f, udpAt + UdpDstPort) == udpPort;
        int headers = v6 ? Ipv6AllHeaderBytes : Ipv4AllHeaderBytes;
        if (transport && n < headers) {
            return new Verdict(true, true, v4, v6, true, false, false, false);
        }
        int flags = transport ? f[(v6 ? Ipv6TransportOffset : Ipv4TransportOffset) + TpFlags] & 0xFF : 0;
        int ecn = v6 ? (f[Ipv6TcFlow] >> 4) & 3 : v4 ? f[Ipv4Tos] & 3 : 0;
        return new Verdict(false, v4 || v6, v4, v6, transport, transport && (flags & ControlFlags) != 0,
                (v4 || v6) && ecn != EcnNotEct, badChecksum);
    }
}
