// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import uehw.bench.Axi4StreamPackets;
import uehw.bench.VerilogBench;
import uehw.bench.csr.DartDasrCsr;
import uehw.bench.csr.DartDftCsr;
import uehw.bench.csr.DasrLimiterCsr;
import uehw.bench.csr.NicCcCsr;
import uehw.bench.csr.RepsCsr;
import uehw.bench.csr.SmarttCsr;
import uehw.bench.csr.SwiftCsr;
import uehw.bench.csr.TrimQueueCsr;
import uehw.bench.dart.DasrBench;
import uehw.bench.dart.DasrLimiterBench;
import uehw.bench.smartt.SmarttBench;
import uehw.bench.swift.SwiftBench;
import uehw.cli.Hwgen;
import uehw.cli.Manifest;
import uehw.hw.trim.TrimQueue;
import uehw.model.dart.DartDftModel;
import uehw.model.dart.DartDftModel.Decision;
import uehw.model.dart.DartDftModel.Packet;
import uehw.model.dart.DasrEvent;
import uehw.model.dart.DasrLimiterModel;
import uehw.model.dart.DasrModel;
import uehw.model.nic.ControlFrames;
import uehw.model.reps.RepsModel;
import uehw.model.smartt.SmarttFixedModel;
import uehw.model.smartt.SmarttFixedModel.Event;
import uehw.model.smartt.SmarttFixedModel.Kind;
import uehw.model.smartt.SmarttFixedModel.Rule;
import uehw.model.smartt.SmarttParams;
import uehw.model.swift.SwiftFixedModel;
import uehw.model.trim.TrimQueueModel;

/**
 * The generated Verilog outside the project's harness: a plain-Verilog bench (uehw.bench.VerilogBench)
 * resets the default top, programs CSRs over AXI4-Lite and drives a directed sequence from vector
 * files, in Icarus and in Verilator. Both logs must equal the Java model's results, so a difference
 * between the simulators (X propagation, scheduling) fails as well.
 */
@Tag("rtl")
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

    /** Log lines of one output, as lists of field values (the clock stamp left off). */
    private static List<List<BigInteger>> lines(List<String> log, String output) {
        List<List<BigInteger>> r = new ArrayList<>();
        for (String l : log) {
            String[] t = l.trim().split("\\s+");
            if (t[0].equals(output)) {
                List<BigInteger> v = new ArrayList<>();
                for (int i = 1; i < t.length && !t[i].startsWith("@"); i++) {
                    v.add(new BigInteger(t[i], 16));
                }
                r.add(v);
            }
        }
        return r;
    }

    private static void assertBothSimulators(VerilogBench bench, Path dir, String output, List<List<BigInteger>> expected)
            throws Exception {
        runBoth(bench, dir);
        assertEquals(expected, lines(Files.readAllLines(dir.resolve("icarus.log")), output),
                dir.resolve("icarus.log") + ", waveform " + dir.resolve("icarus.fst"));
    }

    /**
     * Runs the bench in both simulators; their logs must be equal line for line, clock stamps
     * included (every transfer on the same clock). Returns Icarus' log.
     */
    private static List<String> runBoth(VerilogBench bench, Path dir) throws Exception {
        List<String> icarus = bench.runIcarus(dir);
        List<String> verilator = bench.runVerilator(dir);
        for (List<String> log : List.of(icarus, verilator)) {
            assertTrue(!log.isEmpty() && log.get(log.size() - 1).startsWith("end "), "the bench ran to its end: " + dir);
        }
        for (int i = 0; i < Math.max(icarus.size(), verilator.size()); i++) {
            String a = i < icarus.size() ? icarus.get(i) : "(none)";
            String b = i < verilator.size() ? verilator.get(i) : "(none)";
            assertEquals(a, b, "Icarus and Verilator differ at log line " + (i + 1) + " in " + dir + " (waveform icarus.fst)");
        }
        return icarus;
    }

    /**
     * The block identifies itself the way docs/integration.md says: INFO bits 7:0 its id letter,
     * VERSION the manifest's generatorVersion as major.minor.patch bytes.
     */
    private static void assertIdentity(Path dir, char id) throws Exception {
        String[] version = Manifest.generatorVersion().split("[.-]");
        long expected = Long.parseLong(version[0]) << 16 | Long.parseLong(version[1]) << 8 | Long.parseLong(version[2]);
        List<List<BigInteger>> reads = lines(Files.readAllLines(dir.resolve("icarus.log")), "csr");
        assertEquals(2, reads.size(), "the bench read INFO and VERSION");
        assertEquals(List.of(0L, (long) id), List.of(reads.get(0).get(0).longValue(), reads.get(0).get(1).longValue() & 0xFF), "INFO");
        assertEquals(List.of(0xFCL, expected), List.of(reads.get(1).get(0).longValue(), reads.get(1).get(1).longValue()),
                "VERSION is generator " + Manifest.generatorVersion());
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
     * The integration example (docs/nic-engine.md, "Integration example"): the engine generated
     * with a fixed module name inside the plain-Verilog shell docs/examples/nic-cc/nic_cc_shell.v,
     * which gives it its ns clock. Two flows start with 10,000 and 5,000 queued bytes; after 300
     * foreign frames (counted, dropped) a NACK of flow 3's second packet comes. Flow 3's doorbell
     * ends a message, flow 7's does not. Expected from the rule alone (the law's first window is far
     * above 15 kB): flow 3 gets packets of 4086, 4086 and 1828 bytes (PSN 0, 1, 2; the last one
     * `last`), flow 7 of 4086 and 914 (PSN 0, 1, neither `last`), then flow 3 a resend of 4086
     * bytes (its next PSN, 3) and a retransmit request for PSN 1. Icarus and Verilator must agree
     * clock for clock; the registers read first: both maps' block ids.
     */
    @Test
    void nicEngineInAPlainVerilogShell() throws Exception {
        Path dir = Path.of("build", "second-simulator", "nic-cc-shell");
        if (Files.exists(dir)) {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
        assertEquals(0, Hwgen.commandLine().execute("generate", "nic-cc", "--flows", "64", "--prefix", "nic_cc_core", "--out", dir.toString()));
        Files.writeString(dir.resolve("shell_all.v"), Files.readString(Path.of("docs/examples/nic-cc/nic_cc_shell.v"))
                + Files.readString(dir.resolve("uehw_nic_cc.v")));
        // the shell's manifest for the bench: the engine's ports but io_now, which the shell drives
        ObjectMapper json = new ObjectMapper();
        JsonNode engine = json.readTree(dir.resolve("uehw_nic_cc.manifest.json").toFile());
        var shell = json.createObjectNode().put("topModule", "nic_cc_shell").put("verilog", "shell_all.v");
        var ports = shell.putArray("ports");
        engine.get("ports").forEach(p -> {
            if (!p.get("name").asText().equals("io_now")) {
                ports.add(p);
            }
        });
        json.writeValue(dir.resolve("nic_cc_shell.manifest.json").toFile(), shell);
        VerilogBench bench = new VerilogBench(dir.resolve("nic_cc_shell.manifest.json"))
                .csrRead(NicCcCsr.INFO).csrRead(0x100).startAfter("s_axis", "io_doorbell").drainClocks(600);
        assertEquals(List.of("io_doorbell_payload_flow", "io_doorbell_payload_bytes", "io_doorbell_payload_start", "io_doorbell_payload_last"),
                bench.fields("io_doorbell"));
        bench.send("io_doorbell", 3, 10_000, 1, 1).send("io_doorbell", 7, 5_000, 1, 0);
        for (int i = 0; i < 301; i++) {
            ControlFrames.Control c = i < 300
                    ? new ControlFrames.Control(ControlFrames.ACK, 3, 0, false, 0, 0, 0, 255, false)
                    : new ControlFrames.Control(ControlFrames.NACK, 3, 1, false, 0, 0, 4150, 255, false);
            byte[] f = ControlFrames.build(c, false, 4000, 0);
            if (i < 300) {
                f[uehw.hw.common.PacketFormat.Ipv4UdpOffset() + uehw.hw.common.PacketFormat.UdpDstPort() + 1] ^= 1; // another UDP port
            }
            Axi4StreamPackets.Beat b = Axi4StreamPackets.beats(new Axi4StreamPackets.Packet(f, 0), 64).get(0);
            bench.send("s_axis", b.data(), b.keep(), BigInteger.valueOf(bit(b.last())), BigInteger.valueOf(b.user()));
        }
        bench.write(dir);
        runBoth(bench, dir);
        List<String> log = Files.readAllLines(dir.resolve("icarus.log"));
        List<List<BigInteger>> reads = lines(log, "csr");
        assertEquals(0x45, reads.get(0).get(1).longValue() & 0xFF, "the engine's INFO: 'E'");
        assertEquals(0x4E, reads.get(1).get(1).longValue() & 0xFF, "the law's INFO at 0x100: 'N' (NSCC)");
        // grants: flow, psn, bytes, resend, last; per flow in order
        List<List<BigInteger>> grants = lines(log, "io_grant");
        assertEquals(List.of(values(3, 0, 4086, 0, 0), values(3, 1, 4086, 0, 0), values(3, 2, 1828, 0, 1), values(3, 3, 4086, 1, 0)),
                grants.stream().filter(g -> g.get(0).intValue() == 3).toList(), "flow 3's grants");
        assertEquals(List.of(values(7, 0, 4086, 0, 0), values(7, 1, 914, 0, 0)),
                grants.stream().filter(g -> g.get(0).intValue() == 7).toList(), "flow 7's grants");
        assertEquals(6, grants.size(), "no other grant");
        assertEquals(List.of(values(3, 1, 0)), lines(log, "io_retransmit"), "the NACK's retransmit request (flow, PSN, not a timeout)");
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
                .csrRead(DartDftCsr.INFO).csrRead(DartDftCsr.VERSION)
                .csrWrite(DartDftCsr.CANDIDATES_LO, 1L << 12).csrWrite(DartDftCsr.HOST_PORTS_LO, 0)
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
        assertIdentity(dir, 'D');
    }

    /**
     * DASR (dart.txt Fig. 2, Sec. III-B/D): a long sender alone (n = 1); a second sender's first
     * packet (both then get n = 2); a look-ahead of three senders (n = 5), its repeat (skipped) and
     * an announced first packet (not counted again); ends, one from a sender never started. The
     * replies logged must be the model's.
     */
    @Test
    void dasrCountsSendersPerAck() throws Exception {
        Path dir = generate("dart-dasr");
        VerilogBench bench = new VerilogBench(dir.resolve("uehw_dart_dasr.manifest.json"))
                .csrRead(DartDasrCsr.INFO).csrRead(DartDasrCsr.VERSION);
        DasrModel model = DasrBench.modelOf(DartDasrTest.DEFAULT);
        assertEquals(List.of("io_event_payload_lookAhead", "io_event_payload_sender", "io_event_payload_first",
                "io_event_payload_last", "io_event_payload_announced", "io_event_payload_ecn", "io_event_payload_bytes",
                "io_event_payload_group", "io_now"), bench.fields("io_event", "io_now"));
        DasrEvent[] events = {
            DasrEvent.packet(7, true, false, false, false, 4160),
            DasrEvent.packet(7, false, false, false, false, 4160),
            DasrEvent.packet(9, true, false, false, true, 4160),
            DasrEvent.packet(7, false, false, false, false, 4160),
            DasrEvent.lookAhead(42, 20, true), DasrEvent.lookAhead(42, 21, false), DasrEvent.lookAhead(42, 22, false),
            DasrEvent.lookAhead(42, 20, true),
            DasrEvent.packet(20, true, false, true, false, 1500),
            DasrEvent.packet(9, false, true, false, false, 4160),
            DasrEvent.packet(33, false, true, false, false, 64),
            DasrEvent.packet(20, false, true, false, false, 1500),
        };
        List<List<BigInteger>> expected = new ArrayList<>();
        long now = 1000;
        for (DasrEvent e : events) {
            now += 300;
            bench.send("io_event", bit(e.lookAhead()), e.sender() & 0xFFFF_FFFFL, bit(e.first()), bit(e.last()),
                    bit(e.announced()), bit(e.ecn()), e.bytes(), e.group(), now);
            DasrModel.Reply r = e.applyTo(model, now);
            if (r != null) {
                expected.add(values(r.n(), bit(r.ecnPass()), model.state().ordinal()));
            }
        }
        assertEquals(List.of(1L, 1L, 2L, 2L, 5L, 4L, 4L, 3L), expected.stream().map(v -> v.get(0).longValue()).toList(),
                "Fig. 2 and the look-ahead, in the model");
        bench.write(dir);
        assertBothSimulators(bench, dir, "io_reply", expected);
        assertIdentity(dir, 'A');
    }

    /**
     * DASR's sender pacer (dart.txt Sec. III-A): a flow told n = 4 sends a packet and is not
     * eligible again until 4 serialisations (1331.2 ns) later; another flow at n = 1 (332.8 ns);
     * queries of each before and after; an id out of range. The answers logged must be the model's.
     */
    @Test
    void dasrLimiterPacesAtLineRateOverN() throws Exception {
        Path dir = generate("dasr-limiter");
        VerilogBench bench = new VerilogBench(dir.resolve("uehw_dasr_limiter.manifest.json"))
                .csrRead(DasrLimiterCsr.INFO).csrRead(DasrLimiterCsr.VERSION);
        // the generator's defaults, as the folder was generated
        uehw.hw.dart.DasrLimiterConfig defaults = uehw.hw.dart.DasrLimiterConfig.fromParams(
                uehw.hw.Blocks.dasrLimiter().check(java.util.Map.of()));
        DasrLimiterModel model = new DasrLimiterModel(defaults.flows(), defaults.byteTime());
        assertEquals(List.of("io_event_payload_kind", "io_event_payload_flow", "io_event_payload_n", "io_event_payload_bytes",
                "io_now"), bench.fields("io_event", "io_now"));
        long[][] events = { // kind, flow, n, bytes, now
            {0, 7, 4, 0, 1000}, {1, 7, 0, 4160, 1000}, {2, 7, 0, 0, 1500}, {1, 3, 0, 4160, 1500}, {2, 3, 0, 0, 1700},
            {2, 3, 0, 0, 1900}, {2, 7, 0, 0, 2400}, {1, 7, 0, 1500, 2400}, {2, 2000, 0, 0, 2400},
        };
        List<List<BigInteger>> expected = new ArrayList<>();
        for (long[] e : events) {
            bench.send("io_event", e[0], e[1], e[2], e[3], e[4]);
            DasrLimiterModel.Answer a = new DasrLimiterBench.Event((int) e[0], (int) e[1], (int) e[2], (int) e[3]).applyTo(model, e[4]);
            if (a != null) {
                expected.add(values(a.flow(), bit(a.eligible()), a.nextNs()));
            }
        }
        assertEquals(List.of(false, false, false, false, true, true, false, false),
                expected.stream().map(v -> v.get(1).longValue() == 1).toList(), "eligible, in the model");
        bench.write(dir);
        assertBothSimulators(bench, dir, "io_answer", expected);
        assertIdentity(dir, 'L');
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
                .csrRead(SmarttCsr.INFO).csrRead(SmarttCsr.VERSION)
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
        java.util.Set<Rule> rules = runSmartt(dir, bench, model, events);
        assertTrue(rules.size() >= 6, "the sequence covers the cases: " + rules);
    }

    /**
     * SMaRTT's reference-code profile (CONTROL.REFERENCE_PROFILE, FastIncrease 1.2 MTU): an ACK at
     * the target RTT (no case), a NACK that arms QuickAdapt, QuickAdapt on the next ACK normalised
     * to one target RTT, a marked ACK, a NACK and a timeout inside the ignore window (ignored), an
     * unmarked ACK inside it (its case), clean ACKs; events 25 us apart, so the measurement window
     * rolls at each. The windows and rules logged must be the model's.
     */
    @Test
    void smarttReferenceProfile() throws Exception {
        Path dir = generate("smartt");
        VerilogBench bench = new VerilogBench(dir.resolve("uehw_smartt.manifest.json"))
                .csrRead(SmarttCsr.INFO).csrRead(SmarttCsr.VERSION)
                .csrWrite(SmarttCsr.CONTROL, 1 | 8)               // trimming, the reference-code profile, WTD off
                .csrWrite(SmarttCsr.FAST_INCREASE_K, SmarttParams.gain(1.2));
        SmarttFixedModel model = SmarttBench.modelOf(SmarttTest.DEFAULT);
        model.p.wtdEnable = false;
        model.p.referenceProfile = true;
        model.p.fastIncreaseK = SmarttParams.gain(1.2);
        bench.fields("io_event", "io_now");
        long trtt = SmarttTest.BRTT * 3 / 2;
        long brtt = SmarttTest.BRTT;
        Event[] events = {
            // (the last field: the time since the previous event, 25 us when 0)
            new Event(0, Kind.INIT, 0, 0, false, 0, 0),
            new Event(0, Kind.ACK, 4096, trtt, false, 0, 0),          // at the target: no case
            new Event(0, Kind.ACK, 4096, trtt + 3000, true, 0, 0),    // MD
            new Event(0, Kind.NACK, 4096, 0, false, 0, 1000),         // inside the window: a loss, arms QuickAdapt
            new Event(0, Kind.ACK, 4096, trtt + 3000, false, 60_000, 0), // past its end: QuickAdapt, normalised; ignores 60,000 B
            new Event(0, Kind.ACK, 4096, trtt + 3000, true, 0, 1000),  // marked, inside: ignored
            new Event(0, Kind.NACK, 4096, 0, false, 0, 1000),         // inside: ignored
            new Event(0, Kind.TIMEOUT, 4096, 0, false, 0, 1000),      // inside: ignored
            new Event(0, Kind.ACK, 4096, trtt + 3000, false, 0, 1000), // unmarked, inside: FI
            new Event(0, Kind.ACK, 4096, brtt, false, 0, 1000),       // clean: MI
            new Event(0, Kind.ACK, 4096, brtt, false, 0, 1000),
        };
        java.util.Set<Rule> rules = runSmartt(dir, bench, model, events);
        assertTrue(rules.containsAll(List.of(Rule.AT_TARGET, Rule.QUICK_ADAPT, Rule.IGNORED, Rule.LOSS,
                Rule.FAIR_INCREASE, Rule.MULTIPLICATIVE_INCREASE)), "the sequence covers the profile's rules: " + rules);
    }

    /**
     * Sends the events 25 us apart (or an event's `now` apart when it is not 0), runs both
     * simulators and compares their update and retransmit logs with the model's.
     */
    private java.util.Set<Rule> runSmartt(Path dir, VerilogBench bench, SmarttFixedModel model, Event[] events) throws Exception {
        List<List<BigInteger>> expectedUpdates = new ArrayList<>();
        List<List<BigInteger>> expectedRetransmits = new ArrayList<>();
        java.util.Set<Rule> rules = java.util.EnumSet.noneOf(Rule.class);
        long now = 100_000;
        for (Event e : events) {
            now += e.now() == 0 ? 25_000 : e.now();
            Event timed = new Event(e.flow(), e.kind(), e.size(), e.rtt(), e.ecn(), e.unacked(), now);
            bench.send("io_event", e.flow(), e.kind().ordinal(), e.size(), e.rtt(), bit(e.ecn()), e.unacked(), now);
            SmarttFixedModel.Update u = model.apply(timed);
            expectedUpdates.add(values(u.flow(), u.cwnd(), u.rule().ordinal()));
            rules.add(u.rule());
            if (u.retransmit()) {
                expectedRetransmits.add(values(u.flow(), bit(e.kind() == Kind.TIMEOUT)));
            }
        }
        bench.write(dir);
        assertBothSimulators(bench, dir, "io_update", expectedUpdates);
        assertIdentity(dir, 'S');
        assertEquals(expectedRetransmits, lines(Files.readAllLines(dir.resolve("icarus.log")), "io_retransmit"));
        return rules;
    }

    /**
     * Swift (swift-excerpt.txt Alg. 1): two flows through INIT, ACKs below the target (increase),
     * far above it (decrease at the max_mdf floor, then held inside the RTT), with an endpoint delay
     * above its target, with more than 15 hops, a NACK and five timeouts (the fifth resets to min_cwnd,
     * which is paced). The windows, changes and pacing
     * gaps logged must be the model's.
     */
    @Test
    void swiftIncreasesDecreasesAndHolds() throws Exception {
        Path dir = generate("swift");
        VerilogBench bench = new VerilogBench(dir.resolve("uehw_swift.manifest.json"))
                .csrRead(SwiftCsr.INFO).csrRead(SwiftCsr.VERSION);
        SwiftFixedModel model = new SwiftFixedModel(1024, SwiftBench.resetParams());
        assertEquals(List.of("io_event_payload_flow", "io_event_payload_kind", "io_event_payload_rtt",
                "io_event_payload_endpointDelay", "io_event_payload_hops", "io_event_payload_acked", "io_now"),
                bench.fields("io_event", "io_now"));
        long one = 1L << SwiftFixedModel.ACKED_FRAC;
        SwiftFixedModel.Event[] events = {
            new SwiftFixedModel.Event(0, SwiftFixedModel.Kind.INIT, 0, 0, 0, 0, 0),
            new SwiftFixedModel.Event(1, SwiftFixedModel.Kind.INIT, 0, 0, 0, 0, 0),
            new SwiftFixedModel.Event(0, SwiftFixedModel.Kind.ACK, 12_500, 0, 2, one, 0),        // below the target: increase
            new SwiftFixedModel.Event(0, SwiftFixedModel.Kind.ACK, 12_700, 300, 2, one / 2, 0),
            new SwiftFixedModel.Event(1, SwiftFixedModel.Kind.ACK, 90_000, 0, 3, one, 0),        // far above: max_mdf floor
            new SwiftFixedModel.Event(1, SwiftFixedModel.Kind.ACK, 90_000, 0, 3, one, 0),        // inside the RTT: held
            new SwiftFixedModel.Event(0, SwiftFixedModel.Kind.ACK, 30_000, 9_000, 40, 3 * one, 0), // endpoint above its target, 40 hops
            new SwiftFixedModel.Event(0, SwiftFixedModel.Kind.NACK, 0, 0, 0, 0, 0),
            new SwiftFixedModel.Event(1, SwiftFixedModel.Kind.TIMEOUT, 0, 0, 0, 0, 0),
            new SwiftFixedModel.Event(1, SwiftFixedModel.Kind.TIMEOUT, 0, 0, 0, 0, 0),
            new SwiftFixedModel.Event(0, SwiftFixedModel.Kind.ACK, 14_000, 0, 1, one, 0),
            new SwiftFixedModel.Event(1, SwiftFixedModel.Kind.TIMEOUT, 0, 0, 0, 0, 0),
            new SwiftFixedModel.Event(1, SwiftFixedModel.Kind.TIMEOUT, 0, 0, 0, 0, 0),
            new SwiftFixedModel.Event(1, SwiftFixedModel.Kind.TIMEOUT, 0, 0, 0, 0, 0),        // the fifth: reset to min_cwnd
        };
        List<List<BigInteger>> expectedUpdates = new ArrayList<>();
        java.util.Set<SwiftFixedModel.Change> changes = java.util.EnumSet.noneOf(SwiftFixedModel.Change.class);
        long now = 100_000;
        for (SwiftFixedModel.Event e : events) {
            now += 20_000;
            bench.send("io_event", e.flow(), e.kind().ordinal(), e.rttNs(), e.endpointDelayNs(), e.hops(), e.acked(), now);
            SwiftFixedModel.Update u = model.apply(new SwiftFixedModel.Event(e.flow(), e.kind(), e.rttNs(),
                    e.endpointDelayNs(), e.hops(), e.acked(), now));
            expectedUpdates.add(values(u.flow(), u.cwnd(), u.fabricCwnd(), u.endpointCwnd(), u.rule(), u.pacingNs()));
            changes.add(u.fabric());
            changes.add(u.endpoint());
        }
        assertEquals(4, changes.size(), "the sequence has every change: " + changes);
        bench.write(dir);
        assertBothSimulators(bench, dir, "io_update", expectedUpdates);
        assertIdentity(dir, 'W');
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
                .csrRead(RepsCsr.INFO).csrRead(RepsCsr.VERSION)
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
        assertIdentity(dir, 'R');
    }

    /**
     * Trimming queue (smartt-reps.txt Sec. 2.1): with the output held back, a control packet and
     * 26 data frames of 9 KB arrive at line rate; the data queue (150,000 B) takes the first ones,
     * the later ones that do not fit are trimmed to 64 B headers (an IPv6 one to its 74 header bytes),
     * with TRIM_DSCP as programmed and a fresh IPv4 header checksum, and one with a wrong IPv4
     * checksum is dropped whole. Then the output drains.
     *
     * <p>The model replays the bench's log: each frame at its admission edge (TrimQueue.admissionClocks
     * after its logged tlast) and the dequeues the RTL reported, as the cycle harness does; it
     * checks each dequeue's occupancy and RED decision itself. Every frame that left must be the
     * next one its queue expected, and all must have left.
     */
    @Test
    void trimQueueForwardsAndTrimsWithChecksumsRight() throws Exception {
        Path dir = generate("trim-queue");
        JsonNode params = new ObjectMapper().readTree(dir.resolve("uehw_trim_queue.manifest.json").toFile()).get("parameters");
        java.util.function.ToIntFunction<String> param = k -> Integer.parseInt(params.get(k).asText());
        int bytesPerBeat = param.applyAsInt("data-bytes");
        int trimDscp = 10;
        TrimQueueModel model = new TrimQueueModel(bytesPerBeat, param.applyAsInt("capacity-bytes"), param.applyAsInt("control-bytes"),
                param.applyAsInt("trim-entries"), param.applyAsInt("trim-bytes"), param.applyAsInt("max-frame-bytes"),
                param.applyAsInt("max-control-bytes"), param.applyAsInt("udp-port"), trimDscp,
                Long.parseLong(params.get("prng-seed").asText()));
        VerilogBench bench = new VerilogBench(dir.resolve("uehw_trim_queue.manifest.json"))
                .csrRead(TrimQueueCsr.INFO).csrRead(TrimQueueCsr.VERSION)
                .csrWrite(TrimQueueCsr.TRIM_DSCP, trimDscp)
                .holdReadyUntilInputsDone("m_axis")
                .logInput("s_axis", "s_axis_tlast")
                .drainClocks(4000);
        assertEquals(List.of("s_axis_tdata", "s_axis_tkeep", "s_axis_tlast", "s_axis_tuser"), bench.fields("s_axis"));
        Random r = new Random(18);
        List<byte[]> frames = new ArrayList<>();
        frames.add(TrimQueueTest.controlFrame(r, false, 0));
        for (int i = 0; i < 26; i++) {
            byte[] f = TrimQueueTest.dataFrame(r, i == 22, 1 + r.nextInt(2), 9000);
            frames.add(i == 24 ? TrimQueueTest.badChecksum(r, f) : f);
        }
        for (byte[] f : frames) {
            for (Axi4StreamPackets.Beat b : Axi4StreamPackets.beats(new Axi4StreamPackets.Packet(f, 0), bytesPerBeat)) {
                bench.send("s_axis", b.data(), b.keep(), BigInteger.valueOf(bit(b.last())), BigInteger.valueOf(b.user()));
            }
        }
        bench.write(dir);
        List<String> log = runBoth(bench, dir);
        assertIdentity(dir, 'T');

        // Replay: the frame whose tlast was taken at stamp t is admitted at t + admissionClocks; the
        // dequeue Flow logged at stamp x + 2 describes the edge of stamp x (registered one clock late).
        java.util.Map<Long, byte[]> admittedAt = new java.util.HashMap<>();
        java.util.Map<Long, TrimQueueModel.Dequeue> dequeueAt = new java.util.HashMap<>();
        int next = 0;
        long lastStamp = 0;
        for (String l : log) {
            String[] t = l.trim().split("\\s+");
            if (!t[t.length - 1].startsWith("@")) {
                continue;
            }
            long stamp = Long.parseLong(t[t.length - 1].substring(1));
            lastStamp = stamp;
            if (t[0].equals("s_axis") && t[1].equals("1")) {
                admittedAt.put(stamp + TrimQueue.admissionClocks(), frames.get(next++));
            } else if (t[0].equals("io_dequeue")) {
                dequeueAt.put(stamp - 2, new TrimQueueModel.Dequeue(t[1].equals("1"), Integer.parseInt(t[2], 16),
                        Long.parseLong(t[3], 16), t[4].equals("1"), t[5].equals("1"), t[6].equals("1")));
            }
        }
        assertEquals(frames.size(), next, "every frame's tlast was taken");
        for (long x = 0; x <= lastStamp; x++) {
            byte[] f = admittedAt.get(x);
            model.clock(dequeueAt.get(x), f, false, false, f == null ? 0 : f.length);
        }
        assertEquals(1, model.outcome(TrimQueueModel.Outcome.CONTROL));
        assertTrue(model.outcome(TrimQueueModel.Outcome.DATA) >= 16, "the data queue filled: " + model.outcomes);
        assertTrue(model.outcome(TrimQueueModel.Outcome.TRIM) >= 3, "frames that did not fit were trimmed: " + model.outcomes);
        assertEquals(1, model.outcome(TrimQueueModel.Outcome.DROP_DATA_FULL), "the bad-checksum frame is dropped, not trimmed");

        // Every frame that left, beat by beat from the log, in its queue's order.
        java.io.ByteArrayOutputStream frame = new java.io.ByteArrayOutputStream();
        int trimmedIpv4 = 0, trimmedIpv6 = 0;
        for (List<BigInteger> beat : lines(log, "m_axis")) { // tdata, tkeep, tlast, tuser
            for (int i = 0; i < bytesPerBeat; i++) {
                if (beat.get(1).testBit(i)) {
                    frame.write(beat.get(0).shiftRight(8 * i).intValue() & 0xFF);
                }
            }
            assertEquals(BigInteger.ZERO, beat.get(3), "m_axis_tuser is 0");
            if (beat.get(2).signum() != 0) {
                byte[] out = frame.toByteArray();
                frame.reset();
                if (!model.expectedTrimmed.isEmpty() && java.util.Arrays.equals(model.expectedTrimmed.peek(), out)) {
                    model.expectedTrimmed.poll();
                    uehw.model.packet.Packet p = new uehw.model.packet.Packet(out);
                    assertEquals(trimDscp, p.dscp(), "a trimmed header carries TRIM_DSCP");
                    assertTrue(p.isIpv4() ? p.ipv4HeaderVerifies() : p.udpVerifies(), "a trimmed header's checksum is right");
                    trimmedIpv4 += p.isIpv4() ? 1 : 0;
                    trimmedIpv6 += p.isIpv6() ? 1 : 0;
                } else if (!model.expectedControl.isEmpty() && java.util.Arrays.equals(model.expectedControl.peek(), out)) {
                    model.expectedControl.poll();
                } else {
                    assertTrue(!model.expectedData.isEmpty() && java.util.Arrays.equals(model.expectedData.poll(), out),
                            "a " + out.length + "-byte frame left that no queue expected next: " + dir.resolve("icarus.log")
                                    + ", waveform " + dir.resolve("icarus.fst"));
                    assertTrue(new uehw.model.packet.Packet(out).ipv4HeaderVerifies() || new uehw.model.packet.Packet(out).isIpv6(), "a forwarded header's checksum is right");
                }
            }
        }
        assertTrue(model.expectedControl.isEmpty() && model.expectedTrimmed.isEmpty() && model.expectedData.isEmpty(),
                "every admitted frame left");
        assertTrue(trimmedIpv4 >= 2 && trimmedIpv6 == 1, "trimmed IPv4 " + trimmedIpv4 + ", IPv6 " + trimmedIpv6);
    }
}
