package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import uehw.cli.Hwgen;
import uehw.sim.VerilogBench;
import uehw.sim.dart.DartCsr;
import uehw.sim.dart.DartDftModel;
import uehw.sim.dart.DartDftModel.Decision;
import uehw.sim.dart.DartDftModel.Packet;
import uehw.sim.reps.RepsCsr;
import uehw.sim.reps.RepsModel;
import uehw.sim.smartt.SmarttBench;
import uehw.sim.smartt.SmarttCsr;
import uehw.sim.smartt.SmarttFixedModel;
import uehw.sim.smartt.SmarttFixedModel.Event;
import uehw.sim.smartt.SmarttFixedModel.Kind;
import uehw.sim.smartt.SmarttFixedModel.Rule;
import uehw.sim.smartt.SmarttParams;

/**
 * The generated Verilog outside the project's harness: a plain-Verilog bench (uehw.sim.VerilogBench)
 * resets the default top, programs CSRs over AXI4-Lite and drives a directed sequence from vector
 * files, in Icarus and in Verilator. Both logs must equal the Java model's results, so a difference
 * between the simulators (X propagation, scheduling) fails as well.
 */
class SecondSimulatorTest {
    /** Kept after the run: the logs and Icarus' waveform (icarus.fst) of a failing bench stay there. */
    private static Path generate(String block) throws java.io.IOException {
        Path out = Path.of("build", "second-simulator", block);
        if (Files.exists(out)) {
            try (var files = Files.walk(out)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
        assertEquals(0, Hwgen.commandLine().execute("generate", block, "--out", out.toString()));
        return out;
    }

    /** Log lines of one output, as lists of field values. */
    private static List<List<BigInteger>> lines(List<String> log, String output) {
        List<List<BigInteger>> r = new ArrayList<>();
        for (String l : log) {
            String[] t = l.trim().split("\\s+");
            if (t[0].equals(output)) {
                List<BigInteger> v = new ArrayList<>();
                for (int i = 1; i < t.length; i++) {
                    v.add(new BigInteger(t[i], 16));
                }
                r.add(v);
            }
        }
        return r;
    }

    private static void assertBothSimulators(VerilogBench bench, Path dir, String output, List<List<BigInteger>> expected)
            throws Exception {
        List<String> ends = new ArrayList<>();
        for (String simulator : new String[] {"icarus", "verilator"}) {
            List<String> log = simulator.equals("icarus") ? bench.runIcarus(dir) : bench.runVerilator(dir);
            assertTrue(log.get(log.size() - 1).startsWith("end "), simulator + ": the bench ran to its end: " + dir);
            ends.add(log.get(log.size() - 1));
            assertEquals(expected, lines(log, output), simulator + ": " + dir.resolve(simulator + ".log")
                    + ", waveform " + dir.resolve("icarus.fst"));
        }
        assertEquals(ends.get(0), ends.get(1), "both simulators end on the same clock (the bench's own handshakes agree)");
    }

    private static List<BigInteger> values(long... v) {
        List<BigInteger> r = new ArrayList<>();
        for (long x : v) {
            r.add(BigInteger.valueOf(x));
        }
        return r;
    }

    private static long bit(boolean b) {
        return b ? 1 : 0;
    }

    /**
     * Dart (dart.txt Fig. 7): flow 0xBC starts above the threshold and is deflected to port 12, the
     * only candidate; its next packets follow it there, in order, until its end frees the entry;
     * another flow below the threshold and 0xBC after its end are routed.
     */
    @Test
    void dartDeflectedMessageStaysInOrder() throws Exception {
        Path dir = generate("dart-dft");
        VerilogBench bench = new VerilogBench(dir.resolve("uehw_dart_dft.manifest.json"))
                .csrWrite(DartCsr.CANDIDATES_LO, 1L << 12).csrWrite(DartCsr.HOST_PORTS_LO, 0)
                .settleClocks(200);
        DartDftModel model = DartDftTest.model(DartDftTest.DEFAULT);
        model.candidates = 1L << 12;
        model.hostPorts = 0;
        long t = DartDftTest.THRESHOLD;
        Packet[] packets = {
            DartDftTest.pkt(0xBC, true, false, 4, 3, t + 1, 1),
            DartDftTest.pkt(0xBC, false, false, 4, 3, 0, 2),
            DartDftTest.pkt(0x77, true, true, 4, 3, 0, 3),
            DartDftTest.pkt(0xBC, false, false, 4, 3, t + 500, 4),
            DartDftTest.pkt(0xBC, false, true, 4, 3, 0, 5),
            DartDftTest.pkt(0xBC, false, false, 4, 3, t + 1, 6),
        };
        List<List<BigInteger>> expected = new ArrayList<>();
        for (Packet p : packets) {
            // fields: flowId, start, end, tokens, routedPort, queueBytes, meta
            bench.send("io_pkt", p.flowId(), bit(p.start()), bit(p.end()), p.tokens(), p.routedPort(), p.queueBytes(), p.meta());
            Decision d = model.apply(p);
            // logged: flowId, meta, port, tokens, deflected, tableHit, allocated, freed
            expected.add(values(d.flowId(), d.meta(), d.port(), d.tokens(), bit(d.deflected()), bit(d.tableHit()),
                    bit(d.allocated()), bit(d.freed())));
        }
        assertEquals(12, expected.get(3).get(2).intValue(), "the model deflects the middle packet too (Fig. 7)");
        bench.write(dir);
        assertBothSimulators(bench, dir, "io_decision", expected);
    }

    /**
     * SMaRTT (smartt-reps.txt Alg. 1-3): one flow through INIT, then an ACK of each case (no ECN
     * below and above the target RTT, ECN below and above it), a NACK and a timeout, each with
     * its own `now`; a second flow interleaved. The windows and rules logged must be the model's.
     */
    @Test
    void smarttAnAckPerCase() throws Exception {
        Path dir = generate("smartt");
        VerilogBench bench = new VerilogBench(dir.resolve("uehw_smartt.manifest.json"))
                .csrWrite(SmarttCsr.CONTROL, 1)                   // trimming on, Wait-to-Decrease off
                .csrWrite(SmarttCsr.FI, SmarttParams.gain(1.5));  // the FI gain
        SmarttFixedModel model = SmarttBench.modelOf(SmarttTest.DEFAULT);
        model.p.wtdEnable = false;
        model.p.fi = SmarttParams.gain(1.5);
        List<String> fields = bench.fields("io_event", "io_now");
        assertEquals(List.of("io_event_payload_flow", "io_event_payload_kind", "io_event_payload_size",
                "io_event_payload_rtt", "io_event_payload_ecn", "io_event_payload_unacked", "io_now"), fields);
        long trtt = SmarttTest.BRTT * 3 / 2;
        Event[] events = {
            new Event(0, Kind.INIT, 0, 0, false, 0, 0),
            new Event(1, Kind.INIT, 0, 0, false, 0, 0),
            new Event(0, Kind.ACK, 4096, trtt - 3000, false, 0, 0),   // below the target, no ECN: MI
            new Event(1, Kind.ACK, 4096, trtt + 3000, false, 0, 0),
            new Event(0, Kind.ACK, 4096, trtt + 6000, false, 0, 0),   // above, no ECN: FI
            new Event(0, Kind.ACK, 4096, trtt - 2000, true, 0, 0),    // below, ECN: FD
            new Event(0, Kind.ACK, 4096, trtt + 9000, true, 0, 0),    // above, ECN: MD
            new Event(1, Kind.ACK, 2048, trtt + 1000, true, 0, 0),
            new Event(0, Kind.NACK, 4096, 0, false, 0, 0),            // trimmed: loss, QuickAdapt
            new Event(0, Kind.ACK, 4096, trtt, false, 8192, 0),
            new Event(0, Kind.TIMEOUT, 4096, 0, false, 0, 0),
            new Event(1, Kind.NACK, 1500, 0, false, 0, 0),
        };
        List<List<BigInteger>> expectedUpdates = new ArrayList<>();
        List<List<BigInteger>> expectedRetransmits = new ArrayList<>();
        java.util.Set<Rule> rules = java.util.EnumSet.noneOf(Rule.class);
        long now = 100_000;
        for (Event e : events) {
            now += 25_000;
            Event timed = new Event(e.flow(), e.kind(), e.size(), e.rtt(), e.ecn(), e.unacked(), now);
            bench.send("io_event", e.flow(), e.kind().ordinal(), e.size(), e.rtt(), bit(e.ecn()), e.unacked(), now);
            SmarttFixedModel.Update u = model.apply(timed);
            expectedUpdates.add(values(u.flow(), u.cwnd(), u.rule().ordinal()));
            rules.add(u.rule());
            if (u.retransmit()) {
                expectedRetransmits.add(values(u.flow(), bit(e.kind() == Kind.TIMEOUT)));
            }
        }
        assertTrue(rules.size() >= 6, "the sequence covers the cases: " + rules);
        bench.write(dir);
        assertBothSimulators(bench, dir, "io_update", expectedUpdates);
        for (String simulator : new String[] {"icarus", "verilator"}) {
            assertEquals(expectedRetransmits, lines(Files.readAllLines(dir.resolve(simulator + ".log")),
                    "io_retransmit"), simulator);
        }
    }

    /**
     * REPS (reps.txt Alg. 1): ACKs of connection 3 cache their EVs (an ECN-marked one is not
     * cached), then 45 sends of it: the first BDP of packets explores, the rest reuse the cached
     * EVs; one send of an out-of-range connection. Results logged must be the model's.
     */
    @Test
    void repsAcksThenSendsThatReuseThem() throws Exception {
        Path dir = generate("reps");
        VerilogBench bench = new VerilogBench(dir.resolve("uehw_reps.manifest.json"))
                .csrWrite(RepsCsr.SEED, 0x1234567L);
        RepsModel model = RepsTest.model(RepsTest.config("reps", 1024, 10_000_000, 37));
        model.reseed(0x1234567L);
        assertEquals(List.of("io_ack_payload_conn", "io_ack_payload_ev", "io_ack_payload_ecn", "io_ack_payload_trimmed"),
                bench.fields("io_ack"));
        assertEquals(List.of("io_send_payload_conn"), bench.fields("io_send"));
        bench.startAfter("io_send", "io_ack");
        long[][] acks = {{3, 0x111, 0}, {3, 0x222, 0}, {3, 0x333, 1}, {3, 0x444, 0}, {5, 0x555, 0}};
        for (long[] a : acks) {
            bench.send("io_ack", a[0], a[1], a[2], 0);
            model.clock(RepsModel.Ctrl.ack(a[0], a[1], a[2] != 0, false), -1, 0);
        }
        List<List<BigInteger>> expected = new ArrayList<>();
        long[] sends = new long[47];
        java.util.Arrays.fill(sends, 3);
        sends[20] = 5;
        sends[46] = 4000; // out of range
        int reused = 0;
        for (long conn : sends) {
            bench.send("io_send", conn);
            RepsModel.SendResult r = model.clock(null, conn, 0);
            expected.add(values(r.conn(), r.ev(), bit(r.explored()), bit(r.replayed()), bit(r.outOfRange())));
            reused += !r.explored() && !r.outOfRange() ? 1 : 0;
        }
        assertTrue(reused > 0, "some sends reuse a cached EV");
        bench.write(dir);
        assertBothSimulators(bench, dir, "io_result", expected);
    }
}
