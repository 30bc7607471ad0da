// SPDX-License-Identifier: Apache-2.0
package uehw.report;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import uehw.hw.BlockSpec;
import uehw.hw.Blocks;
import uehw.hw.Generator;
import uehw.hw.SweepPoint;
import uehw.hw.common.ParamValues;

/**
 * Resource and timing reports from real tools. UltraScale+: YoWASP Yosys 0.55 {@code synth_xilinx
 * -family xcup -abc9} for the cells, and {@code sta} against the delay library of
 * {@link XilinxTiming} for a critical path in ns at three LUT delays. iCE40: Yosys +
 * nextpnr-ice40, real place and route (Fmax, or "does not fit" with the utilisation). Reference
 * designs are measured in the same run, so every figure can be read against them.
 */
public final class Reports {
    public static final String ICE40_DEVICE = "hx8k";
    public static final String ICE40_PACKAGE = "ct256";
    private static final double PNR_TARGET_MHZ = 100;
    /** The Node runner of the pinned YoWASP Yosys (YowaspTool: the property, build/yowasp, the user cache). */
    private static Path yowaspRunner;
    /** NIC clocks the verdicts are given for: Corundum's 250 MHz core clock, the 322 MHz CMAC clock. */
    public static final double[] NIC_CLOCKS_MHZ = {250, 322};
    /** The margin a block keeps under the 4.0 ns of 250 MHz against the mapping noise (0.2-0.8 ns between mappings). */
    public static final double MARGIN_NS = 0.4;

    private final Path outDir;
    private final PrintStream progress;
    private final long start = System.nanoTime();
    private Map<String, Object> reference;
    private List<Map<String, Object>> references;

    public Reports(Path outDir, PrintStream progress) {
        this.outDir = outDir;
        this.progress = progress;
    }

    /** The configurations `make reports-full` sweeps for a block (its descriptor's sweep): label -> parameters. */
    public static Map<String, Map<String, String>> sweep(String block) {
        return points(block, p -> true);
    }

    /** What `make reports` runs of a block: its default configuration and the sweep points marked inReports. */
    public static Map<String, Map<String, String>> defaults(String block) {
        return points(block, p -> p.isDefault() || p.inReports());
    }

    private static Map<String, Map<String, String>> points(String block, java.util.function.Predicate<SweepPoint> which) {
        BlockSpec spec = Blocks.find(block);
        if (spec == null) {
            throw new IllegalArgumentException("no block " + block);
        }
        Map<String, Map<String, String>> s = new LinkedHashMap<>();
        for (SweepPoint p : spec.sweepJava()) {
            if (which.test(p)) {
                s.put(p.label(), p.paramsJava());
            }
        }
        return s;
    }

    public static void checkTools() {
        yowaspRunner = YowaspTool.find();
        if (yowaspRunner == null) {
            throw new IllegalStateException(YowaspTool.missingMessage());
        }
        for (String tool : new String[] {"yosys", "nextpnr-ice40", "node"}) {
            try {
                Process p = new ProcessBuilder(tool, tool.equals("node") ? "--version" : "-V").redirectErrorStream(true).start();
                p.getInputStream().readAllBytes();
                p.waitFor();
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(tool + " is missing: install it with "
                        + "`apt-get install yosys nextpnr-ice40 fpga-icestorm nodejs npm` (or run `make tools` as root)");
            }
        }
    }

    private void say(String what) {
        progress.printf(Locale.ROOT, "[%6.1f s] %s%n", (System.nanoTime() - start) / 1e9, what);
    }

    /** Measures the reference designs once per run; the accumulator also on iCE40 (the Fmax ratio). */
    public List<Map<String, Object>> references() throws IOException, InterruptedException {
        if (references == null) {
            references = new ArrayList<>();
            for (String label : uehw.hw.References.labels()) {
                Path dir = outDir.resolve("work/reference").resolve(label.replaceAll("[^A-Za-z0-9=.-]+", "_"));
                say("reference: " + label);
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("label", label);
                r.putAll(measure("reference " + label, dir, () -> uehw.hw.References.top(label), reference == null));
                references.add(r);
                if (reference == null) {
                    reference = r;
                }
            }
        }
        return references;
    }

    /** The 32-bit accumulator, the reference of the iCE40 Fmax ratio. */
    public Map<String, Object> reference() throws IOException, InterruptedException {
        references();
        return reference;
    }

    /** Reports one configuration of a block. */
    public Map<String, Object> report(BlockSpec block, String label, ParamValues values)
            throws IOException, InterruptedException {
        Map<String, Object> ref = reference();
        String dirName = label.replaceAll("[^A-Za-z0-9=.-]+", "_");
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("block", block.name());
        r.put("label", label);
        r.put("parameters", values.asJava());
        r.put("facts", block.facts(values));
        r.putAll(measure(block.name() + " " + label, outDir.resolve("work").resolve(block.name()).resolve(dirName),
                () -> block.top(values), true));
        @SuppressWarnings("unchecked")
        Map<String, Object> ice = (Map<String, Object>) r.get("ice40");
        @SuppressWarnings("unchecked")
        double refFmax = (double) ((Map<String, Object>) ref.get("ice40")).get("fmaxMhz");
        if (ice.get("fmaxMhz") instanceof Double f && f > 0 && refFmax > 0) {
            ice.put("fmaxRatioToReference", f / refFmax);
        }
        return r;
    }

    private Map<String, Object> measure(String what, Path dir, java.util.function.Supplier<spinal.core.Component> top,
                                        boolean ice) throws IOException, InterruptedException {
        Path xdir = dir.resolve("xcup");
        Files.createDirectories(xdir);
        Map<String, Object> r = new LinkedHashMap<>();
        say(what + ": generating bench-wrapped Verilog");
        var xTop = Generator.benchVerilog(top::get, "ffio", xdir.toFile(), "xilinx");
        r.put("ioBits", xTop.ioBits());
        say(what + ": YoWASP yosys synth_xilinx -family xcup -abc9, sta at LUT " + bandText() + " ns");
        r.put("xcup", xilinx(xdir, xTop.module()));
        if (ice) {
            @SuppressWarnings("unchecked")
            Map<String, Long> cells = (Map<String, Long>) ((Map<String, Object>) r.get("xcup")).getOrDefault("cells", Map.of());
            long atLeast = ice40LogicCellsAtLeast(cells);
            if (atLeast > ICE40_LOGIC_CELLS) {
                // Synthesising such a block for iCE40 takes minutes and cannot end in a fit.
                say(what + ": iCE40 skipped, needs at least " + atLeast + " logic cells");
                Map<String, Object> skipped = new LinkedHashMap<>();
                skipped.put("device", ICE40_DEVICE + "-" + ICE40_PACKAGE);
                skipped.put("fits", false);
                skipped.put("fmaxMhz", -1.0);
                skipped.put("utilisation", Map.of("ICESTORM_LC", "at least " + atLeast + "/" + ICE40_LOGIC_CELLS));
                r.put("ice40", skipped);
            } else {
                var iTop = Generator.benchVerilog(top::get, "pins", dir.toFile(), "ice40");
                say(what + ": yosys synth_ice40 + nextpnr-ice40 --" + ICE40_DEVICE);
                r.put("ice40", ice40(dir, iTop.module()));
            }
        }
        say(what + ": done");
        return r;
    }

    /** Logic cells of the HX8K. */
    static final long ICE40_LOGIC_CELLS = 7680;

    /**
     * A lower bound of the iCE40 logic cells a design needs, from its UltraScale+ cells: a LUT of
     * up to 4 inputs needs one 4-input LUT, a LUT5 or LUT6 at least two; each DSP48E2 multiply
     * (the iCE40 HX has none) at least one per bit of its narrower operand (18).
     */
    static long ice40LogicCellsAtLeast(Map<String, Long> xcupCells) {
        long small = 0;
        for (String t : new String[] {"LUT1", "LUT2", "LUT3", "LUT4", "INV"}) {
            small += xcupCells.getOrDefault(t, 0L);
        }
        long wide = xcupCells.getOrDefault("LUT5", 0L) + xcupCells.getOrDefault("LUT6", 0L);
        return small + 2 * wide + 18 * xcupCells.getOrDefault("DSP48E2", 0L);
    }

    private static String bandText() {
        List<String> b = new ArrayList<>();
        for (double l : XilinxTiming.LUT_BANDS_NS) {
            b.add(String.format(Locale.ROOT, "%.2f", l));
        }
        return String.join("/", b);
    }

    /**
     * The map_dsp step of synth_xilinx with Yosys' DSP register packer: the 7-series mapping
     * (DSP48E1, which {@code xilinx_dsp} packs; Yosys 0.55 packs nothing into a DSP48E2) at the
     * DSP48E2's 27x18, so the multiplies are tiled as for UltraScale+.
     */
    static final String PACKED_MAP_DSP = String.join("\n",
            "memory_dff",
            "techmap -map +/mul2dsp.v -map +/xilinx/xc7_dsp_map.v -D DSP_A_MAXWIDTH=27 -D DSP_B_MAXWIDTH=18 "
                    + "-D DSP_A_MAXWIDTH_PARTIAL=18 -D DSP_A_MINWIDTH=2 -D DSP_B_MINWIDTH=2 -D DSP_Y_MINWIDTH=9 "
                    + "-D DSP_SIGNEDONLY=1 -D DSP_NAME=$__MUL25X18",
            "select a:mul2dsp", "setattr -unset mul2dsp", "opt_expr -fine", "wreduce", "select -clear",
            "xilinx_dsp -family xc7", "chtype -set $mul t:$__soft_mul", "");

    private Map<String, Object> xilinx(Path dir, String top) throws IOException, InterruptedException {
        // No I/O or clock buffers: the clock reaches every register at time 0 for sta. No SRL
        // inference: the I/O wrapper's register chains would become SRL16s whose clock-to-out
        // would time the wrapper, not the block.
        String synth = "synth_xilinx -family xcup -abc9 -flatten -noiopad -noclkbuf -nosrl -top " + top;
        Files.writeString(dir.resolve(XilinxTiming.ABC9_LUT_LIBRARY_FILE),
                XilinxTiming.abc9LutLibrary(XilinxTiming.LUT_NOMINAL_NS));
        String begin = "read_verilog xilinx.v\n"
                // ABC9 maps against the model's LUT delays, not the 7-series pin delays of cells_sim.v:
                // the library is replaced between synth_xilinx's begin step and the rest.
                + synth + " -run begin:prepare\n"
                + "read_verilog -lib -specify -overwrite " + XilinxTiming.ABC9_LUT_LIBRARY_FILE + "\n";
        String script = begin + synth + " -run prepare:\n"
                + "tee -q -o xilinx.stat stat\n"
                + "write_json xilinx.netlist.json\n";
        // The same synthesis with the registers Vivado packs into the DSPs (timing only).
        String packed = begin + synth + " -run prepare:map_dsp\n" + PACKED_MAP_DSP + synth + " -run coarse:\n"
                + "write_json xilinx-packed.netlist.json\n";
        Files.writeString(dir.resolve("xilinx.ys"), script);
        Files.writeString(dir.resolve("xilinx-packed.ys"), packed);
        int rc = run(dir, "xilinx.yosys.log", "node", yowaspRunner.toString(), "-q", "-l", "xilinx.full.log", "-s", "xilinx.ys");
        Map<String, Object> r = new LinkedHashMap<>();
        if (rc != 0) {
            r.put("error", "yosys exited " + rc + ", see " + dir.resolve("xilinx.yosys.log"));
            return r;
        }
        Map<String, Long> cells = ToolOutput.yosysCells(Files.readString(dir.resolve("xilinx.stat")));
        r.put("resources", ToolOutput.xilinxResources(cells));
        r.put("cells", cells);
        try {
            timing(dir, "xilinx.netlist.json", top, XilinxTiming.Packing.FABRIC, r);
            rc = run(dir, "xilinx-packed.yosys.log", "node", yowaspRunner.toString(), "-q", "-l", "xilinx-packed.full.log",
                    "-s", "xilinx-packed.ys");
            if (rc != 0) {
                throw new IllegalStateException("yosys (DSP-packed) exited " + rc + ", see " + dir.resolve("xilinx-packed.yosys.log"));
            }
            Map<String, Object> packedTiming = new LinkedHashMap<>();
            timing(dir, "xilinx-packed.netlist.json", top, XilinxTiming.Packing.VIVADO, packedTiming);
            r.put("vivadoPacked", packedTiming);
        } catch (IllegalStateException e) {
            r.put("error", e.getMessage());
        }
        return r;
    }

    /** sta of one netlist at every LUT delay of the band, into {@code r}: criticalPathNs and limitingPath. */
    private static void timing(Path dir, String netlistFile, String top, XilinxTiming.Packing packing, Map<String, Object> r)
            throws IOException, InterruptedException {
        String netlist = Files.readString(dir.resolve(netlistFile));
        Map<String, String> registerNames = XilinxTiming.outputNetNames(netlist, top);
        Map<String, Double> ns = new LinkedHashMap<>();
        for (double lut : XilinxTiming.LUT_BANDS_NS) {
            XilinxTiming.Path path = staPath(dir, netlist, top, lut, registerNames, packing);
            ns.put(String.format(Locale.ROOT, "%.2f", lut), path.ns());
            if (lut == XilinxTiming.LUT_NOMINAL_NS) {
                Map<String, Object> lp = new LinkedHashMap<>();
                lp.put("from", path.startNet());
                lp.put("to", path.endNet());
                lp.put("through", path.composition());
                lp.put("namedNets", path.namedNets());
                r.put("limitingPath", lp);
            }
        }
        r.put("criticalPathNs", ns);
        Files.deleteIfExists(dir.resolve(netlistFile));
    }

    private Map<String, Object> ice40(Path dir, String top) throws IOException, InterruptedException {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("device", ICE40_DEVICE + "-" + ICE40_PACKAGE);
        int rc = run(dir, "ice40.yosys.log", "yosys", "-q", "-p",
                // SpinalHDL marks async-read memories ram_style "distributed", which iCE40 does not
                // have (no LUT RAM): without the attribute Yosys builds them from logic cells.
                "read_verilog ice40.v; setattr -unset ram_style m:*; synth_ice40 -top " + top + " -json ice40.json");
        if (rc != 0) {
            r.put("error", "yosys exited " + rc + ", see " + dir.resolve("ice40.yosys.log"));
            return r;
        }
        Files.writeString(dir.resolve("clk.py"), String.format(Locale.ROOT, "ctx.addClock(\"clk\", %.1f)%n", PNR_TARGET_MHZ));
        Files.deleteIfExists(dir.resolve("ice40.report.json"));
        rc = run(dir, "ice40.nextpnr.log", "nextpnr-ice40", "--" + ICE40_DEVICE, "--package", ICE40_PACKAGE,
                "--json", "ice40.json", "--pre-pack", "clk.py", "--seed", "1", "--timing-allow-fail",
                "--report", "ice40.report.json");
        ToolOutput.PnrResult pnr = rc == 0 && Files.exists(dir.resolve("ice40.report.json"))
                ? ToolOutput.nextpnrReport(Files.readString(dir.resolve("ice40.report.json")), "clk")
                : ToolOutput.nextpnrLog(Files.readString(dir.resolve("ice40.nextpnr.log")));
        r.put("fits", pnr.fits() && rc == 0);
        r.put("fmaxMhz", pnr.fits() && rc == 0 ? pnr.fmaxMhz() : -1.0);
        Map<String, String> util = new LinkedHashMap<>();
        pnr.utilisation().forEach((k, v) -> util.put(k, v[0] + "/" + v[1]));
        r.put("utilisation", util);
        return r;
    }

    /**
     * Times a synthesised netlist with YoWASP Yosys `sta` at one LUT delay; leaves the library
     * (sta-L.v) and the log (sta-L.log) in dir. Throws IllegalStateException when Yosys fails.
     */
    public static XilinxTiming.Path staPath(Path dir, String netlist, String top, double lut,
                                            Map<String, String> registerNames) throws IOException, InterruptedException {
        return staPath(dir, netlist, top, lut, registerNames, XilinxTiming.Packing.FABRIC);
    }

    /** As above, with the registers next to DSPs and block RAMs timed as {@code packing} says. */
    public static XilinxTiming.Path staPath(Path dir, String netlist, String top, double lut, Map<String, String> registerNames,
                                            XilinxTiming.Packing packing) throws IOException, InterruptedException {
        String tag = String.format(Locale.ROOT, "%.2f", lut) + (packing == XilinxTiming.Packing.VIVADO ? "-packed" : "");
        XilinxTiming.Prepared p = XilinxTiming.prepare(netlist, top, lut, packing);
        Files.writeString(dir.resolve("sta-" + tag + ".json"), p.netlistJson());
        Files.writeString(dir.resolve("sta-" + tag + ".v"), p.libraryVerilog());
        Files.deleteIfExists(dir.resolve("sta-" + tag + ".log"));
        int rc = run(dir, "sta-" + tag + ".out", "node", yowaspRunner.toString(), "-q", "-l", "sta-" + tag + ".log", "-p",
                "read_verilog -specify -lib sta-" + tag + ".v; read_json sta-" + tag + ".json; sta");
        Files.deleteIfExists(dir.resolve("sta-" + tag + ".json"));
        if (rc != 0) {
            String out = Files.readString(dir.resolve("sta-" + tag + ".out"));
            throw new IllegalStateException("yosys sta exited " + rc + ", see " + dir.resolve("sta-" + tag + ".out") + ": "
                    + out.substring(Math.max(0, out.length() - 600)).strip());
        }
        return XilinxTiming.parseSta(Files.readString(dir.resolve("sta-" + tag + ".log")), registerNames);
    }

    private static int run(Path dir, String logName, String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(dir.resolve(logName).toFile()).start();
        if (!p.waitFor(30, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            return -1;
        }
        return p.exitValue();
    }

    /** Writes build/reports/<block>.json and returns the rows for the summary. */
    public void writeBlock(String block, List<Map<String, Object>> rows) throws IOException {
        Files.createDirectories(outDir);
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("block", block);
        doc.put("references", references);
        doc.put("configurations", rows);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(outDir.resolve(block + ".json").toFile(), doc);
    }

    @SuppressWarnings("unchecked")
    private static String nsBand(Map<String, Object> x) {
        Map<String, Double> ns = x == null ? null : (Map<String, Double>) x.get("criticalPathNs");
        if (ns == null) {
            return x != null && x.containsKey("error") ? "error: " + x.get("error") : "?";
        }
        return String.join(" / ", ns.values().stream().map(v -> String.format(Locale.ROOT, "%.2f", v)).toList());
    }

    @SuppressWarnings("unchecked")
    private static double nominal(Map<String, Object> timing) {
        Map<String, Double> ns = timing == null ? null : (Map<String, Double>) timing.get("criticalPathNs");
        return ns == null ? Double.NaN : ns.getOrDefault(String.format(Locale.ROOT, "%.2f", XilinxTiming.LUT_NOMINAL_NS), Double.NaN);
    }

    /** One line: the block's critical path against a clock, with and without the 0.4 ns margin. */
    public static String clockVerdict(String label, Map<String, Object> row, double clockMhz) {
        double period = 1e3 / clockMhz;
        double ns = nominalNs(row);
        String verdict = ns <= period - MARGIN_NS ? "fits, with the " + MARGIN_NS + " ns margin"
                : ns <= period ? "fits without the " + MARGIN_NS + " ns margin" : "does not fit";
        return String.format(Locale.ROOT, "%s at %s MHz (%.3f ns): critical path %.2f ns at LUT 0.40 (as mapped %.2f, "
                + "Vivado-packed %.2f): %s", label, clockMhz == Math.rint(clockMhz) ? String.valueOf((long) clockMhz)
                : String.valueOf(clockMhz), period, ns, fabricNs(row), packedNs(row), verdict);
    }

    /** The critical path at the nominal LUT delay as Yosys maps the design (no register packed but the 2-register DSP), or NaN. */
    @SuppressWarnings("unchecked")
    public static double fabricNs(Map<String, Object> row) {
        return nominal((Map<String, Object>) row.get("xcup"));
    }

    /** The critical path at the nominal LUT delay with the DSP and block-RAM registers Vivado packs, or NaN. */
    @SuppressWarnings("unchecked")
    public static double packedNs(Map<String, Object> row) {
        Map<String, Object> x = (Map<String, Object>) row.get("xcup");
        return x == null ? Double.NaN : nominal((Map<String, Object>) x.get("vivadoPacked"));
    }

    /** The block's critical path at the nominal LUT delay: the larger of the two packings, or NaN. */
    public static double nominalNs(Map<String, Object> row) {
        double a = fabricNs(row);
        double b = packedNs(row);
        return Double.isNaN(a) || Double.isNaN(b) ? Double.NaN : Math.max(a, b);
    }

    private static String verdict(double ns, double mhz) {
        return Double.isNaN(ns) ? "?" : ns <= 1e3 / mhz + 1e-9 ? "yes" : "no";
    }

    @SuppressWarnings("unchecked")
    private static String pathLine(Map<String, Object> row) {
        Map<String, Object> x = (Map<String, Object>) row.get("xcup");
        StringBuilder sb = new StringBuilder();
        for (String which : new String[] {"as mapped", "Vivado-packed"}) {
            Map<String, Object> t = which.equals("as mapped") ? x : (Map<String, Object>) x.get("vivadoPacked");
            Map<String, Object> lp = t == null ? null : (Map<String, Object>) t.get("limitingPath");
            if (lp == null) {
                continue;
            }
            List<String> nets = (List<String>) lp.get("namedNets");
            sb.append(String.format(Locale.ROOT, "- %s, %s (%.2f ns): `%s` -> `%s` through %s%s%n", row.get("label"), which,
                    nominal(t), lp.get("from"), lp.get("to"), lp.get("through"),
                    nets == null || nets.isEmpty() ? "" : "; via `" + String.join("` -> `", nets) + "`"));
        }
        return sb.toString();
    }

    /** The Markdown summary (also docs/resources.md). */
    @SuppressWarnings("unchecked")
    public String summary(Map<String, List<Map<String, Object>>> byBlock) throws IOException, InterruptedException {
        String band = bandText().replace("/", " / ");
        StringBuilder sb = new StringBuilder();
        sb.append("# Resources and timing\n\n")
          .append("Generated by `make reports-full` (`make reports`, `hwgen report`: the default configurations);\n")
          .append("do not edit by hand.\n\n")
          .append("- **UltraScale+ cells**: YoWASP Yosys 0.55 `synth_xilinx -family xcup -abc9 -nosrl` of the top wrapped\n")
          .append("  with registered I/O (`Rtl.ffIo`), so FF counts include the wrapper's 3 registers per I/O bit (no\n")
          .append("  SRL inference, so that the wrapper's register chains stay registers; delay lines count as FFs).\n")
          .append("  ABC9 maps the logic against the model's own LUT library (`").append(XilinxTiming.ABC9_LUT_LIBRARY_FILE)
          .append("`, read over Yosys'\n")
          .append("  7-series one after synth_xilinx's `begin` step): every LUT input at 0.40 ns, area one LUT site. With the\n")
          .append("  7-series pin delays (0.13-0.64 ns) ABC9 builds chains of fast-pin LUT2s that cost a full LUT and route each.\n")
          .append("- **Critical path (ns)**: Yosys `sta` on that netlist against the UltraScale+ -2 delay model at the end\n")
          .append("  of this page, at LUT delays of ").append(band).append(" ns (LUT plus its input route). This is logic\n")
          .append("  synthesis without placement: no placed routes, no Vivado optimisation (retiming, replication,\n")
          .append("  register packing beyond what the model reproduces). Treat it as an estimate to compare designs and to\n")
          .append("  find the limiting path; no vendor-tool run was available to calibrate it against.\n")
          .append("  Each design is timed twice: **as mapped** (Yosys' UltraScale+ netlist, with only the two-register DSP\n")
          .append("  packing reproduced) and **Vivado-packed** (a second synthesis whose DSPs take every A/B/C/D, M and P\n")
          .append("  register Yosys' DSP register packer `xilinx_dsp` finds, as Vivado packs them, each register configuration\n")
          .append("  its own cell; block-RAM output registers absorbed). A packed register helps the path into it and costs\n")
          .append("  the path out of it (P out of MREG is 1.60 ns, out of a fabric flip-flop 0.10), so the block's critical\n")
          .append("  path is the larger of the two.\n")
          .append("  **250 / 322 MHz**: that path at 0.40 ns fits 4.0 / 3.1 ns; **0.4 ns margin**: it fits 3.6 ns.\n")
          .append("- **iCE40**: Yosys `synth_ice40` + nextpnr-ice40 on ").append(ICE40_DEVICE.toUpperCase()).append(" (")
          .append(ICE40_PACKAGE).append("), seed 1: real place and route, for the configurations that fit; inputs\n")
          .append("  through one shift chain and outputs XOR-ed to one pin, so Fmax is the block's internal one.\n\n");
        sb.append("## Reference designs (same run)\n\n");
        sb.append("| design | LUT | FF | BRAM36 | DSP | CARRY | LUTRAM | critical path (ns) at LUT ").append(band)
          .append(", as mapped | Vivado-packed |\n");
        sb.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        StringBuilder refPaths = new StringBuilder();
        for (Map<String, Object> ref : references()) {
            Map<String, Object> x = (Map<String, Object>) ref.get("xcup");
            Map<String, Double> res = (Map<String, Double>) x.getOrDefault("resources", Map.of());
            sb.append(String.format(Locale.ROOT, "| %s | %.0f | %.0f | %.1f | %.0f | %.0f | %.0f | %s | %s |%n", ref.get("label"),
                    res.getOrDefault("LUT", 0.0), res.getOrDefault("FF", 0.0), res.getOrDefault("BRAM36", 0.0),
                    res.getOrDefault("DSP", 0.0), res.getOrDefault("CARRY", 0.0), res.getOrDefault("LUTRAM", 0.0), nsBand(x),
                    nsBand((Map<String, Object>) x.get("vivadoPacked"))));
            refPaths.append(pathLine(ref));
        }
        Map<String, Object> refIce = (Map<String, Object>) reference.get("ice40");
        sb.append(String.format(Locale.ROOT, "%nLimiting paths at LUT 0.40 ns:%n%n%s%niCE40 reference (the accumulator): %.1f MHz.%n%n",
                refPaths, (double) refIce.get("fmaxMhz")));
        for (var e : byBlock.entrySet()) {
            sb.append("## ").append(e.getKey()).append("\n\n");
            sb.append("| configuration | I/O bits | LUT | FF | BRAM36 | URAM | DSP | CARRY | LUTRAM | critical path (ns) at LUT ")
              .append(band).append(", as mapped | Vivado-packed | 250 MHz | 250 MHz, 0.4 ns margin | 322 MHz "
                      + "| iCE40 Fmax (MHz) | / reference | state bits (paper) |\n");
            sb.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
            StringBuilder paths = new StringBuilder();
            for (Map<String, Object> row : e.getValue()) {
                Map<String, Object> x = (Map<String, Object>) row.get("xcup");
                Map<String, Double> res = (Map<String, Double>) x.getOrDefault("resources", Map.of());
                Map<String, Object> ice = (Map<String, Object>) row.get("ice40");
                Map<String, String> facts = (Map<String, String>) row.get("facts");
                String fmax = ice.containsKey("error") ? "error: " + ice.get("error")
                        : Boolean.TRUE.equals(ice.get("fits"))
                        ? String.format(Locale.ROOT, "%.1f", (double) ice.get("fmaxMhz"))
                        : "does not fit: " + overUsed((Map<String, Object>) ice.get("utilisation"));
                Object ratio = ice.get("fmaxRatioToReference");
                double ns = nominalNs(row);
                sb.append(String.format(Locale.ROOT, "| %s | %s | %.0f | %.0f | %.1f | %.0f | %.0f | %.0f | %.0f | %s | %s | %s | %s | %s | %s | %s | %s |%n",
                        row.get("label"), row.get("ioBits"), res.getOrDefault("LUT", 0.0), res.getOrDefault("FF", 0.0),
                        res.getOrDefault("BRAM36", 0.0), res.getOrDefault("URAM", 0.0), res.getOrDefault("DSP", 0.0),
                        res.getOrDefault("CARRY", 0.0), res.getOrDefault("LUTRAM", 0.0), nsBand(x),
                        nsBand((Map<String, Object>) x.get("vivadoPacked")),
                        verdict(ns, NIC_CLOCKS_MHZ[0]), verdict(ns, 1e3 / (1e3 / NIC_CLOCKS_MHZ[0] - MARGIN_NS)),
                        verdict(ns, NIC_CLOCKS_MHZ[1]),
                        fmax, ratio == null ? "-" : String.format(Locale.ROOT, "%.2f", (double) ratio),
                        facts.getOrDefault("stateBitsPerConnection", "-") + " ("
                                + facts.getOrDefault("paperStateBitsPerConnection", "-") + ")"));
                paths.append(pathLine(row));
            }
            sb.append("\nLimiting paths at LUT 0.40 ns (from register -> to register, what the path runs through, and the named\n")
              .append("signals of the design it passes):\n\n").append(paths).append('\n');
        }
        sb.append("## The UltraScale+ -2 delay model\n\n")
          .append("Written by `uehw.report.XilinxTiming` as Verilog specify blocks that Yosys `sta` reads. Route delays are\n")
          .append("figures per input, not placed routes. Yosys 0.55 packs no registers into DSP48E2 or block RAM for\n")
          .append("UltraScale+. As mapped, the model reproduces one DSP packing (flip-flops that drive only a DSP's A/B\n")
          .append("inputs, and P bits that drive only flip-flops: the 544 MHz two-register multiply) and times block RAMs by\n")
          .append("their DOA_REG/DOB_REG setting. Vivado-packed, the map_dsp step runs the 7-series mapping at 27x18\n")
          .append("(DSP48E1 cells, which `xilinx_dsp -family xc7` packs) and each DSP is timed as a DSP48E2 of its register\n")
          .append("configuration; its internal register-to-register stages are bounded by DS923's FMAX (775 MHz, 1.29 ns)\n")
          .append("and not timed.\n\n")
          .append("| figure | ns | what | source |\n| --- | --- | --- | --- |\n");
        for (XilinxTiming.Figure f : XilinxTiming.figures()) {
            sb.append(String.format(Locale.ROOT, "| %s | %.2f | %s | %s |%n", f.symbol(), f.ns(), f.meaning(), f.source()));
        }
        return sb.toString();
    }

    private static String overUsed(Map<String, Object> util) {
        List<String> over = new ArrayList<>();
        util.forEach((k, v) -> {
            String[] p = v.toString().replace("at least ", "").split("/");
            if (Long.parseLong(p[0]) > Long.parseLong(p[1])) {
                over.add(k + " " + v);
            }
        });
        return over.isEmpty() ? String.join(", ", util.entrySet().stream().map(e -> e.getKey() + " " + e.getValue()).toList())
                : String.join(", ", over);
    }

    /**
     * `make reports`: every block's default configuration (or its whole sweep), JSON per block,
     * the summary and, with a second argument, its Markdown copy. Arguments: output folder,
     * Markdown copy (or "-"), a comma-separated list of blocks to run again (the other blocks'
     * rows are read back from their JSON of an earlier run), and "sweep" for every configuration.
     */
    @SuppressWarnings("unchecked")
    public static void main(String[] args) throws Exception {
        checkTools();
        Path out = Path.of(args.length > 0 ? args[0] : "build/reports");
        java.util.Set<String> only = args.length > 2 && !args[2].isBlank()
                ? java.util.Set.of(args[2].split(",")) : java.util.Set.of();
        boolean sweep = args.length > 3 && args[3].equals("sweep");
        Reports reports = new Reports(out, System.out);
        Map<String, List<Map<String, Object>>> all = new LinkedHashMap<>();
        for (BlockSpec block : Blocks.allJava()) {
            Path earlier = out.resolve(block.name() + ".json");
            if (!only.isEmpty() && !only.contains(block.name()) && Files.exists(earlier)) {
                Map<String, Object> doc = new ObjectMapper().readValue(earlier.toFile(), Map.class);
                all.put(block.name(), (List<Map<String, Object>>) doc.get("configurations"));
                reports.progress.println("reports: " + block.name() + " from " + earlier);
                continue;
            }
            List<Map<String, Object>> rows = new ArrayList<>();
            for (var cfg : (sweep ? sweep(block.name()) : defaults(block.name())).entrySet()) {
                rows.add(reports.report(block, cfg.getKey(), block.check(cfg.getValue())));
            }
            reports.writeBlock(block.name(), rows);
            all.put(block.name(), rows);
        }
        String md = reports.summary(all);
        Files.writeString(out.resolve("summary.md"), md, StandardCharsets.UTF_8);
        if (args.length > 1 && !args[1].equals("-")) {
            Files.writeString(Path.of(args[1]), md, StandardCharsets.UTF_8);
        }
        System.out.print(md);
        reports.say("reports: done");
    }

}
