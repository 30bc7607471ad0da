// SPDX-License-Identifier: Apache-2.0
package uehw.report;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A critical-path estimate for UltraScale+ -2 from a Yosys {@code synth_xilinx -family xcup}
 * netlist, timed by Yosys {@code sta} against a delay library this class writes.
 *
 * <p>{@code sta} reads one set of timing arcs per cell type (Verilog specify blocks). Delays
 * that depend on how a cell is used (the fanout it drives, whether a DSP's registers would be
 * packed, whether a block RAM uses its output register, whether a flip-flop's D input needs
 * general routing) are made cell types of their own: the netlist is retyped ({@code LUT6__f2},
 * {@code DSP48E2__2reg__f0}, ...) and one library module with its arcs is written per new type.
 * Logic synthesis without placement: the route delay is a per-input figure, not a placed route.
 * Every figure is in {@link #figures}, with its source; docs/resources.md prints that table.
 */
public final class XilinxTiming {
    private XilinxTiming() {
    }

    /** The three LUT(+input route) delays the estimate is reported at: a band, not one number. */
    public static final double[] LUT_BANDS_NS = {0.30, 0.40, 0.55};
    /** The LUT delay the "fits the clock" verdicts use. */
    public static final double LUT_NOMINAL_NS = 0.40;

    /** One figure of the delay model. */
    public record Figure(String symbol, double ns, String meaning, String source) {
    }

    // Figures in ns (UltraScale+, -2 speed grade, 0.85 V).
    static final double FF_CLK_TO_Q = 0.10;
    static final double FF_SETUP = 0.20;
    static final double LUT_LOGIC = 0.10;
    static final double MUXF = 0.10;
    static final double CARRY_S = 0.20;
    static final double CARRY_CI = 0.03;
    static final double DSP_COMB = 1e3 / 410;
    static final double DSP_2REG = 1e3 / 544;
    static final double DSP_ALU = 1.20;
    static final double BRAM_CLK_TO_OUT = 1.10;
    static final double BRAM_CLK_TO_OUT_REG = 0.33;
    static final double BRAM_SETUP = 0.45;
    static final double LUTRAM_CLK_TO_OUT = 1.00;
    static final double FANOUT_STEP = 0.10;
    // DSP48E2 with the registers Vivado packs (the second timing of `make reports`): one cell type
    // per register configuration. Model figures at the slow end of -2, checked against DS923's
    // FMAX: every internal register-to-register stage is at most 1.29 ns (FMAX 775 MHz), so the
    // cell's own paths never limit a 3.6 ns clock and only its pin arcs are timed.
    static final double DSP_IN_TO_REG = 0.30;
    static final double DSP_IN_TO_MREG = 1.70;
    static final double DSP_IN_TO_PREG = 2.30;
    static final double DSP_ALU_TO_PREG = 1.00;
    static final double DSP_PREG_TO_OUT = 0.40;
    static final double DSP_MREG_TO_OUT = 1.60;
    static final double DSP_AREG_TO_OUT = 2.30;

    /** How registers next to a DSP48E2 or a block RAM are timed. */
    public enum Packing {
        /**
         * The netlist as Yosys maps it for UltraScale+ (no register packed), with one packing
         * reproduced: flip-flops that drive only a DSP's A/B inputs and P bits that drive only
         * flip-flops make the DSP the 544 MHz two-register multiply.
         */
        FABRIC,
        /**
         * Every register Vivado would pack, packed: DSP48E2 A/B/C/D, M and P registers by Yosys'
         * DSP register packer ({@code xilinx_dsp}, run on the netlist before the coarse step),
         * each register configuration its own cell type; block-RAM output registers absorbed
         * (a flip-flop that is the only load of a RAM output bit becomes DO_REG).
         */
        VIVADO
    }

    /** The figures with their sources, for the documentation. */
    public static List<Figure> figures() {
        String ds923dsp = "DS923 (Virtex UltraScale+ data sheet) Table \"DSP48 Slice Switching Characteristics\", -2 at 0.85 V";
        List<Figure> packed = List.of(
                new Figure("DSP in -> register", DSP_IN_TO_REG, "Vivado-packed DSP48E2: A/B/C/D pin to its "
                        + "AREG/BREG/CREG/DREG (a route added)", ds923dsp + " (TDSPDCK setup, model figure)"),
                new Figure("DSP in -> MREG", DSP_IN_TO_MREG, "Vivado-packed: A/B pin through the multiplier into MREG "
                        + "(no AREG/BREG)", "model figure; FMAX 775 MHz bounds the registered stage at 1.29 ns"),
                new Figure("DSP in -> PREG", DSP_IN_TO_PREG, "Vivado-packed: A/B pin through multiplier and ALU into PREG "
                        + "(no AREG/BREG/MREG)", "model figure; FMAX_MULT_NOMREG 544 MHz less the input register"),
                new Figure("DSP C/PCIN -> PREG", DSP_ALU_TO_PREG, "Vivado-packed: C, PCIN, OPMODE, ALUMODE, CARRYIN pin "
                        + "into PREG (no CREG)", "model figure"),
                new Figure("DSP PREG -> out", DSP_PREG_TO_OUT, "Vivado-packed: clock to P/PCOUT out of PREG",
                        ds923dsp + " (TDSPCKO_P_PREG, model figure)"),
                new Figure("DSP MREG -> out", DSP_MREG_TO_OUT, "Vivado-packed: clock through MREG and the ALU to P "
                        + "(no PREG)", ds923dsp + " (TDSPCKO_P_MREG, model figure at the slow end)"),
                new Figure("DSP AREG -> out", DSP_AREG_TO_OUT, "Vivado-packed: clock through AREG/BREG, the multiplier "
                        + "and the ALU to P (no MREG, no PREG)", "model figure"),
                new Figure("BRAM DO_REG absorbed", BRAM_CLK_TO_OUT_REG, "Vivado-packed: a flip-flop that is the only "
                        + "load of a block-RAM output bit becomes DO_REG; the path starts at the RAM with this "
                        + "clock-to-out", "DS923 TRCKO_DO_REG"));
        List<Figure> all = new ArrayList<>(List.of(
                new Figure("LUT", LUT_BANDS_NS[1], "LUT plus the route into it; reported as the band "
                        + band() + " ns", "a public Vivado VU9P path of 15 logic levels in 4.17 ns is 0.27 ns a level; "
                        + "0.30 is that, 0.40 a loaded design, 0.55 a congested one"),
                new Figure("route", LUT_BANDS_NS[1] - LUT_LOGIC, "a general route alone (LUT figure less "
                        + LUT_LOGIC + " ns of LUT logic): into FF control pins, DSP, block RAM, LUTRAM write pins, "
                        + "CARRY DI, MUXF select, and into an FF D pin whose driver is not a LUT/MUXF/CARRY of its slice",
                        "model assumption"),
                new Figure("FF clock-to-Q", FF_CLK_TO_Q, "FDRE/FDSE/FDCE/FDPE C to Q", "UltraScale+ CLB flip-flop, "
                        + "about 0.1 ns in Vivado -2 timing reports"),
                new Figure("FF setup", FF_SETUP, "setup plus clock uncertainty, on D; control pins add a route",
                        "model assumption: about 0.05 ns setup plus 0.15 ns uncertainty/skew"),
                new Figure("MUXF", MUXF, "MUXF7/8 data input to output", "UltraScale+ CLB wide-function mux, about 0.1 ns"),
                new Figure("CARRY S", CARRY_S, "CARRY4 S or DI to CO/O", "UltraScale+ CARRY8 S to CO, about 0.2 ns"),
                new Figure("CARRY CI", CARRY_CI, "CARRY4 CI to CO/O (per 4 bits, the chain)", "about 0.03 ns per 4 bits"),
                new Figure("DSP comb", DSP_COMB, "DSP48E2 A/B/D to P with no register used (the route in added)",
                        ds923dsp + ": FMAX_NOPIPELINEREG 410 MHz"),
                new Figure("DSP 2-register", DSP_2REG, "flip-flop -> DSP48E2 -> flip-flop when the input flip-flops drive only "
                        + "the DSP and P drives only flip-flops: Vivado packs them as AREG/BREG and PREG",
                        ds923dsp + ": FMAX_MULT_NOMREG (two-register multiply without MREG) 544 MHz"),
                new Figure("DSP ALU", DSP_ALU, "DSP48E2 C/PCIN/OPMODE/ALUMODE/CARRYIN to P", "model assumption: "
                        + "the post-adder alone, about half the multiply path"),
                new Figure("BRAM clock-to-out", BRAM_CLK_TO_OUT, "RAMB18E2/RAMB36E2 CLK to DOUT without the output register",
                        "DS923 TRCKO_DO about 1.1 ns at -2 (Versal DS958 lists 0.8-1.2 ns for the same block)"),
                new Figure("BRAM clock-to-out (DO_REG)", BRAM_CLK_TO_OUT_REG, "with the output register",
                        "DS923 TRCKO_DO_REG about 0.33 ns"),
                new Figure("BRAM setup", BRAM_SETUP, "address, data, enable and write-enable setup (a route added)",
                        "model assumption: TRCCK_ADDR/TRDCK_DI of 0.3-0.5 ns"),
                new Figure("LUTRAM/SRL clock-to-out", LUTRAM_CLK_TO_OUT, "RAM32M/RAM64M/RAM64X1D/SRL16E write clock to output",
                        "model assumption: SLICEM write-to-out about 1 ns (the Yosys 7-series cell library has 1.47 ns for Artix-7 -1)"),
                new Figure("fanout", FANOUT_STEP, "added to every output of a cell per doubling of its fanout above 8, "
                        + "at most 7 steps (0.7 ns at fanout > 512, where Vivado replicates)", "model assumption")));
        all.addAll(packed);
        return all;
    }

    private static String band() {
        StringBuilder sb = new StringBuilder();
        for (double b : LUT_BANDS_NS) {
            sb.append(sb.length() == 0 ? "" : " / ").append(String.format(Locale.ROOT, "%.2f", b));
        }
        return sb.toString();
    }

    /** The file {@link #abc9LutLibrary} is written to, next to the design, for Yosys to read. */
    public static final String ABC9_LUT_LIBRARY_FILE = "abc9_luts.v";

    /**
     * The LUT library ABC9 maps with, in the model's terms. Delay: every input of every
     * LUT1..LUT6 at {@code lutNs}; a LUT7 (two LUT6 and a MUXF7) one MUXF more, a LUT8 two.
     * Area: the LUT sites used (1 for LUT1..LUT6, 2 for a LUT7, 4 for a LUT8). Yosys' own
     * library (cells_sim.v) carries 7-series pin delays (I5 of a LUT6 0.127 ns, I0 0.642 ns) and
     * areas that make a LUT6 cost five LUT2s: mapped against those, ABC9 builds chains of
     * fast-pin LUT2s, each of which costs a whole LUT and its route in UltraScale+ as in this
     * model. Read with {@code read_verilog -lib -specify -overwrite} after synth_xilinx's
     * {@code begin} step.
     */
    public static String abc9LutLibrary(double lutNs) {
        StringBuilder sb = new StringBuilder("// ABC9 LUT library for UltraScale+: every LUT input at the same delay (")
                .append(String.format(Locale.ROOT, "%.2f ns", lutNs)).append("), written by uehw.report.XilinxTiming.\n");
        for (int k = 1; k <= 8; k++) {
            String name = k <= 6 ? "LUT" + k : "\\$__ABC9_LUT" + k + " ";
            int ps = ps(lutNs + (k <= 6 ? 0 : (k - 6) * MUXF));
            sb.append("(* abc9_lut=").append(k <= 6 ? 1 : 1 << (k - 6)).append(" *)\n")
              .append("module ").append(name).append("(output O");
            for (int i = 0; i < k; i++) {
                sb.append(", input I").append(i);
            }
            sb.append(");\n  parameter [").append((1 << k) - 1).append(":0] INIT = 0;\n")
              .append("  assign O = INIT[{");
            for (int i = k - 1; i >= 0; i--) {
                sb.append("I").append(i).append(i > 0 ? ", " : "");
            }
            sb.append("}];\n  specify\n");
            for (int i = 0; i < k; i++) {
                sb.append("    (I").append(i).append(" => O) = ").append(ps).append(";\n");
            }
            sb.append("  endspecify\nendmodule\n");
        }
        return sb.toString();
    }

    /** What {@code sta} is given: the retyped top module as Yosys JSON and the delay library. */
    public record Prepared(String netlistJson, String libraryVerilog) {
    }

    private static final Set<String> SLICE_LOGIC_PREFIXES = Set.of("LUT", "INV", "MUXF", "CARRY");

    private static String base(String type) {
        int i = type.indexOf("__");
        return i < 0 ? type : type.substring(0, i);
    }

    private static boolean isSliceLogic(String type) {
        for (String p : SLICE_LOGIC_PREFIXES) {
            if (type.startsWith(p)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isFlipFlop(String type) {
        return type.matches("FD[RSCP]E(_1)?");
    }

    private static int fanoutSteps(int fanout) {
        int steps = 0;
        for (int f = 8; f < fanout && steps < 7; f *= 2) {
            steps++;
        }
        return steps;
    }

    private record Pin(String cell, String port) {
    }

    /** Retypes the netlist of {@code top} for timing and writes the library, for one LUT delay. */
    public static Prepared prepare(String netlistJson, String top, double lutNs) throws java.io.IOException {
        return prepare(netlistJson, top, lutNs, Packing.FABRIC);
    }

    /** The output ports of a block RAM, per port (A, B), whose flip-flop loads DO_REG would absorb. */
    private static final String[][] RAM_OUTPUTS = {{"DOUTADOUT", "DOUTPADOUTP"}, {"DOUTBDOUT", "DOUTPBDOUTP"}};
    private static final String[] RAM_DO_REG = {"DOA_REG", "DOB_REG"};

    /** Every net bit's loads: cell input pins, and the module's output ports (as a pin of cell ""). */
    private static Map<Long, List<Pin>> sinksOf(JsonNode module) {
        Map<Long, List<Pin>> sinks = new HashMap<>();
        module.path("cells").fields().forEachRemaining(c -> {
            JsonNode dirs = c.getValue().path("port_directions");
            c.getValue().path("connections").fields().forEachRemaining(port -> {
                if (!"output".equals(dirs.path(port.getKey()).asText())) {
                    for (JsonNode bit : port.getValue()) {
                        if (bit.isNumber()) {
                            sinks.computeIfAbsent(bit.asLong(), k -> new ArrayList<>()).add(new Pin(c.getKey(), port.getKey()));
                        }
                    }
                }
            });
        });
        module.path("ports").fields().forEachRemaining(p -> {
            if ("output".equals(p.getValue().path("direction").asText())) {
                for (JsonNode bit : p.getValue().path("bits")) {
                    if (bit.isNumber()) {
                        sinks.computeIfAbsent(bit.asLong(), k -> new ArrayList<>()).add(new Pin("", "port"));
                    }
                }
            }
        });
        return sinks;
    }

    /**
     * Vivado's block-RAM output register: where every used output bit of a RAM port has one load,
     * the D pin of a flip-flop, and those flip-flops share their clock, enable and reset, the
     * flip-flops go into the RAM (DO_REG = 1) and the RAM drives their Q nets.
     */
    static void absorbRamOutputRegisters(ObjectNode module) {
        ObjectNode cells = (ObjectNode) module.path("cells");
        Map<Long, List<Pin>> sinks = sinksOf(module);
        List<String> absorbed = new ArrayList<>();
        cells.fields().forEachRemaining(c -> {
            if (!c.getValue().path("type").asText().startsWith("RAMB")) {
                return;
            }
            ObjectNode conn = (ObjectNode) c.getValue().path("connections");
            for (int port = 0; port < 2; port++) {
                if (registered(c.getValue().path("parameters").path(RAM_DO_REG[port])) == 1) {
                    continue;
                }
                Map<String, String> ffOf = new LinkedHashMap<>();
                String control = null;
                boolean ok = true;
                for (String out : RAM_OUTPUTS[port]) {
                    for (JsonNode bit : conn.path(out)) { // a port the netlist leaves out iterates as empty
                        List<Pin> s = bit.isNumber() ? sinks.getOrDefault(bit.asLong(), List.of()) : List.of();
                        if (s.isEmpty()) {
                            continue;
                        }
                        Pin only = s.get(0);
                        JsonNode ff = cells.path(only.cell());
                        ok &= s.size() == 1 && !only.cell().isEmpty() && only.port().equals("D")
                                && ff.path("type").asText().matches("FD[RS]E");
                        if (!ok) {
                            break;
                        }
                        JsonNode fc = ff.path("connections");
                        String ctl = fc.path("C").toString() + fc.path("CE") + fc.path("R") + fc.path("S");
                        ok &= control == null || control.equals(ctl);
                        control = ctl;
                        ffOf.put(out + "/" + bit.asLong(), only.cell());
                    }
                }
                if (!ok || ffOf.isEmpty()) {
                    continue;
                }
                for (String out : RAM_OUTPUTS[port]) {
                    if (!conn.path(out).isArray()) {
                        continue;
                    }
                    ArrayNode bits = (ArrayNode) conn.path(out);
                    for (int i = 0; i < bits.size(); i++) {
                        String ff = bits.get(i).isNumber() ? ffOf.get(out + "/" + bits.get(i).asLong()) : null;
                        if (ff != null) {
                            bits.set(i, cells.path(ff).path("connections").path("Q").get(0));
                            absorbed.add(ff);
                        }
                    }
                }
                ((ObjectNode) c.getValue().path("parameters")).put(RAM_DO_REG[port], "1");
            }
        });
        absorbed.forEach(cells::remove);
    }

    /** Retypes the netlist of {@code top} for timing under one packing, for one LUT delay. */
    public static Prepared prepare(String netlistJson, String top, double lutNs, Packing packing) throws java.io.IOException {
        ObjectMapper om = new ObjectMapper();
        JsonNode module = om.readTree(netlistJson).path("modules").path(top);
        if (module.isMissingNode()) {
            throw new IllegalArgumentException("no module " + top + " in the netlist");
        }
        if (packing == Packing.VIVADO) {
            absorbRamOutputRegisters((ObjectNode) module);
        }
        JsonNode cells = module.path("cells");
        Map<Long, List<Pin>> sinks = sinksOf(module);
        Map<Long, Pin> driver = new HashMap<>();
        Map<String, String> typeOf = new HashMap<>();
        cells.fields().forEachRemaining(c -> {
            typeOf.put(c.getKey(), c.getValue().path("type").asText());
            JsonNode dirs = c.getValue().path("port_directions");
            c.getValue().path("connections").fields().forEachRemaining(port -> {
                if ("output".equals(dirs.path(port.getKey()).asText())) {
                    for (JsonNode bit : port.getValue()) {
                        if (bit.isNumber()) {
                            driver.put(bit.asLong(), new Pin(c.getKey(), port.getKey()));
                        }
                    }
                }
            });
        });

        // DSPs whose registers Vivado would pack: every A/B bit from a flip-flop that drives only
        // this DSP, and every used P bit into flip-flop D pins only.
        Set<String> packedDsps = new LinkedHashSet<>();
        cells.fields().forEachRemaining(c -> {
            if (packing != Packing.FABRIC || !"DSP48E2".equals(typeOf.get(c.getKey()))) {
                return;
            }
            JsonNode conn = c.getValue().path("connections");
            boolean packable = true;
            boolean anyInput = false;
            for (String in : new String[] {"A", "B"}) {
                for (JsonNode bit : conn.path(in)) {
                    if (!bit.isNumber()) {
                        continue;
                    }
                    anyInput = true;
                    Pin d = driver.get(bit.asLong());
                    // A sign-extended operand drives several pins of the DSP from one flip-flop.
                    packable &= d != null && isFlipFlop(typeOf.get(d.cell()))
                            && sinks.get(bit.asLong()).stream().allMatch(s -> s.cell().equals(c.getKey()));
                }
            }
            for (String in : new String[] {"C", "PCIN", "D"}) {
                for (JsonNode bit : conn.path(in)) {
                    packable &= !bit.isNumber();
                }
            }
            for (JsonNode bit : conn.path("P")) {
                if (bit.isNumber()) {
                    for (Pin s : sinks.getOrDefault(bit.asLong(), List.of())) {
                        packable &= !s.cell().isEmpty() && isFlipFlop(typeOf.get(s.cell())) && s.port().equals("D")
                                && sinks.get(bit.asLong()).size() == 1;
                    }
                }
            }
            if (packable && anyInput) {
                packedDsps.add(c.getKey());
            }
        });

        ObjectNode outModule = om.createObjectNode();
        outModule.set("ports", module.path("ports"));
        ObjectNode outCells = outModule.putObject("cells");
        Map<String, JsonNode> representative = new TreeMap<>();
        Map<String, Boolean> packedType = new HashMap<>();
        cells.fields().forEachRemaining(c -> {
            String type = typeOf.get(c.getKey());
            if (type.equals("$scopeinfo")) {
                return; // Yosys's record of the flattened hierarchy, not hardware
            }
            JsonNode conn = c.getValue().path("connections");
            JsonNode dirs = c.getValue().path("port_directions");
            int fanout = 0;
            var ports = conn.fields();
            while (ports.hasNext()) {
                var p = ports.next();
                if ("output".equals(dirs.path(p.getKey()).asText())) {
                    for (JsonNode bit : p.getValue()) {
                        if (bit.isNumber()) {
                            fanout = Math.max(fanout, sinks.getOrDefault(bit.asLong(), List.of()).size());
                        }
                    }
                }
            }
            StringBuilder t = new StringBuilder(type);
            if (isFlipFlop(type)) {
                Pin d = conn.path("D").size() == 1 && conn.path("D").get(0).isNumber()
                        ? driver.get(conn.path("D").get(0).asLong()) : null;
                boolean local = d != null && (isSliceLogic(typeOf.get(d.cell())) || packedDsps.contains(d.cell()));
                t.append(local ? "__dlocal" : "__drouted");
            } else if (packing == Packing.VIVADO && type.matches("DSP48E[12]")) {
                // Yosys' packer works on the 7-series DSP48E1 (mapped here at 27x18); timed as a DSP48E2.
                JsonNode p = c.getValue().path("parameters");
                t.setLength(0);
                t.append("DSP48E2__v");
                for (String reg : DSP_REGISTERS) {
                    t.append(registered(p.path(reg)));
                }
            } else if (type.equals("DSP48E2")) {
                t.append(packedDsps.contains(c.getKey()) ? "__2reg" : "__comb");
            } else if (type.startsWith("RAMB")) {
                JsonNode p = c.getValue().path("parameters");
                t.append("__a").append(registered(p.path("DOA_REG"))).append("b").append(registered(p.path("DOB_REG")));
            }
            t.append("__f").append(fanoutSteps(fanout));
            String newType = t.toString();
            representative.putIfAbsent(newType, c.getValue());
            ObjectNode cell = outCells.putObject(c.getKey());
            cell.put("type", newType);
            cell.set("port_directions", dirs);
            // An output bit nothing reads is no path end: sta would take it for one (a RAM port's unused data out).
            ObjectNode used = om.createObjectNode();
            conn.fields().forEachRemaining(port -> {
                boolean out = "output".equals(dirs.path(port.getKey()).asText());
                ArrayNode bits = used.putArray(port.getKey());
                for (JsonNode bit : port.getValue()) {
                    bits.add(out && bit.isNumber() && !sinks.containsKey(bit.asLong()) ? om.getNodeFactory().textNode("x") : bit);
                }
            });
            cell.set("connections", used);
        });
        outModule.set("netnames", module.path("netnames"));
        ObjectNode root = om.createObjectNode();
        root.putObject("modules").set(top, outModule);

        StringBuilder lib = new StringBuilder("// UltraScale+ -2 delay library for Yosys sta, written by uehw.report.XilinxTiming\n")
                .append(String.format(Locale.ROOT, "// LUT (+ input route) %.2f ns; delays in ps.%n", lutNs));
        for (var e : representative.entrySet()) {
            lib.append(libraryModule(e.getKey(), e.getValue(), lutNs));
        }
        return new Prepared(om.writeValueAsString(root), lib.toString());
    }

    private static int registered(JsonNode param) {
        String v = param.asText("0");
        return v.chars().anyMatch(ch -> ch == '1') ? 1 : 0;
    }

    private static int ps(double ns) {
        return (int) Math.round(ns * 1000);
    }

    /** One blackbox module with the arcs of a retyped cell. */
    static String libraryModule(String type, JsonNode cell, double lut) {
        String b = base(type);
        double route = lut - LUT_LOGIC;
        double fo = FANOUT_STEP * Integer.parseInt(type.substring(type.lastIndexOf("__f") + 3));
        JsonNode dirs = cell.path("port_directions");
        JsonNode conn = cell.path("connections");
        List<String> ins = new ArrayList<>();
        List<String> outs = new ArrayList<>();
        Map<String, Integer> width = new LinkedHashMap<>();
        dirs.fields().forEachRemaining(p -> {
            width.put(p.getKey(), conn.path(p.getKey()).size());
            ("output".equals(p.getValue().asText()) ? outs : ins).add(p.getKey());
        });
        List<String> arcs = new ArrayList<>();
        java.util.function.BiConsumer<String, Double> combToAll = (in, ns) -> {
            for (String o : outs) {
                arcs.add(String.format("(%s *> %s) = %d;", in, o, ps(ns + fo)));
            }
        };
        if (b.startsWith("LUT") || b.equals("INV")) {
            ins.forEach(i -> combToAll.accept(i, lut));
        } else if (b.startsWith("MUXF")) {
            ins.forEach(i -> combToAll.accept(i, i.equals("S") ? route + MUXF : MUXF));
        } else if (b.startsWith("CARRY")) {
            for (String i : ins) {
                combToAll.accept(i, switch (i) {
                    case "CI", "CI_TOP" -> CARRY_CI;
                    case "S" -> CARRY_S;
                    default -> route + CARRY_S; // DI, CYINIT
                });
            }
        } else if (isFlipFlop(b)) {
            String clk = "C";
            arcs.add(String.format("(posedge C => (Q : D)) = %d;", ps(FF_CLK_TO_Q + fo)));
            for (String i : ins) {
                if (!i.equals(clk)) {
                    boolean routed = !i.equals("D") || type.contains("__drouted");
                    arcs.add(String.format("$setup(%s, posedge C, %d);", i, ps(FF_SETUP + (routed ? route : 0))));
                }
            }
        } else if (b.equals("DSP48E2") && type.contains("__v")) {
            vivadoPackedDspArcs(type, ins, outs, width, route, fo, arcs);
        } else if (b.equals("DSP48E2")) {
            boolean packed = type.contains("__2reg");
            for (String i : ins) {
                if (i.startsWith("CLK") || i.startsWith("CE") || i.startsWith("RST")) {
                    continue;
                }
                double ns = switch (i) {
                    case "A", "B", "D", "ACIN", "BCIN" -> packed ? DSP_2REG - FF_CLK_TO_Q - FF_SETUP : route + DSP_COMB;
                    default -> route + DSP_ALU;
                };
                combToAll.accept(i, ns);
            }
        } else if (b.startsWith("RAMB")) {
            boolean regA = type.contains("__a1");
            boolean regB = type.contains("b1__");
            for (String o : outs) {
                boolean portB = o.startsWith("DOUTB") || o.startsWith("DOUTPB");
                String clk = portB ? "CLKBWRCLK" : "CLKARDCLK";
                boolean reg = portB ? regB : regA;
                arcs.add(String.format("(posedge %s *> (%s : %d'bx)) = %d;", clk, o, width.get(o),
                        ps((reg ? BRAM_CLK_TO_OUT_REG : BRAM_CLK_TO_OUT) + fo)));
            }
            for (String i : ins) {
                if (!i.startsWith("CLK")) {
                    arcs.add(String.format("$setup(%s, posedge CLKARDCLK, %d);", i, ps(BRAM_SETUP + route)));
                }
            }
        } else if (b.startsWith("RAM") || b.startsWith("SRL")) {
            String clk = ins.contains("WCLK") ? "WCLK" : "CLK";
            boolean wide = b.startsWith("RAM128") || b.startsWith("RAM256");
            double read = lut + (b.startsWith("RAM256") ? 2 * MUXF : wide ? MUXF : 0);
            // The last address port of a multi-port LUTRAM is its write address (ADDRD of RAM32M, ADDRH of RAM32M16).
            String writeAddress = ins.stream().filter(i -> i.matches("ADDR[A-H]")).max(String::compareTo).orElse("");
            for (String o : outs) {
                arcs.add(String.format("(posedge %s *> (%s : %d'bx)) = %d;", clk, o, width.get(o), ps(LUTRAM_CLK_TO_OUT + fo)));
                for (String i : ins) {
                    if (readsOutput(i, o)) {
                        arcs.add(String.format("(%s *> %s) = %d;", i, o, ps(read + fo)));
                    }
                }
            }
            for (String i : ins) {
                boolean readOnlyAddress = i.matches("ADDR[A-H]") && !i.equals(writeAddress) || i.startsWith("DPRA")
                        || b.startsWith("SRL") && i.matches("A\\d?");
                if (!i.equals(clk) && !readOnlyAddress) {
                    arcs.add(String.format("$setup(%s, posedge %s, %d);", i, clk, ps(FF_SETUP + route)));
                }
            }
        } else {
            throw new IllegalArgumentException("no delay figures for cell type " + b
                    + " (add its arcs to uehw.report.XilinxTiming)");
        }
        StringBuilder sb = new StringBuilder("(* blackbox *)\nmodule ").append(type).append(" (");
        List<String> decl = new ArrayList<>();
        for (String p : width.keySet()) {
            int w = width.get(p);
            decl.add((outs.contains(p) ? "output " : "input ") + (w > 1 ? "[" + (w - 1) + ":0] " : "") + p);
        }
        sb.append(String.join(", ", decl)).append(");\nspecify\n");
        arcs.forEach(a -> sb.append("  ").append(a).append('\n'));
        return sb.append("endspecify\nendmodule\n").toString();
    }

    /** The packed DSP's registers, in the order of the flags after {@code __v} in its type name. */
    private static final List<String> DSP_REGISTERS = List.of("AREG", "BREG", "CREG", "DREG", "MREG", "PREG");

    private static boolean reg(String type, String register) {
        return type.charAt(type.indexOf("__v") + 3 + DSP_REGISTERS.indexOf(register)) == '1';
    }

    /**
     * The pin arcs of a DSP48E2 with the registers Vivado packs ({@code __v} followed by a 0 or 1
     * for each of {@link #DSP_REGISTERS}). Outputs on the P side (P, PCOUT, CARRYOUT, the pattern detector)
     * come from PREG, else MREG, else the A/B registers (clock arcs), or combinationally from the
     * inputs that no register stops; inputs set up into the first register they meet.
     */
    private static void vivadoPackedDspArcs(String type, List<String> ins, List<String> outs, Map<String, Integer> width,
                                            double route, double fo, List<String> arcs) {
        boolean a = reg(type, "AREG");
        boolean b = reg(type, "BREG");
        boolean c = reg(type, "CREG");
        boolean d = reg(type, "DREG");
        boolean m = reg(type, "MREG");
        boolean p = reg(type, "PREG");
        List<String> pSide = outs.stream().filter(o -> !o.equals("ACOUT") && !o.equals("BCOUT")).toList();
        for (String o : outs) {
            double clockToOut;
            if (o.equals("ACOUT") || o.equals("BCOUT")) {
                clockToOut = (o.equals("ACOUT") ? a : b) ? DSP_PREG_TO_OUT : -1;
            } else {
                clockToOut = p ? DSP_PREG_TO_OUT : m ? DSP_MREG_TO_OUT : a || b || d ? DSP_AREG_TO_OUT : -1;
            }
            if (clockToOut >= 0) {
                arcs.add(String.format("(posedge CLK *> (%s : %d'bx)) = %d;", o, width.get(o), ps(clockToOut + fo)));
            }
        }
        for (String i : ins) {
            if (i.equals("CLK") || i.startsWith("CE") || i.startsWith("RST")) {
                continue;
            }
            boolean multiplierInput = i.equals("A") || i.equals("B") || i.equals("D") || i.equals("ACIN") || i.equals("BCIN");
            boolean ownRegister = switch (i) {
                case "A", "ACIN" -> a;
                case "B", "BCIN" -> b;
                case "D" -> d;
                case "C" -> c;
                default -> false;
            };
            double setup;
            double comb;
            if (ownRegister) {
                setup = DSP_IN_TO_REG;
                comb = -1;
            } else if (multiplierInput) {
                setup = m ? DSP_IN_TO_MREG : p ? DSP_IN_TO_PREG : -1;
                comb = DSP_COMB;
            } else {
                setup = p ? DSP_ALU_TO_PREG : -1;
                comb = DSP_ALU;
            }
            if (setup >= 0) {
                arcs.add(String.format("$setup(%s, posedge CLK, %d);", i, ps(setup + route)));
            } else {
                for (String o : pSide) {
                    arcs.add(String.format("(%s *> %s) = %d;", i, o, ps(route + comb + fo)));
                }
            }
            if (!ownRegister && (i.equals("A") || i.equals("B")) && outs.contains(i.charAt(0) + "COUT")) {
                arcs.add(String.format("(%s *> %sCOUT) = %d;", i, i, ps(route + DSP_IN_TO_REG + fo)));
            }
        }
    }

    /** Which read-address inputs of a LUTRAM or SRL drive an output. */
    private static boolean readsOutput(String in, String out) {
        if (out.matches("DO[A-H]")) {
            return in.equals("ADDR" + out.charAt(2));
        }
        if (out.equals("DPO")) {
            return in.startsWith("DPRA");
        }
        if (out.equals("SPO") || out.equals("O") || out.equals("Q")) {
            return in.matches("A\\d?") || in.equals("A");
        }
        return false;
    }

    /** The limiting path of one {@code sta} run. */
    public record Path(double ns, String startCell, String startNet, String endCell, String endNet,
                       Map<String, Integer> cellsOnPath, List<String> namedNets) {
        /** "3 LUT + 2 CARRY4 + 1 DSP48E2" style summary of what the path runs through. */
        public String composition() {
            List<String> parts = new ArrayList<>();
            cellsOnPath.forEach((k, v) -> parts.add(v + " " + k));
            return String.join(" + ", parts);
        }
    }

    private static final Pattern LATEST = Pattern.compile("Latest arrival time in '[^']*' is (\\d+):");
    private static final Pattern CELL_LINE = Pattern.compile("^\\s+(-?\\d+) (\\S+) \\(([^.()]+)\\.([^)]+)\\)\\s*$");
    private static final Pattern DESIGN_NAME = Pattern.compile("\\\\([A-Za-z_][A-Za-z0-9_]*)");

    /**
     * Parses the path {@code sta} prints (end point first, back to the clock input) into the
     * limiting path; {@code netOfCell} names a cell's register by its output net (for the start
     * and end points, whose cell names are Yosys-internal).
     */
    public static Path parseSta(String log, Map<String, String> netOfCell) {
        String[] lines = log.split("\\R");
        int i = 0;
        while (i < lines.length && !LATEST.matcher(lines[i]).find()) {
            i++;
        }
        if (i == lines.length) {
            throw new IllegalArgumentException("sta printed no path");
        }
        Matcher m = LATEST.matcher(lines[i]);
        m.find();
        double ns = Integer.parseInt(m.group(1)) / 1000.0;
        String endCell = null;
        String startCell = null;
        Map<String, Integer> counts = new TreeMap<>();
        List<String> nets = new ArrayList<>();
        for (i++; i < lines.length && !lines[i].isBlank(); i++) {
            if (lines[i].contains("<primary input>")) {
                continue;
            }
            // The design's own names survive in the nets and in ABC's cell names ($lut\\name).
            Matcher named = DESIGN_NAME.matcher(lines[i]);
            while (named.find()) {
                if (nets.isEmpty() || !nets.get(0).equals(named.group(1))) {
                    nets.add(0, named.group(1));
                }
            }
            Matcher c = CELL_LINE.matcher(lines[i]);
            if (!c.matches()) {
                continue;
            }
            String cell = c.group(2);
            String type = base(c.group(3));
            if (endCell == null) {
                endCell = cell;
                continue;
            }
            if (c.group(4).contains("->")) {
                String from = c.group(4).substring(0, c.group(4).indexOf("->"));
                boolean clocked = from.equals("C") || from.startsWith("CLK") || from.equals("WCLK");
                if (clocked) {
                    startCell = cell;
                }
                String kind = type.startsWith("LUT") || type.equals("INV") ? "LUT" : type;
                if (!clocked || !isFlipFlop(type)) {
                    counts.merge(kind, 1, Integer::sum);
                }
            }
        }
        return new Path(ns, startCell, startCell == null ? "(input port)" : netOfCell.getOrDefault(startCell, startCell),
                endCell, endCell == null ? "(output port)" : netOfCell.getOrDefault(endCell, endCell), counts, nets);
    }

    /** For each register, RAM or DSP cell of the netlist: the public name of the net its output drives. */
    public static Map<String, String> outputNetNames(String netlistJson, String top) throws java.io.IOException {
        JsonNode module = new ObjectMapper().readTree(netlistJson).path("modules").path(top);
        Map<Long, String> nameOf = new HashMap<>();
        module.path("netnames").fields().forEachRemaining(n -> {
            boolean hidden = n.getValue().path("hide_name").asInt(0) == 1 || n.getKey().contains("$");
            if (!hidden) {
                ArrayNode bits = (ArrayNode) n.getValue().path("bits");
                for (int b = 0; b < bits.size(); b++) {
                    if (bits.get(b).isNumber()) {
                        String name = bits.size() > 1 ? n.getKey() + "[" + b + "]" : n.getKey();
                        nameOf.merge(bits.get(b).asLong(), name, (x, y) -> x.length() <= y.length() ? x : y);
                    }
                }
            }
        });
        Map<String, String> out = new HashMap<>();
        module.path("cells").fields().forEachRemaining(c -> {
            JsonNode dirs = c.getValue().path("port_directions");
            c.getValue().path("connections").fields().forEachRemaining(p -> {
                if (!"output".equals(dirs.path(p.getKey()).asText()) || out.containsKey(c.getKey())) {
                    return;
                }
                for (JsonNode bit : p.getValue()) {
                    String name = bit.isNumber() ? nameOf.get(bit.asLong()) : null;
                    if (name != null) {
                        out.put(c.getKey(), name);
                        return;
                    }
                }
            });
        });
        return out;
    }
}
