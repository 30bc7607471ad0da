// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Arrays;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import uehw.model.nic.ControlFrames;
import uehw.model.nic.ControlFrames.Control;
import uehw.model.packet.Packet;
import uehw.model.packet.PacketFormat;

/**
 * The engine's control frames (docs/packet-format.md, "The engine extension") against bytes written
 * by hand, and each drop reason of docs/nic-engine.md's table from one frame made to fail it, so that
 * the model the receiver's RTL is compared with is the page's.
 */
@Tag("model")
@ExtendWith(BenchExtension.class)
class ControlFramesTest {
    static final int PORT = PacketFormat.TransportUdpPort;
    static final Control ACK = new Control(ControlFrames.ACK, 999, 0x89ABCDEFL, true, 0xBEEF, 0xFEDCBA98L, 0x01020304L, 255, false);

    static ControlFrames.Result receive(byte[] f) {
        return ControlFrames.receive(f, false, false, PORT, 1000, 128);
    }

    @Test
    void anIpv4ControlFrameIsSixtyFourBytesWithTheExtensionAtFiftyFour() {
        byte[] f = ControlFrames.build(ACK, false, 0x1234, 0);
        assertEquals(64, f.length);
        // transport header at 42: flow, sequence, flags (ACK | ECN_ECHO), version 1, echoed entropy
        assertEquals("000003e789abcdef0910beef", hex(f, 42, 12));
        // extension at 54: timestamp, number, window penalty, hop flags
        assertEquals("fedcba9801020304ff00", hex(f, 54, 10));
        assertEquals(true, new Packet(f).ipv4HeaderVerifies());
        assertEquals(true, new Packet(f).udpVerifies());
        assertEquals(84, ControlFrames.build(ACK, true, 1, 0).length);
    }

    @Test
    void eachKindRoundTrips() {
        for (int kind = 0; kind < 3; kind++) {
            for (boolean v6 : new boolean[] {false, true}) {
                Control c = new Control(kind, kind * 333, 7L + kind, kind == 1, 3, 0xFFFFFFFFL, 1L << 31, kind, kind == 1);
                ControlFrames.Result r = receive(ControlFrames.build(c, v6, 9, kind * 10));
                assertEquals(ControlFrames.TAKEN, r.reason(), "kind " + kind);
                assertEquals(c, r.control());
            }
        }
        // the flags byte on the wire: ACK 0x01, NACK 0x02, PULL 0x40
        assertEquals(0x40, ControlFrames.build(new Control(ControlFrames.PULL, 1, 1, false, 0, 0, 0, 0, false), false, 1, 0)[50]);
    }

    @Test
    void eachReasonFromAFrameThatFailsIt() {
        byte[] good = ControlFrames.build(ACK, false, 1, 0);
        assertEquals(ControlFrames.BAD, ControlFrames.receive(good, true, true, PORT, 1000, 128).reason());
        assertEquals(ControlFrames.MALFORMED, ControlFrames.receive(good, false, true, PORT, 1000, 128).reason());
        assertEquals(ControlFrames.OVERSIZE, receive(ControlFrames.build(ACK, false, 1, 65)).reason()); // 129 B
        assertEquals(ControlFrames.TAKEN, receive(ControlFrames.build(ACK, false, 1, 64)).reason());   // 128 B
        assertEquals(ControlFrames.RUNT, receive(Arrays.copyOf(good, 63)).reason());
        assertEquals(ControlFrames.RUNT, receive(Arrays.copyOf(ControlFrames.build(ACK, true, 1, 0), 83)).reason());
        byte[] f = good.clone();
        f[PacketFormat.Ipv4Checksum] ^= 1;
        assertEquals(ControlFrames.CHECKSUM, receive(f).reason());
        f = good.clone();
        f[PacketFormat.Ipv4UdpOffset + PacketFormat.UdpDstPort] ^= 1;
        assertEquals(ControlFrames.FOREIGN, receive(f).reason());
        f = good.clone();
        f[51] = 0x20; // version 2
        assertEquals(ControlFrames.FOREIGN, receive(f).reason());
        f = good.clone();
        f[12] = (byte) 0x88; // not IP: a frame past its Ethernet header is no runt
        assertEquals(ControlFrames.FOREIGN, receive(f).reason());
        assertEquals(ControlFrames.NOT_CONTROL, receive(ControlFrames.build(ACK, PacketFormat.FlagMessageStart, false, 1, 0)).reason());
        assertEquals(ControlFrames.NOT_CONTROL, receive(ControlFrames.build(ACK, PacketFormat.FlagNack | PacketFormat.FlagTrimmed, false, 1, 0)).reason());
        assertEquals(ControlFrames.BAD_FLAGS, receive(ControlFrames.build(ACK, PacketFormat.FlagAck | PacketFormat.FlagPull, false, 1, 0)).reason());
        Control far = new Control(ControlFrames.ACK, 1000, 0, false, 0, 0, 0, 0, false);
        ControlFrames.Result r = receive(ControlFrames.build(far, false, 1, 0));
        assertEquals(ControlFrames.OUT_OF_RANGE, r.reason());
        assertNull(r.control());
    }

    private static String hex(byte[] b, int from, int n) {
        StringBuilder s = new StringBuilder();
        for (int i = from; i < from + n; i++) {
            s.append(String.format("%02x", b[i] & 0xFF));
        }
        return s.toString();
    }
}
