// SPDX-License-Identifier: Apache-2.0
package uehw.bench.trim;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Random;

import uehw.bench.Axi4StreamPackets;
import uehw.bench.AxiLite4Master;
import uehw.bench.EdgeActions;
import uehw.bench.facade.Sim;
import uehw.hw.trim.TrimQueue;
import uehw.hw.trim.TrimQueueConfig;
import uehw.hw.trim.TrimQueueIo;
import uehw.model.packet.Packet;
import uehw.model.trim.TrimQueueModel;

/**
 * Drives a TrimQueue next to a TrimQueueModel. Frames go in through the AXI4-Stream driver (random
 * idle); every clock the model applies the frame the RTL admitted (TrimQueue.admissionClocks after
 * its tlast was taken) and the dequeue the RTL reported, and every frame leaving m_axis (random
 * backpressure) must be the next frame of exactly one of the model's three queues, with valid
 * checksums (an IPv4 header that arrived with a wrong checksum must still fail: never repaired).
 */
public final class TrimQueueBench {
    public final Sim<TrimQueue> sim;
    public final TrimQueueIo io;
    public final TrimQueueConfig cfg;
    public final TrimQueueModel model;
    public final AxiLite4Master csr;
    private final Deque<Sent> sent = new ArrayDeque<>();
    private Axi4StreamPackets.Driver driver;
    private Axi4StreamPackets.Monitor monitor;
    /** Frames whose tlast was taken, until the edge that admits them (TrimQueue.admissionClocks later). */
    private final Deque<Admission> admissions = new ArrayDeque<>();
    public long outData, outControl, outTrimmed, outDataBytes, outControlBytes, outTrimmedBytes;
    /** Queue of each frame that left, in output order (0 control, 1 trimmed, 2 data). */
    public final List<Integer> outputOrder = new ArrayList<>();
    /** The clock of every output beat, when recording. */
    public final List<Long> outputBeatClocks = new ArrayList<>();
    public boolean recordBeats;
    private long clocks;
    /** When recording starts: the clock (edge) each output packet's first beat entered the output register, in output order. */
    public final List<Long> packetStarts = new ArrayList<>();
    /** When recording starts: the clock (edge) each control packet's tlast was taken, in admission (= output) order. */
    public final List<Long> controlAdmissions = new ArrayList<>();
    /** When recording starts: the clock (edge) of every trimmed header leaving the trim queue (io_dequeue trimPop). */
    public final List<Long> trimPops = new ArrayList<>();
    /** The clock (edge) at which the last frame's tlast was taken. */
    public long lastTlastClock = -1;
    public boolean recordStarts;
    /** When set: predicts every dequeue, trim pop and output beat the RTL makes, and fails on the first that differs. */
    private TrimQueueTiming timing;
    /** m_axis during the clock before the last edge: {ready, valid, last} as peeked then. */
    private boolean[] outputBefore = new boolean[3];
    public long timingClocksChecked, timingDequeuesChecked, timingBeatsChecked;
    private boolean outputAtPacketStart = true;
    private boolean outputStartRecorded;

    /** Model changes due at an edge, and CSR writes placed at one (docs/trimming-queue.md, "CSR writes"). */
    public final EdgeActions actions;

    public TrimQueueBench(Sim<TrimQueue> sim) {
        this.sim = sim;
        this.io = sim.dut().io();
        this.cfg = sim.dut().cfg();
        this.model = new TrimQueueModel(cfg.dataBytes(), cfg.capacityBytes(), cfg.controlBytes(), cfg.trimEntries(),
                cfg.trimBytes(), cfg.maxFrameBytes(), cfg.maxControlBytes(), cfg.udpPort(), cfg.trimDscp(), cfg.prngSeed());
        patterns(new Random(1), 0, 0);
        this.csr = new AxiLite4Master(sim, io.ctrl(), this::step);
        this.actions = new EdgeActions(csr);
        sim.reset(16);
    }

    /** Input idle and output backpressure probabilities (only between bursts: every frame taken). */
    public void patterns(Random random, double idle, double backpressure) {
        if (driver != null && !driver.idle()) {
            throw new IllegalStateException("change patterns only when every frame was taken");
        }
        driver = new Axi4StreamPackets.Driver(sim, io.s_axis(), random, idle);
        monitor = new Axi4StreamPackets.Monitor(sim, io.m_axis(), this::onOutput, random, backpressure);
    }

    /** New output backpressure while frames are still coming in: only while the output has sent nothing of a frame. */
    public void outputBackpressure(Random random, double backpressure) {
        monitor = new Axi4StreamPackets.Monitor(sim, io.m_axis(), this::onOutput, random, backpressure);
    }

    public void send(byte[] frame, boolean badFrame) {
        Axi4StreamPackets.Packet p = new Axi4StreamPackets.Packet(frame, badFrame ? 1 : 0);
        sent.add(new Sent(p, false));
        driver.send(p);
    }

    /** A frame whose first beat has a hole in tkeep (a partial beat before tlast). */
    public void sendMalformed(byte[] frame) {
        Axi4StreamPackets.Packet p = new Axi4StreamPackets.Packet(frame, 0);
        sent.add(new Sent(p, true));
        driver.sendWithKeepHole(p);
    }

    private record Sent(Axi4StreamPackets.Packet packet, boolean malformed) {
    }

    private record Admission(long edge, byte[] frame, boolean bad, boolean malformed) {
    }

    public boolean inputIdle() {
        return driver.idle();
    }

    public long clocks() {
        return clocks;
    }

    public void step() {
        driver.beforeEdge();
        monitor.beforeEdge();
        sim.step();
        clocks++;
        actions.afterEdge(sim.cycle()); // before the model takes the dequeue and admission of the edge before
        boolean tookLast = driver.afterEdge();
        // The dequeue Flow is registered: what it shows now happened at the previous edge, the
        // edge of the admission applied with it.
        TrimQueueModel.Dequeue d = null;
        if (sim.peekBool(io.dequeue().valid())) {
            var p = io.dequeue().payload();
            d = new TrimQueueModel.Dequeue(sim.peekBool(p.start()), (int) sim.peek(p.queue()), sim.peek(p.occupancy()),
                    sim.peekBool(p.marked()), sim.peekBool(p.dropped()), sim.peekBool(p.trimPop()));
        }
        Admission a = !admissions.isEmpty() && admissions.peek().edge() == clocks - 1 ? admissions.poll() : null;
        TrimQueueModel.Outcome o = a == null ? model.clock(d, null, false, false, 0)
                : model.clock(d, a.frame(), a.bad(), a.malformed(), a.frame().length - (a.malformed() ? 1 : 0)); // sendMalformed turns one lane off
        if (timing != null) {
            checkTiming(d, o);
        }
        if (recordStarts && d != null && d.trimPop()) {
            trimPops.add(clocks - 1);
        }
        if (recordStarts && o == TrimQueueModel.Outcome.CONTROL) {
            controlAdmissions.add(clocks - 1); // admitted at the previous edge
        }
        if (tookLast) {
            lastTlastClock = clocks;
            Sent s = sent.poll();
            admissions.add(new Admission(clocks + TrimQueue.admissionClocks(), s.packet().data(), s.packet().user() != 0,
                    s.malformed()));
        }
        if (recordBeats && sim.peekBool(io.m_axis().valid()) && sim.peekBool(io.m_axis().ready())) {
            outputBeatClocks.add(clocks);
        }
        if (recordStarts) {
            // Peeks show the values before this edge: a first beat seen now was loaded at the previous edge.
            boolean valid = sim.peekBool(io.m_axis().valid());
            if (valid && outputAtPacketStart && !outputStartRecorded) {
                packetStarts.add(clocks - 1);
                outputStartRecorded = true;
            }
            if (valid && sim.peekBool(io.m_axis().ready())) {
                outputAtPacketStart = sim.peekBool(io.m_axis().payload().last());
                outputStartRecorded = false;
            }
        }
        outputBefore = new boolean[] {sim.peekBool(io.m_axis().ready()), sim.peekBool(io.m_axis().valid()),
            sim.peekBool(io.m_axis().payload().last())};
        monitor.afterEdge();
    }

    /**
     * From now on (the queue empty and its RED thresholds drawn), TrimQueueTiming predicts the RTL's
     * clocks: every io_dequeue event and every m_axis valid and last, for the ready the monitor
     * gives. No KMIN, KMAX or SEED write may follow (it redraws the thresholds, which the
     * timing does not follow).
     */
    public void predictTiming() {
        timing = new TrimQueueTiming(cfg.dataBytes()).settled();
    }

    private void checkTiming(TrimQueueModel.Dequeue d, TrimQueueModel.Outcome admitted) {
        TrimQueueTiming.Clock c = timing.decide(outputBefore[0]);
        long edge = clocks - 1;
        boolean start = d != null && d.start();
        boolean controlStart = start && d.queue() == TrimQueueModel.QUEUE_CONTROL;
        boolean dataStart = start && d.queue() == TrimQueueModel.QUEUE_DATA;
        boolean trimPop = d != null && d.trimPop();
        if (c.controlStart() != controlStart || c.dataStart() != dataStart || c.trimPop() != trimPop) {
            throw new AssertionError(String.format("edge %d: the RTL dequeued control %b data %b, popped a trimmed header %b;"
                    + " TrimQueueTiming predicted %b %b %b", edge, controlStart, dataStart, trimPop, c.controlStart(),
                    c.dataStart(), c.trimPop()));
        }
        if (c.outputValid() != outputBefore[1] || c.outputValid() && c.outputLast() != outputBefore[2]) {
            throw new AssertionError(String.format("edge %d: m_axis valid %b last %b, TrimQueueTiming predicted valid %b last %b",
                    edge, outputBefore[1], outputBefore[2], c.outputValid(), c.outputLast()));
        }
        timing.edge(dataStart && d.dropped(), model, admitted);
        timingClocksChecked++;
        timingDequeuesChecked += (start ? 1 : 0) + (trimPop ? 1 : 0);
        timingBeatsChecked += c.outputTaken() ? 1 : 0;
    }

    private void onOutput(Axi4StreamPackets.Packet p) {
        byte[] f = p.data();
        int queue;
        byte[] expected;
        if (!model.expectedControl.isEmpty() && Arrays.equals(model.expectedControl.peek(), f)) {
            expected = model.expectedControl.poll();
            queue = 0;
            outControl++;
            outControlBytes += f.length;
        } else if (!model.expectedTrimmed.isEmpty() && Arrays.equals(model.expectedTrimmed.peek(), f)) {
            expected = model.expectedTrimmed.poll();
            queue = 1;
            outTrimmed++;
            outTrimmedBytes += f.length;
        } else if (!model.expectedData.isEmpty() && Arrays.equals(model.expectedData.peek(), f)) {
            expected = model.expectedData.poll();
            queue = 2;
            outData++;
            outDataBytes += f.length;
        } else {
            throw new AssertionError("frame of " + f.length + " bytes left that no queue expected next (control "
                    + model.expectedControl.size() + ", trimmed " + model.expectedTrimmed.size() + ", data "
                    + model.expectedData.size() + " waiting); against the heads: control " + diff(model.expectedControl.peek(), f)
                    + ", trimmed " + diff(model.expectedTrimmed.peek(), f) + ", data " + diff(model.expectedData.peek(), f));
        }
        outputOrder.add(queue);
        Packet pk = new Packet(f);
        boolean arrivedBad = model.admittedWithBadIpv4Checksum(expected);
        model.left(expected);
        if (pk.isIpv4() && f.length >= 34 && pk.ipv4HeaderVerifies() == arrivedBad) {
            throw new AssertionError(arrivedBad ? "a wrong IPv4 header checksum was repaired on a frame from queue " + queue
                    : "IPv4 header checksum fails on a frame from queue " + queue);
        }
        if (queue == 1 && !pk.udpVerifies()) {
            throw new AssertionError("UDP checksum fails on a trimmed header");
        }
    }

    private static String diff(byte[] expected, byte[] got) {
        if (expected == null) {
            return "-";
        }
        int i = Arrays.mismatch(expected, got);
        if (i < 0) {
            return "same";
        }
        var hex = java.util.HexFormat.of();
        return String.format("%d vs %d bytes, first difference at byte %d:%n  expected %s%n  got      %s", expected.length,
                got.length, i, hex.formatHex(expected, 0, Math.min(expected.length, 80)), hex.formatHex(got, 0, Math.min(got.length, 80)));
    }

    /** Steps until every frame was taken and every expected frame left; returns the clocks. */
    public long drain() {
        long n = 0, lastProgress = 0;
        long state = -1;
        while (!driver.idle() || !model.expectedControl.isEmpty() || !model.expectedTrimmed.isEmpty()
                || !model.expectedData.isEmpty() || model.dataDescs > 0 || model.controlDescs > 0 || model.trimWaiting > 0
                || !admissions.isEmpty() || !actions.csrIdle()) {
            step();
            long now = outputOrder.size() + model.dataDescs + 31 * model.controlDescs + 961 * model.trimWaiting + model.counters.get("IN_PACKETS");
            if (now != state) {
                state = now;
                lastProgress = n;
            }
            if (++n - lastProgress > 1_000_000) {
                throw new AssertionError(String.format("the queue stopped draining: control %d, trimmed %d, data %d expected,"
                        + " %d trimmed headers waiting", model.expectedControl.size(), model.expectedTrimmed.size(),
                        model.expectedData.size(), model.trimWaiting));
            }
        }
        for (int i = 0; i < 8; i++) {
            step();
        }
        return n;
    }

    public long counter(int address) {
        return csr.read(address);
    }

    static {
        // TrimQueue.queueControl() etc. must match the model's numbering.
        if (TrimQueue.queueControl() != TrimQueueModel.QUEUE_CONTROL || TrimQueue.queueData() != TrimQueueModel.QUEUE_DATA) {
            throw new AssertionError("queue numbering differs between RTL and model");
        }
    }
}
