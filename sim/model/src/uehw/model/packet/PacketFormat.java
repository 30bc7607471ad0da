// SPDX-License-Identifier: Apache-2.0
package uehw.model.packet;

/**
 * The project's packet format (docs/packet-format.md) for the models, which depend on nothing:
 * every byte offset and code of uehw.hw.common.PacketFormat, the RTL's description, under the same
 * names. PacketFormatTest checks field by field that the two are equal.
 */
public final class PacketFormat {
    private PacketFormat() {
    }

    // Ethernet II
    public static final int EthDst = 0;
    public static final int EthSrc = 6;
    public static final int EthType = 12;
    public static final int EthHeaderBytes = 14;
    public static final int EthTypeIpv4 = 0x0800;
    public static final int EthTypeIpv6 = 0x86DD;

    // IPv4 (IHL = 5)
    public static final int Ipv4VersionIhl = 14;
    public static final int Ipv4Tos = 15; // DSCP (6 bits) and ECN (2 bits)
    public static final int Ipv4TotalLength = 16;
    /** Flags (bit 15 reserved, 14 DF, 13 MF) and the 13-bit fragment offset (RFC 791). */
    public static final int Ipv4FlagsFragment = 20;
    public static final int Ipv4MoreFragments = 0x2000;
    public static final int Ipv4FragmentOffsetMask = 0x1FFF;
    public static final int Ipv4Ttl = 22;
    public static final int Ipv4Protocol = 23;
    public static final int Ipv4Checksum = 24;
    public static final int Ipv4Src = 26;
    public static final int Ipv4Dst = 30;
    public static final int Ipv4HeaderBytes = 20;

    // IPv6: traffic class = bits 3:0 of byte 14 and 7:4 of byte 15; ECN = bits 5:4 of byte 15.
    public static final int Ipv6VersionTc = 14;
    public static final int Ipv6TcFlow = 15;
    public static final int Ipv6PayloadLength = 18;
    public static final int Ipv6NextHeader = 20;
    public static final int Ipv6HopLimit = 21;
    public static final int Ipv6Src = 22;
    public static final int Ipv6Dst = 38;
    public static final int Ipv6HeaderBytes = 40;

    public static final int ProtocolUdp = 17;
    public static final int UdpHeaderBytes = 8;
    /** UDP offsets relative to the UDP header. The source port carries the entropy value (REPS). */
    public static final int UdpSrcPort = 0;
    public static final int UdpDstPort = 2;
    public static final int UdpLength = 4;
    public static final int UdpChecksum = 6;
    /** Default UDP destination port of the transport (a generation parameter where it matters). */
    public static final int TransportUdpPort = 0xCAFE;

    /** Transport header offsets relative to its first byte (right after UDP). */
    public static final int TpFlowId = 0; // 32-bit flow / message id
    public static final int TpSequence = 4; // 32-bit packet sequence number (for ACK/NACK: the one acknowledged)
    public static final int TpFlags = 8;
    public static final int TpVersionTokens = 9; // version in bits 7:4 (= TransportVersion), Dart deflection tokens in bits 3:0
    public static final int TpEchoedEntropy = 10; // ACK/NACK: the UDP source port (entropy) of the packet acknowledged
    public static final int TransportHeaderBytes = 12;
    public static final int TransportVersion = 1;

    // TpFlags bits
    public static final int FlagAck = 0x01;
    public static final int FlagNack = 0x02;
    public static final int FlagTrimmed = 0x04;
    public static final int FlagEcnEcho = 0x08;
    public static final int FlagMessageStart = 0x10;
    public static final int FlagMessageEnd = 0x20;
    /** A PULL: RCCC's credit, the receiver asks the sender for more bytes. */
    public static final int FlagPull = 0x40;
    /** A packet with any of these flags is a control packet (strict-priority queue, never trimmed). */
    public static final int ControlFlags = FlagAck | FlagNack | FlagTrimmed | FlagPull;

    // ECN codepoints (RFC 3168)
    public static final int EcnNotEct = 0;
    public static final int EcnEct1 = 1;
    public static final int EcnEct0 = 2;
    public static final int EcnCe = 3;

    /** First byte of UDP, and of the transport header, for each IP version. */
    public static final int Ipv4UdpOffset = EthHeaderBytes + Ipv4HeaderBytes;
    public static final int Ipv6UdpOffset = EthHeaderBytes + Ipv6HeaderBytes;
    public static final int Ipv4TransportOffset = Ipv4UdpOffset + UdpHeaderBytes;
    public static final int Ipv6TransportOffset = Ipv6UdpOffset + UdpHeaderBytes;
    /** All headers: 54 bytes over IPv4, 74 over IPv6. */
    public static final int Ipv4AllHeaderBytes = Ipv4TransportOffset + TransportHeaderBytes;
    public static final int Ipv6AllHeaderBytes = Ipv6TransportOffset + TransportHeaderBytes;

    /** The NIC engine's 10-byte extension after the transport header (docs/packet-format.md), offsets relative to it. */
    public static final int ExtTimestamp = 0;
    public static final int ExtNumber = 4;
    public static final int ExtRcvWndPen = 8;
    /** NACK: bit 0 = trimmed at the last hop; ACK: DASR's n (the receiver's active senders, 0 = none). */
    public static final int ExtHopFlags = 9;
    public static final int ExtensionBytes = 10;
    public static final int ExtLastHop = 0x01;
    public static final int Ipv4ExtensionOffset = Ipv4AllHeaderBytes;
    public static final int Ipv6ExtensionOffset = Ipv6AllHeaderBytes;
    /** The engine's control frame: all headers and the extension, 64 B over IPv4, 84 over IPv6. */
    public static final int Ipv4ControlFrameBytes = Ipv4AllHeaderBytes + ExtensionBytes;
    public static final int Ipv6ControlFrameBytes = Ipv6AllHeaderBytes + ExtensionBytes;
}
