// SPDX-License-Identifier: Apache-2.0
package uehw.bench;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;

import spinal.lib.bus.amba4.axis.Axi4Stream;
import uehw.bench.facade.Sim;

/**
 * Whole packets over AXI4-Stream (tdata, tkeep, tlast, tuser): a driver that splits packets into
 * beats (little-endian: byte 0 in tdata[7:0]) with random idle, and a monitor that reassembles
 * them with random backpressure. tuser is carried per packet on its last beat.
 */
public final class Axi4StreamPackets {
    private Axi4StreamPackets() {
    }

    public record Packet(byte[] data, long user) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Packet p && java.util.Arrays.equals(data, p.data) && user == p.user;
        }

        @Override
        public int hashCode() {
            return java.util.Arrays.hashCode(data) * 31 + Long.hashCode(user);
        }

        @Override
        public String toString() {
            return "Packet[" + data.length + " bytes, user=" + user + "]";
        }
    }

    /** One AXI4-Stream beat: tdata (byte 0 in bits 7:0), tkeep, tlast, tuser (on the last beat). */
    public record Beat(BigInteger data, BigInteger keep, boolean last, long user) {
    }

    /** The beats of one packet for a bus of {@code bytesPerBeat}. */
    public static List<Beat> beats(Packet p, int bytesPerBeat) {
        List<Beat> out = new ArrayList<>();
        for (int off = 0; off < p.data().length || off == 0; off += bytesPerBeat) {
            BigInteger data = BigInteger.ZERO;
            BigInteger keep = BigInteger.ZERO;
            int n = Math.min(bytesPerBeat, p.data().length - off);
            for (int i = 0; i < n; i++) {
                data = data.or(BigInteger.valueOf(p.data()[off + i] & 0xFF).shiftLeft(8 * i));
                keep = keep.setBit(i);
            }
            boolean last = off + bytesPerBeat >= p.data().length;
            out.add(new Beat(data, keep, last, last ? p.user() : 0));
            if (last) {
                break;
            }
        }
        return out;
    }

    /** Puts one beat on a bundle's tdata, tkeep, tlast and tuser (those the bundle has); valid is the caller's. */
    public static void poke(Sim<?> sim, Axi4Stream.Axi4StreamBundle p, Beat b) {
        sim.poke(p.data(), b.data());
        if (p.config().useKeep()) {
            sim.poke(p.keep(), b.keep());
        }
        if (p.config().useLast()) {
            sim.poke(p.last(), b.last());
        }
        if (p.config().useUser()) {
            sim.poke(p.user(), b.user());
        }
    }

    public static final class Driver {
        private final StreamDriver<Beat> beats;
        private final int bytesPerBeat;

        public Driver(Sim<?> sim, spinal.lib.Stream<Axi4Stream.Axi4StreamBundle> stream, Random random, double idleProbability) {
            this.bytesPerBeat = stream.payload().config().dataWidth();
            var p = stream.payload();
            this.beats = new StreamDriver<>(sim, stream.valid(), stream.ready(), (s, b) -> poke(s, p, b), random, idleProbability);
        }

        public void send(Packet packet) {
            beats(packet, bytesPerBeat).forEach(beats::push);
        }

        /** A malformed packet of two beats or more: its first beat has byte lane 1 off in tkeep. */
        public void sendWithKeepHole(Packet packet) {
            List<Beat> b = beats(packet, bytesPerBeat);
            if (b.size() < 2) {
                throw new IllegalArgumentException("a keep hole needs a packet of two beats or more");
            }
            Beat first = b.get(0);
            b.set(0, new Beat(first.data(), first.keep().clearBit(1), first.last(), first.user()));
            b.forEach(beats::push);
        }

        public boolean idle() {
            return beats.idle();
        }

        public void beforeEdge() {
            beats.beforeEdge();
        }

        /** Returns true when the last beat of a packet was taken at this edge. */
        public boolean afterEdge() {
            Beat b = beats.afterEdge();
            return b != null && b.last();
        }
    }

    public static final class Monitor {
        private final StreamMonitor<Beat> beats;
        private final ByteArrayOutputStream current = new ByteArrayOutputStream();
        private long packets;

        public Monitor(Sim<?> sim, spinal.lib.Stream<Axi4Stream.Axi4StreamBundle> stream, Consumer<Packet> sink, Random random,
                       double backpressure) {
            int bytes = stream.payload().config().dataWidth();
            var p = stream.payload();
            this.beats = StreamMonitor.sink(sim, stream.valid(), stream.ready(), s -> new Beat(
                    s.peekBig(p.data()),
                    stream.payload().config().useKeep() ? s.peekBig(p.keep()) : BigInteger.ONE.shiftLeft(bytes).subtract(BigInteger.ONE),
                    !stream.payload().config().useLast() || s.peekBool(p.last()),
                    stream.payload().config().useUser() ? s.peek(p.user()) : 0), beat -> {
                        for (int i = 0; i < bytes; i++) {
                            if (beat.keep().testBit(i)) {
                                current.write(beat.data().shiftRight(8 * i).intValue() & 0xFF);
                            }
                        }
                        if (beat.last()) {
                            packets++;
                            sink.accept(new Packet(current.toByteArray(), beat.user()));
                            current.reset();
                        }
                    }, random, backpressure);
        }

        public long packets() {
            return packets;
        }

        public void beforeEdge() {
            beats.beforeEdge();
        }

        public void afterEdge() {
            beats.afterEdge();
        }
    }
}
