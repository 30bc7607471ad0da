// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import uehw.hw.common.PacketFormat;
import uehw.model.packet.InternetChecksum;
import uehw.model.packet.Packet;

/** docs/packet-format.md: the shared offsets against the RFCs, the checksum routine, built packets. */
@Tag("model")
@ExtendWith(BenchExtension.class)
class PacketFormatTest {
    @Test
    void offsetsAreTheRfcLayouts() {
        int ip = 14; // after the Ethernet II header (IEEE 802.3: 6 + 6 + 2)
        assertEquals(ip, PacketFormat.EthHeaderBytes());
        assertEquals(ip + 1, PacketFormat.Ipv4Tos());          // RFC 791: version/IHL, TOS, total length ...
        assertEquals(ip + 2, PacketFormat.Ipv4TotalLength());
        assertEquals(ip + 6, PacketFormat.Ipv4FlagsFragment()); // flags (reserved, DF, MF) and the 13-bit offset
        assertEquals(0x2000, PacketFormat.Ipv4MoreFragments());
        assertEquals(0x1FFF, PacketFormat.Ipv4FragmentOffsetMask());
        assertEquals(ip + 9, PacketFormat.Ipv4Protocol());
        assertEquals(ip + 10, PacketFormat.Ipv4Checksum());
        assertEquals(ip + 12, PacketFormat.Ipv4Src());
        assertEquals(ip + 16, PacketFormat.Ipv4Dst());
        assertEquals(ip + 4, PacketFormat.Ipv6PayloadLength()); // RFC 8200
        assertEquals(ip + 6, PacketFormat.Ipv6NextHeader());
        assertEquals(ip + 8, PacketFormat.Ipv6Src());
        assertEquals(ip + 24, PacketFormat.Ipv6Dst());
        assertEquals(14 + 20 + 8 + 12, PacketFormat.Ipv4AllHeaderBytes());
        assertEquals(14 + 40 + 8 + 12, PacketFormat.Ipv6AllHeaderBytes());
        // The engine's control frame is one 64-byte beat over IPv4 (docs/packet-format.md).
        assertEquals(64, PacketFormat.Ipv4ControlFrameBytes());
        assertEquals(84, PacketFormat.Ipv6ControlFrameBytes());
    }

    /** The models' copy (uehw.model.packet.PacketFormat, no dependency) is the RTL's description, name for name. */
    @Test
    void theModelsFormatIsTheRtlsFieldForField() throws ReflectiveOperationException {
        int compared = 0;
        for (Field f : uehw.model.packet.PacketFormat.class.getDeclaredFields()) {
            if (!Modifier.isStatic(f.getModifiers())) {
                continue;
            }
            Method rtl = PacketFormat.class.getMethod(f.getName());
            assertEquals(rtl.invoke(null), f.get(null), f.getName());
            compared++;
        }
        long rtlFields = Arrays.stream(PacketFormat.class.getMethods())
                .filter(m -> Modifier.isStatic(m.getModifiers()) && m.getParameterCount() == 0 && m.getReturnType() == int.class).count();
        assertEquals(rtlFields, compared, "a field of uehw.hw.common.PacketFormat is missing from the models' copy");
    }

    @Test
    void checksumMatchesRfc1071AndAKnownIpv4Header() {
        // RFC 1071 Sec. 3: the words 0001 f203 f4f5 f6f7 sum to ddf2.
        byte[] rfc = HexFormat.of().parseHex("0001f203f4f5f6f7");
        assertEquals(0xDDF2, InternetChecksum.sum(rfc, 0, rfc.length, 0));
        assertEquals(0x220D, InternetChecksum.checksum(rfc, 0, rfc.length));
        // A widely quoted IPv4 header whose checksum is b861.
        byte[] header = HexFormat.of().parseHex("450000730000400040110000c0a80001c0a800c7");
        assertEquals(0xB861, InternetChecksum.checksum(header, 0, header.length));
        header[10] = (byte) 0xB8;
        header[11] = 0x61;
        assertTrue(InternetChecksum.verifies(header, 0, header.length));
    }

    @Test
    void builtPacketsCarryTheirFieldsAndVerify() {
        long seed = BenchExtension.seed();
        Random r = new Random(seed);
        for (int i = 0; i < 2000; i++) {
            boolean v6 = r.nextBoolean();
            var f = new Packet.Fields(v6, r.nextInt(64), r.nextInt(4), r.nextInt(65536), r.nextInt(), r.nextInt(),
                    r.nextInt(64), r.nextInt(16), r.nextInt(65536));
            int payload = r.nextInt(9000 - PacketFormat.Ipv6AllHeaderBytes());
            Packet p = Packet.transport(f, payload, r.nextInt());
            int headers = v6 ? PacketFormat.Ipv6AllHeaderBytes() : PacketFormat.Ipv4AllHeaderBytes();
            assertEquals(headers + payload, p.bytes.length);
            assertEquals(v6, p.isIpv6());
            assertEquals(f.ecn(), p.ecn());
            assertEquals(f.dscp(), p.dscp());
            assertEquals(f.flags(), p.flags());
            assertEquals(f.entropy(), p.get16(p.udpOffset() + PacketFormat.UdpSrcPort()));
            assertEquals(p.bytes.length - p.udpOffset(), p.get16(p.udpOffset() + PacketFormat.UdpLength()));
            assertEquals(p.bytes.length - 14 - (v6 ? 40 : 0),
                    p.get16(v6 ? PacketFormat.Ipv6PayloadLength() : PacketFormat.Ipv4TotalLength()));
            assertTrue(p.ipv4HeaderVerifies(), "seed " + seed);
            assertTrue(p.udpVerifies(), "seed " + seed);
            // Any flipped bit in the checked bytes is caught.
            int at = v6 ? p.udpOffset() + r.nextInt(p.bytes.length - p.udpOffset()) : 14 + r.nextInt(20);
            p.bytes[at] ^= (byte) (1 << r.nextInt(8));
            assertFalse(v6 ? p.udpVerifies() : p.ipv4HeaderVerifies(), "seed " + seed + ": flip at " + at + " not detected");
        }
    }

    @Test
    void aUdpLengthOutsideTheFrameDoesNotVerify() {
        for (boolean v6 : new boolean[] {false, true}) {
            var f = new Packet.Fields(v6, 0, 0, 0x1234, 7, 9, 0, 0, 0xBEEF);
            Packet p = Packet.transport(f, 100, 1);
            assertTrue(p.udpVerifies());
            int lengthAt = p.udpOffset() + PacketFormat.UdpLength();
            int udpLength = p.get16(lengthAt);
            // One byte past the frame (the defect a flipped high length bit once turned into an exception).
            p.bytes[lengthAt] = (byte) ((udpLength + 1) >> 8);
            p.bytes[lengthAt + 1] = (byte) (udpLength + 1);
            assertFalse(p.udpVerifies());
            p.bytes[lengthAt] = 0;
            p.bytes[lengthAt + 1] = 7; // shorter than the UDP header itself
            assertFalse(p.udpVerifies());
        }
    }
}
