// SPDX-License-Identifier: Apache-2.0
package uehw.hw.common

/**
 * The project's packet format (docs/packet-format.md): Ethernet II + IPv4 (no options) or IPv6
 * (no extension headers) + UDP + the 12-byte uehw transport header. The one description of every
 * field's byte offset, shared by the RTL, the Java models and the tests. Offsets are from the
 * first byte of the Ethernet frame (destination MAC); multi-byte fields are big-endian.
 */
object PacketFormat {
  // Ethernet II
  val EthDst = 0
  val EthSrc = 6
  val EthType = 12
  val EthHeaderBytes = 14
  val EthTypeIpv4 = 0x0800
  val EthTypeIpv6 = 0x86DD

  // IPv4 (IHL = 5)
  val Ipv4VersionIhl = 14
  val Ipv4Tos = 15 // DSCP (6 bits) and ECN (2 bits)
  val Ipv4TotalLength = 16
  /** Flags (bit 15 reserved, 14 DF, 13 MF) and the 13-bit fragment offset (RFC 791). */
  val Ipv4FlagsFragment = 20
  val Ipv4MoreFragments = 0x2000
  val Ipv4FragmentOffsetMask = 0x1FFF
  val Ipv4Ttl = 22
  val Ipv4Protocol = 23
  val Ipv4Checksum = 24
  val Ipv4Src = 26
  val Ipv4Dst = 30
  val Ipv4HeaderBytes = 20

  // IPv6: traffic class = bits 3:0 of byte 14 and 7:4 of byte 15; ECN = bits 5:4 of byte 15.
  val Ipv6VersionTc = 14
  val Ipv6TcFlow = 15
  val Ipv6PayloadLength = 18
  val Ipv6NextHeader = 20
  val Ipv6HopLimit = 21
  val Ipv6Src = 22
  val Ipv6Dst = 38
  val Ipv6HeaderBytes = 40

  val ProtocolUdp = 17
  val UdpHeaderBytes = 8
  /** UDP offsets relative to the UDP header. The source port carries the entropy value (REPS). */
  val UdpSrcPort = 0
  val UdpDstPort = 2
  val UdpLength = 4
  val UdpChecksum = 6
  /** Default UDP destination port of the transport (a generation parameter where it matters). */
  val TransportUdpPort = 0xCAFE

  /** Transport header offsets relative to its first byte (right after UDP). */
  val TpFlowId = 0    // 32-bit flow / message id
  val TpSequence = 4  // 32-bit packet sequence number (for ACK/NACK: the one acknowledged)
  val TpFlags = 8
  val TpVersionTokens = 9 // version in bits 7:4 (= TransportVersion), Dart deflection tokens in bits 3:0
  val TpEchoedEntropy = 10 // ACK/NACK: the UDP source port (entropy) of the packet acknowledged
  val TransportHeaderBytes = 12
  val TransportVersion = 1

  // TpFlags bits
  val FlagAck = 0x01
  val FlagNack = 0x02
  val FlagTrimmed = 0x04
  val FlagEcnEcho = 0x08
  val FlagMessageStart = 0x10
  val FlagMessageEnd = 0x20
  /** A PULL (RCCC credit: the receiver asks for more bytes); a 64 B PULL carries the cumulative pull number, uec.cpp:2900-2910, 799-810. */
  val FlagPull = 0x40
  /** A packet with any of these flags is a control packet (strict-priority queue, never trimmed). */
  val ControlFlags: Int = FlagAck | FlagNack | FlagTrimmed | FlagPull

  // ECN codepoints (RFC 3168)
  val EcnNotEct = 0
  val EcnEct1 = 1
  val EcnEct0 = 2
  val EcnCe = 3

  /** First byte of UDP, and of the transport header, for each IP version. */
  val Ipv4UdpOffset: Int = EthHeaderBytes + Ipv4HeaderBytes
  val Ipv6UdpOffset: Int = EthHeaderBytes + Ipv6HeaderBytes
  val Ipv4TransportOffset: Int = Ipv4UdpOffset + UdpHeaderBytes
  val Ipv6TransportOffset: Int = Ipv6UdpOffset + UdpHeaderBytes
  /** All headers: 54 bytes over IPv4, 74 over IPv6. */
  val Ipv4AllHeaderBytes: Int = Ipv4TransportOffset + TransportHeaderBytes
  val Ipv6AllHeaderBytes: Int = Ipv6TransportOffset + TransportHeaderBytes

  /**
   * The NIC engine's extension (docs/packet-format.md, "The engine extension"): 10 bytes right after
   * the transport header of every packet a nic-cc NIC sends or takes. Offsets relative to its first byte.
   */
  val ExtTimestamp = 0   // data: the sender's transmit time, ns mod 2^32; ACK, NACK: echoed from the data packet
  val ExtNumber = 4      // ACK: cumulative bytes received of the flow mod 2^32; PULL: cumulative pull number (256 B quanta)
  val ExtRcvWndPen = 8   // ACK: the receiver's window penalty (NSCC rcvWndPen), 255 = none
  val ExtHopFlags = 9    // NACK: bit 0 = trimmed at the last hop, bits 7:1 reserved (0); ACK: DASR's n (the receiver's active senders, 0 = none)
  val ExtensionBytes = 10
  val ExtLastHop = 0x01
  /** First byte of the extension, and the engine's control frame (all headers and the extension): 64 B over IPv4, 84 over IPv6. */
  val Ipv4ExtensionOffset: Int = Ipv4AllHeaderBytes
  val Ipv6ExtensionOffset: Int = Ipv6AllHeaderBytes
  val Ipv4ControlFrameBytes: Int = Ipv4AllHeaderBytes + ExtensionBytes
  val Ipv6ControlFrameBytes: Int = Ipv6AllHeaderBytes + ExtensionBytes
}
