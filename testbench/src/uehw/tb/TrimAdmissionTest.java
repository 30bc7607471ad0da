// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Random;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import uehw.bench.Simulation;
import uehw.bench.facade.Sim;
import uehw.hw.trim.TrimAdmission;
import uehw.hw.trim.TrimAdmissionIo;
import uehw.hw.trim.TrimQueueConfig;
import uehw.model.trim.TrimQueueModel.Outcome;
import uehw.model.trim.TrimRules;

/**
 * The admission alone (docs/trimming-queue.md, "Sub-blocks", "Classification and admission"):
 * frames' beats and verdicts as the ingress presents them (random verdicts: every drop reason,
 * control and data, trimmable or not), packets leaving as the dequeue takes them, trimmed headers
 * popping; every decision must be the one TrimRules.admit makes on the occupancies the test keeps
 * (the model's accounting), every descriptor the frame's, and every frame admitted to a queue must
 * read back whole from its RAM through the read port (a dropped frame's beats rolled back).
 */
@Tag("rtl")
@ExtendWith(BenchExtension.class)
class TrimAdmissionTest {
    static final TrimQueueConfig CFG = TrimQueueTest.small(16);

    /** A frame as the test keeps it; `ipv4` as the descriptor carries it: an IPv4 header with a wrong checksum is not trusted as IP. */
    private record Frame(int length, BigInteger[] words, boolean control, boolean ipv4, boolean ipv6, boolean ecn, int ceChecksum) {
    }

    @Test
    void everyDecisionIsTheRulesAndEveryAdmittedFrameReadsBackWhole() {
        long seed = BenchExtension.seed();
        Simulation<TrimAdmission> build = Simulation.compile(TrimAdmissionTest.class, "w16", () -> new TrimAdmission(CFG));
        build.run("admission", seed, sim -> run(sim, new Random(seed), 1500 * Seeds.scale()));
    }

    private static void run(Sim<TrimAdmission> sim, Random r, int frames) {
        TrimAdmissionIo io = sim.dut().io();
        int w = CFG.dataBytes();
        int countWidth = 32 - Integer.numberOfLeadingZeros(w - 1);
        long dataBeatLimit = (CFG.capacityBytes() + w - 1) / w * 5 / 4;
        long controlBeatLimit = (CFG.controlBytes() + w - 1) / w * 5 / 4;
        int dataDescriptors = Math.max(2, CFG.capacityBytes() / 64), controlDescriptors = Math.max(2, CFG.controlBytes() / 64);
        for (var p : new Object[] {io.beat().valid(), io.verdict().valid(), io.dataLeaves().valid(), io.controlLeaves().valid(),
            io.trimPopped(), io.dataDescriptors().ready(), io.controlLengths().ready(), io.dataRead().enable(), io.controlRead().enable()}) {
            sim.poke((spinal.core.Bool) p, false);
        }
        sim.reset(16);
        long dataBytes = 0, dataBeats = 0, dataDescs = 0, controlBytes = 0, controlBeats = 0, controlDescs = 0, trim = 0;
        Deque<Frame> dataQueue = new ArrayDeque<>(), controlQueue = new ArrayDeque<>();
        Deque<Frame> dataLeaving = new ArrayDeque<>(), controlLeaving = new ArrayDeque<>();
        int dataRead = 0, controlRead = 0; // where the committed frames start in each ring
        int[] outcomes = new int[Outcome.values().length];
        for (int n = 0; n < frames; n++) {
            // a frame: random verdict, its beats with random bytes
            int length = r.nextInt(60) == 0 ? CFG.maxFrameBytes() + 1 + r.nextInt(40) : r.nextInt(8) == 0 ? 1 + r.nextInt(2000) : 1 + r.nextInt(300);
            int beats = (length + w - 1) / w;
            boolean bad = r.nextInt(40) == 0, malformed = r.nextInt(40) == 0, runt = r.nextInt(40) == 0;
            boolean control = r.nextInt(3) == 0, transport = control || r.nextInt(4) != 0;
            boolean ipv6 = r.nextInt(3) == 0, ipv4 = !ipv6 && r.nextInt(8) != 0, ihl5 = ipv4 && r.nextInt(10) != 0;
            boolean checksumOk = r.nextInt(15) != 0;
            BigInteger[] words = new BigInteger[beats];
            for (int b = 0; b < beats; b++) {
                words[b] = new BigInteger(8 * w, r);
            }
            // the verdict's outcome from the rules, on the occupancies before the admission
            boolean oversize = length > CFG.maxFrameBytes();
            boolean okFrame = !bad && !oversize && !malformed && !runt;
            boolean badChecksum = okFrame && ipv4 && ihl5 && !checksumOk;
            Frame f = new Frame(length, words, control, ipv4 && !badChecksum, ipv6, r.nextBoolean(), r.nextInt(65536));
            // its beats, one a clock (the verdict with the last), idle clocks now and then
            for (int b = 0; b < beats; b++) {
                boolean last = b == beats - 1;
                sim.poke(io.beat().valid(), true);
                sim.poke(io.beat().payload().data(), words[b]);
                sim.poke(io.beat().payload().last(), last);
                sim.poke(io.beat().payload().lastCount(), last ? (length - 1) % w : w - 1);
                sim.poke(io.beat().payload().index(), Math.min(b, CFG.maxFrameBeats() + 1));
                sim.poke(io.verdict().valid(), last);
                Outcome want = null;
                if (last) {
                    // the decision by the rules, on the occupancies the admission sees (those before this edge)
                    if (bad) {
                        want = Outcome.DROP_BAD_FRAME;
                    } else if (oversize) {
                        want = Outcome.DROP_OVERSIZE;
                    } else if (malformed) {
                        want = Outcome.DROP_MALFORMED;
                    } else if (runt) {
                        want = Outcome.DROP_RUNT;
                    } else if (control && length > CFG.maxControlBytes()) {
                        want = Outcome.DROP_CONTROL_OVERSIZE;
                    } else {
                        boolean controlFits = controlBytes + length <= CFG.controlBytes() && controlBeats + beats <= controlBeatLimit
                                && controlDescs < controlDescriptors;
                        boolean dataFits = dataBytes + length <= CFG.capacityBytes() && dataBeats + beats <= dataBeatLimit && dataDescs < dataDescriptors;
                        want = Outcome.valueOf(TrimRules.admit(control, controlFits, dataFits, transport && !badChecksum,
                                trim < CFG.trimEntries()).name());
                    }
                    var v = io.verdict().payload();
                    sim.poke(v.length(), length);
                    sim.poke(v.wireBytes(), length);
                    sim.poke(v.bad(), bad);
                    sim.poke(v.malformed(), malformed);
                    sim.poke(v.oversize(), oversize);
                    sim.poke(v.runt(), runt);
                    sim.poke(v.ipv4(), ipv4);
                    sim.poke(v.ipv6(), ipv6);
                    sim.poke(v.ip(), ipv4 || ipv6);
                    sim.poke(v.transport(), transport);
                    sim.poke(v.control(), control);
                    sim.poke(v.controlOversize(), length > CFG.maxControlBytes());
                    sim.poke(v.ecnCapable(), f.ecn());
                    sim.poke(v.ceChecksum(), f.ceChecksum());
                    sim.poke(v.ihl5(), ihl5);
                    sim.poke(v.ipv4ChecksumOk(), checksumOk);
                    sim.poke(v.beats(), beats);
                    sim.poke(v.dataBytesRoom(), CFG.capacityBytes() - length & (1L << (CFG.occupancyWidth() + 1)) - 1);
                    long occBeatsData = v.dataBeatsRoom().getBitsWidth();
                    sim.poke(v.dataBeatsRoom(), dataBeatLimit - beats & (1L << occBeatsData) - 1);
                    sim.poke(v.controlBytesRoom(), CFG.controlBytes() - length & (1L << 22) - 1);
                    sim.poke(v.controlBeatsRoom(), controlBeatLimit - beats & (1L << v.controlBeatsRoom().getBitsWidth()) - 1);
                }
                // the dequeue and the trim queue's pops, at random, and none for a while now and then (the queues fill)
                boolean draining = n / 400 % 3 != 0;
                boolean dataLeaves = draining && !dataLeaving.isEmpty() && r.nextInt(3) == 0;
                boolean controlLeaves = draining && !controlLeaving.isEmpty() && r.nextInt(3) == 0;
                boolean trimPop = draining && trim > 0 && r.nextInt(4) == 0;
                Frame dl = dataLeaves ? dataLeaving.poll() : null, cl = controlLeaves ? controlLeaving.poll() : null;
                sim.poke(io.dataLeaves().valid(), dataLeaves);
                sim.poke(io.dataLeaves().payload(), dl != null ? dl.length() : 0);
                sim.poke(io.controlLeaves().valid(), controlLeaves);
                sim.poke(io.controlLeaves().payload(), cl != null ? cl.length() : 0);
                sim.poke(io.trimPopped(), trimPop);
                boolean takeData = draining && r.nextBoolean(), takeControl = draining && r.nextBoolean();
                sim.poke(io.dataDescriptors().ready(), takeData);
                sim.poke(io.controlLengths().ready(), takeControl);
                sim.step();
                // registers show the value before this edge: the occupancies after the edges before it
                assertEquals(dataBytes, sim.peek(io.dataBytes()), "data occupancy before edge " + sim.cycle());
                assertEquals(controlBytes, sim.peek(io.controlBytes()), "control occupancy before edge " + sim.cycle());
                assertEquals(trim, sim.peek(io.trimWaiting()), "trimmed headers waiting before edge " + sim.cycle());
                assertTrue(!sim.peekBool(io.overrun()), "a descriptor FIFO pushed while full");
                boolean dataTaken = takeData && sim.peekBool(io.dataDescriptors().valid());
                boolean controlTaken = takeControl && sim.peekBool(io.controlLengths().valid());
                long controlLength = sim.peek(io.controlLengths().payload()); // before a read-back moves the clock on
                for (var q : new spinal.core.Bool[] {io.beat().valid(), io.verdict().valid(), io.dataLeaves().valid(),
                    io.controlLeaves().valid(), io.trimPopped(), io.dataDescriptors().ready(), io.controlLengths().ready()}) {
                    sim.poke(q, false);
                }
                if (last) {
                    assertTrue(sim.peekBool(io.admitted().valid()));
                    assertEquals(want.ordinal(), sim.peek(io.admitted().payload().outcome()), "frame " + n + " at edge " + sim.cycle()
                            + ": " + want + " by the rules (" + length + " B, control " + control + "; control queue " + controlBytes + " B "
                            + controlBeats + " beats " + controlDescs + " descriptors; data " + dataBytes + " B " + dataBeats + " beats " + dataDescs
                            + " descriptors, this frame " + beats + " beats)");
                    outcomes[want.ordinal()]++;
                    assertEquals(want == Outcome.TRIM, sim.peekBool(io.toTrim()), "toTrim");
                    switch (want) {
                        case DATA -> {
                            dataQueue.add(f);
                            dataBytes += length;
                            dataBeats += beats;
                            dataDescs++;
                        }
                        case CONTROL -> {
                            controlQueue.add(f);
                            controlBytes += length;
                            controlBeats += beats;
                            controlDescs++;
                        }
                        case TRIM -> trim++;
                        default -> {
                        }
                    }
                } else {
                    assertTrue(!sim.peekBool(io.admitted().valid()), "no decision before a frame's last beat");
                }
                if (dl != null) {
                    dataBytes -= dl.length();
                    dataBeats -= dl.words().length;
                    dataDescs--;
                }
                if (cl != null) {
                    controlBytes -= cl.length();
                    controlBeats -= cl.words().length;
                    controlDescs--;
                }
                if (trimPop) {
                    trim--;
                }
                if (dataTaken) {
                    Frame d = dataQueue.poll();
                    assertTrue(d != null, "a data descriptor no frame was admitted for");
                    var p = io.dataDescriptors().payload();
                    assertEquals(d.length(), sim.peek(p.length()), "descriptor length");
                    assertEquals(d.ipv4(), sim.peekBool(p.ipv4()), "descriptor IPv4 (not with a wrong header checksum)");
                    assertEquals(d.ipv6(), sim.peekBool(p.ipv6()), "descriptor IPv6");
                    assertEquals(d.ecn(), sim.peekBool(p.ecnCapable()), "descriptor ECN-capable");
                    assertEquals(d.ceChecksum(), sim.peek(p.ceChecksum()), "descriptor's checksum after a CE mark");
                    long next = sim.peek(p.next());
                    dataRead = readBack(sim, io.dataRead(), dataRead, d, CFG.dataRamBeats(), countWidth, w);
                    assertEquals(dataRead, next, "descriptor's next address");
                    dataLeaving.add(d);
                }
                if (controlTaken) {
                    Frame c = controlQueue.poll();
                    assertTrue(c != null, "a control length no frame was admitted for");
                    assertEquals(c.length(), controlLength, "control length");
                    controlRead = readBack(sim, io.controlRead(), controlRead, c, CFG.controlRamBeats(), countWidth, w);
                    controlLeaving.add(c);
                }
            }
        }
        for (Outcome o : Outcome.values()) {
            assertTrue(outcomes[o.ordinal()] > 0, "no frame was " + o);
        }
    }

    /** Reads a frame's words back through a RAM port from `start` (the frame's first address); returns the address after it. */
    private static int readBack(Sim<TrimAdmission> sim, uehw.hw.trim.RamReadPort port, int start, Frame f, int depth, int countWidth,
                                int w) {
        int a = start;
        for (int b = 0; b < f.words().length; b++) {
            sim.poke(port.enable(), true);
            sim.poke(port.address(), a);
            sim.step();
            sim.poke(port.enable(), false);
            sim.step(); // the word is out the clock after the read
            BigInteger word = sim.peekBig(port.data());
            boolean last = b == f.words().length - 1;
            assertEquals(f.words()[b], word.shiftRight(countWidth + 1), "RAM word " + b + " of a " + f.length() + " B frame at " + a);
            assertEquals(last, word.testBit(0), "last flag of RAM word " + b);
            if (last) {
                assertEquals((f.length() - 1) % w, word.shiftRight(1).intValue() & (w - 1), "last word's byte count - 1");
            }
            a = (a + 1) % depth;
        }
        return a;
    }
}
