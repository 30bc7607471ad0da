// SPDX-License-Identifier: Apache-2.0
package uehw.model.nic;

import static uehw.model.packet.PacketFormat.*;

import uehw.model.packet.Packet;
import uehw.model.trim.TrimClassifier;

/**
 * The NIC engine's control frames (docs/packet-format.md, "The engine extension"; docs/nic-engine.md,
 * "Receiving control frames"): building them, and what the engine's receiver makes of any frame,
 * written from those pages. The Ethernet, IP and UDP rules are the trimming queue's classifier's.
 */
public final class ControlFrames {
    private ControlFrames() {
    }

    public static final int ACK = 0;
    public static final int NACK = 1;
    public static final int PULL = 2;

    /** Why a frame is dropped, in priority order (the first that applies); TAKEN: its control is valid. */
    public static final int TAKEN = 0;
    public static final int BAD = 1;
    public static final int MALFORMED = 2;
    public static final int OVERSIZE = 3;
    public static final int RUNT = 4;
    public static final int CHECKSUM = 5;
    public static final int FOREIGN = 6;
    public static final int NOT_CONTROL = 7;
    public static final int BAD_FLAGS = 8;
    public static final int OUT_OF_RANGE = 9;
    public static final int REASONS = 10;

    /**
     * A control frame's contents. flowId, psn, timestamp and number are unsigned 32-bit values;
     * entropy the echoed entropy; rcvWndPen 255 for none. The extension's byte 9 is one byte for
     * two readers: a NACK's bit 0 is lastHop, an ACK's whole byte is activeSenders (DASR's n, 0:
     * none); the record keeps them one byte (bit 0 of activeSenders is lastHop).
     */
    public record Control(int kind, long flowId, long psn, boolean ecnEcho, int entropy, long timestamp, long number,
                          int rcvWndPen, boolean lastHop, int activeSenders) {
        public Control {
            if (activeSenders < 0 || activeSenders > 255) {
                throw new IllegalArgumentException("activeSenders " + activeSenders + " is outside 0..255");
            }
            lastHop = lastHop || (activeSenders & ExtLastHop) != 0;
            activeSenders |= lastHop ? ExtLastHop : 0;
        }

        /** Without DASR's n (byte 9 is lastHop's bit alone). */
        public Control(int kind, long flowId, long psn, boolean ecnEcho, int entropy, long timestamp, long number, int rcvWndPen,
                       boolean lastHop) {
            this(kind, flowId, psn, ecnEcho, entropy, timestamp, number, rcvWndPen, lastHop, 0);
        }

        /** The flags byte: one of ACK, NACK, PULL, and ECN_ECHO. */
        public int flags() {
            int k = switch (kind) {
                case ACK -> FlagAck;
                case NACK -> FlagNack;
                case PULL -> FlagPull;
                default -> throw new IllegalArgumentException("kind " + kind);
            };
            return k | (ecnEcho ? FlagEcnEcho : 0);
        }
    }

    /** What the receiver makes of a frame: the reason, and for TAKEN the control (flow id within the flows). */
    public record Result(int reason, Control control) {
    }

    /** A control frame with valid checksums, padded with {@code padBytes} bytes after the extension. */
    public static byte[] build(Control c, boolean ipv6, int udpSourcePort, int padBytes) {
        return build(c, c.flags(), ipv6, udpSourcePort, padBytes);
    }

    /** As {@link #build(Control, boolean, int, int)} with the flags byte given. */
    public static byte[] build(Control c, int flags, boolean ipv6, int udpSourcePort, int padBytes) {
        Packet p = Packet.transport(new Packet.Fields(ipv6, 0, 0, udpSourcePort, (int) c.flowId(), (int) c.psn(), flags, 0,
                c.entropy()), ExtensionBytes + padBytes, (int) c.psn());
        byte[] b = p.bytes;
        int e = ipv6 ? Ipv6ExtensionOffset : Ipv4ExtensionOffset;
        Packet.put32(b, e + ExtTimestamp, (int) c.timestamp());
        Packet.put32(b, e + ExtNumber, (int) c.number());
        b[e + ExtRcvWndPen] = (byte) c.rcvWndPen();
        b[e + ExtHopFlags] = (byte) c.activeSenders();
        p.fixChecksums();
        return b;
    }

    /**
     * The receiver's result for a frame of {@code frame.length} bytes: {@code bad} if tuser marked a
     * beat, {@code malformed} if tkeep left a byte off before the last beat.
     */
    public static Result receive(byte[] f, boolean bad, boolean malformed, int udpPort, int flows, int maxFrameBytes) {
        if (bad) {
            return new Result(BAD, null);
        }
        if (malformed) {
            return new Result(MALFORMED, null);
        }
        int n = f.length;
        if (n > maxFrameBytes) {
            return new Result(OVERSIZE, null);
        }
        TrimClassifier.Verdict v = TrimClassifier.classify(f, udpPort);
        int controlBytes = v.ipv6() ? Ipv6ControlFrameBytes : Ipv4ControlFrameBytes;
        if (v.runt() || v.transport() && n < controlBytes) {
            return new Result(RUNT, null);
        }
        if (v.badIpv4Checksum()) {
            return new Result(CHECKSUM, null);
        }
        int tp = v.ipv6() ? Ipv6TransportOffset : Ipv4TransportOffset;
        if (!v.transport() || (f[tp + TpVersionTokens] & 0xF0) >> 4 != TransportVersion) {
            return new Result(FOREIGN, null);
        }
        int flags = f[tp + TpFlags] & 0xFF;
        boolean ack = (flags & FlagAck) != 0;
        boolean nack = (flags & FlagNack) != 0;
        boolean pull = (flags & FlagPull) != 0;
        if ((flags & FlagTrimmed) != 0 || !(ack || nack || pull)) {
            return new Result(NOT_CONTROL, null);
        }
        if ((ack ? 1 : 0) + (nack ? 1 : 0) + (pull ? 1 : 0) > 1) {
            return new Result(BAD_FLAGS, null);
        }
        Packet p = new Packet(f);
        long flowId = p.get32(tp + TpFlowId);
        if (flowId >= flows) {
            return new Result(OUT_OF_RANGE, null);
        }
        int e = tp + TransportHeaderBytes;
        return new Result(TAKEN, new Control(pull ? PULL : nack ? NACK : ACK, flowId, p.get32(tp + TpSequence),
                (flags & FlagEcnEcho) != 0, p.get16(tp + TpEchoedEntropy), p.get32(e + ExtTimestamp), p.get32(e + ExtNumber),
                f[e + ExtRcvWndPen] & 0xFF, false, f[e + ExtHopFlags] & 0xFF));
    }
}
