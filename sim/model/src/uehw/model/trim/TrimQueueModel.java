// SPDX-License-Identifier: Apache-2.0
package uehw.model.trim;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumMap;
import java.util.Map;

import uehw.model.Counters;
import uehw.model.Xorshift32;

/**
 * Golden model of the trimming egress queue (docs/trimming-queue.md), written from the rules,
 * not from the RTL, in the queue's parts: the classification's verdict per frame
 * (TrimClassifier), admission by bytes / beats / descriptors and RED at dequeue with the same
 * xorshift32 draw per data packet (TrimRules), the trimmed header and the CE mark with their
 * checksums recomputed in full (TrimHeaders), and here the queues, their occupancies and the
 * counters. The queues'
 * contents are the frames each queue will send, in order. Occupancies change at admission
 * and at dequeue (when a packet is handed to its reader, before it streams); {@link #clock}
 * applies one clock's events together, every decision seeing the occupancies from before that
 * clock. The admission and dequeue times are the RTL's (replayed). Strict priority concerns the
 * output, not the dequeue: TrimQueueTest checks it on the output's packet starts with
 * {@link #CONTROL_VISIBLE_AFTER}.
 * IPv4 fragments are other IP (never trimmed); an IPv4 header with a wrong checksum (RFC 791) is
 * counted and never repaired: not trimmed (dropped as DROP_DATA_FULL instead), not marked.
 */
public final class TrimQueueModel {
    public enum Outcome {
        DATA(null), CONTROL(null), TRIM("TRIMMED"), DROP_BAD_FRAME("DROP_BAD_FRAME"), DROP_OVERSIZE("DROP_OVERSIZE"),
        DROP_MALFORMED("DROP_MALFORMED"), DROP_RUNT("DROP_RUNT"), DROP_CONTROL_FULL("DROP_CONTROL_FULL"),
        DROP_CONTROL_OVERSIZE("DROP_CONTROL_OVERSIZE"), DROP_DATA_FULL("DROP_DATA_FULL"), DROP_TRIM_FULL("DROP_TRIM_FULL");

        /** The count register of the outcome, or null: data and control are counted where they leave (OUT_*). */
        public final String register;

        Outcome(String register) {
            this.register = register;
        }
    }

    /** A data frame waiting, with what RED needs. */
    record Waiting(byte[] frame, boolean ip, boolean ipv4, boolean ecnCapable) {
    }

    /**
     * What the RTL reported for a dequeue at one clock (from its dequeue Flow), or, with a negative
     * occupancy, what TrimQueueTiming predicts: the model then makes the RED decision without a
     * report to check it against.
     */
    public record Dequeue(boolean start, int queue, long occupancy, boolean marked, boolean dropped, boolean trimPop) {
        public static Dequeue predicted(boolean start, int queue, boolean trimPop) {
            return new Dequeue(start, queue, -1, false, false, trimPop);
        }

        boolean reported() {
            return occupancy >= 0;
        }
    }

    public static final int QUEUE_CONTROL = 0;
    public static final int QUEUE_DATA = 2;
    /**
     * Clocks from a control packet's admission edge until the output can choose it (its first
     * beat in the control prefetch FIFO): the length FIFO and its head register, the dequeue, the
     * reader's command FIFO, the RAM read and its register. A data packet may start before that
     * clock, never from it on while the control packet waits.
     */
    public static final int CONTROL_VISIBLE_AFTER = 9;

    // generation parameters
    public final int bytesPerBeat;
    public final long capacity;
    public final long controlCapacity;
    public final int trimEntries;
    public final int trimBytes;
    public final int maxFrame;
    public final int maxControl;
    public final int dataDescriptors;
    public final int controlDescriptors;
    public final long dataBeatLimit;
    public final long controlBeatLimit;

    // CSRs
    public long kMin;
    public long kMax;
    public boolean dropNonEct;
    public int trimDscp;
    public int udpPort;
    private final Xorshift32 prng;

    // state
    public long dataBytes, dataBeats, dataDescs, controlBytes, controlBeats, controlDescs, trimWaiting;
    public long dataHighWater, controlHighWater;
    private final Deque<Waiting> dataQueue = new ArrayDeque<>();
    /** Frames each queue will send, in order. */
    public final Deque<byte[]> expectedData = new ArrayDeque<>();
    public final Deque<byte[]> expectedControl = new ArrayDeque<>();
    public final Deque<byte[]> expectedTrimmed = new ArrayDeque<>();

    // counters
    public final Map<Outcome, Long> outcomes = new EnumMap<>(Outcome.class);
    /** The events counted, by the name of the block's count register (docs: its CSR table). */
    public final Counters counters = new Counters("IN_PACKETS", "IN_BYTES", "TRIMMED", "MARKED", "DROP_BAD_FRAME", "DROP_OVERSIZE",
            "DROP_MALFORMED", "DROP_RUNT", "DROP_CONTROL_FULL", "DROP_CONTROL_OVERSIZE", "DROP_DATA_FULL", "DROP_TRIM_FULL",
            "DROP_NON_ECT", "NON_ECT_ABOVE_KMAX", "NON_IP", "BAD_IPV4_CHECKSUM");
    /** Admitted frames (data or control) whose IPv4 header checksum is wrong, by identity: they must leave unchanged. */
    private final java.util.Set<byte[]> admittedBadChecksum = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    /** The last frame admitted to the data queue. */
    public byte[] lastAdmittedData;
    /** The last data dequeue's decision: dropped (CONTROL.DROP_NON_ECT), its beats skipped. */
    public boolean lastDequeueDropped;
    /** Clocks applied so far (the index of the current {@link #clock} call). */
    private long clockIndex;
    /** Every ECN-capable IP data frame's dequeue: {occupancy, 1 if marked, KMIN, KMAX}. */
    public final java.util.List<long[]> redSamples = new java.util.ArrayList<>();

    public TrimQueueModel(int bytesPerBeat, long capacity, long controlCapacity, int trimEntries, int trimBytes, int maxFrame,
                          int maxControl, int udpPort, int trimDscp, long seed) {
        this.bytesPerBeat = bytesPerBeat;
        this.capacity = capacity;
        this.controlCapacity = controlCapacity;
        this.trimEntries = trimEntries;
        this.trimBytes = trimBytes;
        this.maxFrame = maxFrame;
        this.maxControl = maxControl;
        this.udpPort = udpPort;
        this.trimDscp = trimDscp;
        this.kMin = capacity / 5;
        this.kMax = capacity * 4 / 5;
        this.prng = new Xorshift32(seed);
        this.dataDescriptors = (int) Math.max(2, capacity / 64);
        this.controlDescriptors = (int) Math.max(2, controlCapacity / 64);
        this.dataBeatLimit = (capacity + bytesPerBeat - 1) / bytesPerBeat * 5 / 4;
        this.controlBeatLimit = (controlCapacity + bytesPerBeat - 1) / bytesPerBeat * 5 / 4;
        for (Outcome o : Outcome.values()) {
            outcomes.put(o, 0L);
        }
    }

    public void reseed(long seed) {
        prng.reseed(seed);
    }

    private long beats(long length) {
        return (length + bytesPerBeat - 1) / bytesPerBeat;
    }

    /** Admission of a frame whose tlast was taken this clock; call inside {@link #clock}. */
    private Outcome admit(byte[] f, boolean bad, boolean malformed, long wireBytes) {
        counters.inc("IN_PACKETS");
        counters.add("IN_BYTES", wireBytes);
        long n = f.length;
        Outcome o;
        TrimClassifier.Verdict p = TrimClassifier.classify(f, udpPort);
        if (bad) {
            o = Outcome.DROP_BAD_FRAME;
        } else if (n > maxFrame) {
            o = Outcome.DROP_OVERSIZE;
        } else if (malformed) {
            o = Outcome.DROP_MALFORMED;
        } else if (p.runt()) {
            o = Outcome.DROP_RUNT;
        } else if (p.control() && n > maxControl) {
            o = Outcome.DROP_CONTROL_OVERSIZE;
        } else {
            boolean controlFits = controlBytes + n <= controlCapacity && controlBeats + beats(n) <= controlBeatLimit
                    && controlDescs < controlDescriptors;
            boolean dataFits = dataBytes + n <= capacity && dataBeats + beats(n) <= dataBeatLimit && dataDescs < dataDescriptors;
            // trimmable: the transport, with a header to be trusted
            o = switch (TrimRules.admit(p.control(), controlFits, dataFits, p.transport() && !p.badIpv4Checksum(),
                    trimWaiting < trimEntries)) {
                case CONTROL -> Outcome.CONTROL;
                case DATA -> Outcome.DATA;
                case TRIM -> Outcome.TRIM;
                case DROP_CONTROL_FULL -> Outcome.DROP_CONTROL_FULL;
                case DROP_DATA_FULL -> Outcome.DROP_DATA_FULL;
                case DROP_TRIM_FULL -> Outcome.DROP_TRIM_FULL;
            };
        }
        boolean classified = !bad && n <= maxFrame && !malformed && !p.runt();
        if (classified && !p.ip()) {
            counters.inc("NON_IP");
        }
        if (classified && p.badIpv4Checksum()) {
            counters.inc("BAD_IPV4_CHECKSUM");
        }
        outcomes.merge(o, 1L, Long::sum);
        if (o.register != null) {
            counters.inc(o.register);
        }
        return o;
    }

    /**
     * One clock: the dequeue the RTL reported for it (or null), and the frame whose tlast it took
     * (or null) with the bytes it took on the bus (its length, less any byte lanes a malformed
     * frame left off). Decisions use the occupancies before the clock; returns the admission outcome.
     */
    public Outcome clock(Dequeue d, byte[] frame, boolean bad, boolean malformed, long wireBytes) {
        long dataOut = 0, dataBeatsOut = 0, dataDescOut = 0, controlOut = 0, controlBeatsOut = 0, controlDescOut = 0, trimOut = 0;
        if (d != null && d.start()) {
            if (d.queue() == QUEUE_DATA) {
                Waiting w = dataQueue.poll();
                if (w == null) {
                    throw new AssertionError("data dequeue with the model's data queue empty");
                }
                long occ = dataBytes;
                boolean congested = TrimRules.congested(prng, occ, kMin, kMax);
                boolean mark = congested && w.ip() && w.ecnCapable();
                boolean drop = dropNonEct && w.ip() && !w.ecnCapable() && occ >= kMax;
                lastDequeueDropped = drop;
                if (d.reported() && (d.occupancy() != occ || d.marked() != mark || d.dropped() != drop)) {
                    throw new AssertionError(String.format("data dequeue: RTL occupancy %d marked %b dropped %b, model %d %b %b",
                            d.occupancy(), d.marked(), d.dropped(), occ, mark, drop));
                }
                if (mark) {
                    counters.inc("MARKED");
                }
                if (w.ip() && w.ecnCapable()) {
                    redSamples.add(new long[] {occ, mark ? 1 : 0, kMin, kMax});
                }
                if (drop) {
                    counters.inc("DROP_NON_ECT");
                } else {
                    if (w.ip() && !w.ecnCapable() && occ >= kMax) {
                        counters.inc("NON_ECT_ABOVE_KMAX");
                    }
                    expectedData.add(mark ? TrimHeaders.markCe(w.frame(), w.ipv4()) : w.frame());
                }
                dataOut = w.frame().length;
                dataBeatsOut = beats(dataOut);
                dataDescOut = 1;
            } else if (d.queue() == QUEUE_CONTROL) {
                long[] c = pendingControl.poll();
                if (c == null) {
                    throw new AssertionError("control dequeue with the model's control queue empty");
                }
                controlOut = c[0];
                controlBeatsOut = beats(controlOut);
                controlDescOut = 1;
            }
        }
        if (d != null && d.trimPop()) {
            trimOut = 1;
        }
        Outcome o = null;
        long dataIn = 0, controlIn = 0, trimIn = 0;
        if (frame != null) {
            o = admit(frame, bad, malformed, wireBytes);
            TrimClassifier.Verdict p = TrimClassifier.classify(frame, udpPort);
            boolean trusted = !p.badIpv4Checksum(); // else left unchanged: not marked, not dropped as non-ECT
            if ((o == Outcome.DATA || o == Outcome.CONTROL) && !trusted) {
                admittedBadChecksum.add(frame);
            }
            switch (o) {
                case DATA -> {
                    dataQueue.add(new Waiting(frame, p.ip() && trusted, p.ipv4() && trusted, p.ecnCapable() && trusted));
                    lastAdmittedData = frame;
                    dataIn = frame.length;
                }
                case CONTROL -> {
                    expectedControl.add(frame);
                    pendingControl.add(new long[] {frame.length, clockIndex});
                    controlIn = frame.length;
                }
                case TRIM -> {
                    expectedTrimmed.add(trimmed(frame, p.ipv6()));
                    trimIn = 1;
                }
                default -> {
                }
            }
        }
        dataBytes += dataIn - dataOut;
        dataBeats += beats(dataIn) - dataBeatsOut;
        dataDescs += (dataIn > 0 ? 1 : 0) - dataDescOut;
        controlBytes += controlIn - controlOut;
        controlBeats += beats(controlIn) - controlBeatsOut;
        controlDescs += (controlIn > 0 ? 1 : 0) - controlDescOut;
        trimWaiting += trimIn - trimOut;
        dataHighWater = Math.max(dataHighWater, dataBytes);
        controlHighWater = Math.max(controlHighWater, controlBytes);
        clockIndex++;
        return o;
    }

    /** Control packets admitted and not yet started: {length, clock of admission}. */
    private final Deque<long[]> pendingControl = new ArrayDeque<>();

    /** The frame (an expected output, by identity) was admitted with a wrong IPv4 header checksum. */
    public boolean admittedWithBadIpv4Checksum(byte[] expected) {
        return admittedBadChecksum.contains(expected);
    }

    /** Forgets a frame that left (keeps the identity set small). */
    public void left(byte[] expected) {
        admittedBadChecksum.remove(expected);
    }

    /** Sec. 2.1: the trimmed header of {@code frame} with this queue's TRIM_BYTES and TRIM_DSCP (TrimHeaders.trimmed). */
    public byte[] trimmed(byte[] frame, boolean ipv6) {
        return TrimHeaders.trimmed(frame, ipv6, trimBytes, trimDscp);
    }

    public long outcome(Outcome o) {
        return outcomes.get(o);
    }
}
