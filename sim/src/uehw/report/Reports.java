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
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import uehw.hw.BlockSpec;
import uehw.hw.Blocks;
import uehw.hw.Generator;
import uehw.hw.ReferenceAccumulator;
import uehw.hw.common.ParamValues;

/**
 * Resource and timing reports from real tools: Yosys synth_xilinx for UltraScale+ (cells and
 * logic depth) and Yosys + nextpnr-ice40 (Fmax, or "does not fit" with the utilisation). Every
 * Fmax is also given as a ratio to a 32-bit registered accumulator placed on the same device in
 * the same run, so the figures survive a noisy machine.
 */
public final class Reports {
    public static final String ICE40_DEVICE = "hx8k";
    public static final String ICE40_PACKAGE = "ct256";
    private static final double PNR_TARGET_MHZ = 100;

    private final Path outDir;
    private final PrintStream progress;
    private final long start = System.nanoTime();
    private Map<String, Object> reference;

    public Reports(Path outDir, PrintStream progress) {
        this.outDir = outDir;
        this.progress = progress;
    }

    /** The configurations `make reports` sweeps for each block: label -> parameters. */
    public static Map<String, Map<String, String>> sweep(String block) {
        Map<String, Map<String, String>> s = new LinkedHashMap<>();
        switch (block) {
            case "reps" -> {
                s.put("reps N=256", Map.of("connections", "256"));
                s.put("reps N=1024 (default)", Map.of());
                s.put("reps N=4096", Map.of("connections", "4096"));
                s.put("reps-lite N=1024", Map.of("mode", "reps-lite"));
                s.put("ops N=1024", Map.of("mode", "ops"));
            }
            case "dart-dft" -> { // the issue asks for LUT/FF at E = 8, 16, 32, 64
                s.put("dart-dft E=8 (default)", Map.of());
                s.put("dart-dft E=16", Map.of("entries", "16"));
                s.put("dart-dft E=32", Map.of("entries", "32"));
                s.put("dart-dft E=64", Map.of("entries", "64"));
            }
            case "smartt" -> {
                s.put("smartt N=256", Map.of("flows", "256"));
                s.put("smartt N=1024 (default)", Map.of());
                s.put("smartt N=4096", Map.of("flows", "4096"));
                s.put("smartt N=1024, 2048-entry reciprocal", Map.of("recip-index-bits", "11"));
            }
            case "trim-queue" -> {
                s.put("trim-queue 64-bit", Map.of("data-bytes", "8"));
                s.put("trim-queue 128-bit", Map.of("data-bytes", "16"));
                s.put("trim-queue 256-bit", Map.of("data-bytes", "32"));
                s.put("trim-queue 512-bit (default)", Map.of());
            }
            default -> s.put(block + " (default)", Map.of());
        }
        return s;
    }

    public static void checkTools() {
        for (String tool : new String[] {"yosys", "nextpnr-ice40"}) {
            try {
                Process p = new ProcessBuilder(tool, "-V").redirectErrorStream(true).start();
                p.getInputStream().readAllBytes();
                p.waitFor();
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(tool + " is missing: install it with "
                        + "`apt-get install yosys nextpnr-ice40 fpga-icestorm` (or run `make tools` as root)");
            }
        }
    }

    private void say(String what) {
        progress.printf(Locale.ROOT, "[%6.1f s] %s%n", (System.nanoTime() - start) / 1e9, what);
    }

    /** Measures the reference accumulator once per run. */
    public Map<String, Object> reference() throws IOException, InterruptedException {
        if (reference == null) {
            Path dir = outDir.resolve("work/reference");
            say("reference: 32-bit registered accumulator");
            reference = measure("reference", dir, ReferenceAccumulator::new);
        }
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
                () -> block.top(values)));
        @SuppressWarnings("unchecked")
        Map<String, Object> ice = (Map<String, Object>) r.get("ice40");
        @SuppressWarnings("unchecked")
        double refFmax = (double) ((Map<String, Object>) ref.get("ice40")).get("fmaxMhz");
        if (ice.get("fmaxMhz") instanceof Double f && f > 0 && refFmax > 0) {
            ice.put("fmaxRatioToReference", f / refFmax);
        }
        return r;
    }

    private Map<String, Object> measure(String what, Path dir, java.util.function.Supplier<spinal.core.Component> top)
            throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Map<String, Object> r = new LinkedHashMap<>();
        say(what + ": generating bench-wrapped Verilog");
        var xTop = Generator.benchVerilog(top::get, "ffio", dir.toFile(), "xilinx");
        var iTop = Generator.benchVerilog(top::get, "pins", dir.toFile(), "ice40");
        r.put("ioBits", xTop.ioBits());
        say(what + ": yosys synth_xilinx -family xcup");
        r.put("xcup", xilinx(dir, xTop.module()));
        say(what + ": yosys synth_ice40 + nextpnr-ice40 --" + ICE40_DEVICE);
        r.put("ice40", ice40(dir, iTop.module()));
        say(what + ": done");
        return r;
    }

    private Map<String, Object> xilinx(Path dir, String top) throws IOException, InterruptedException {
        String script = "read_verilog xilinx.v\n"
                + "synth_xilinx -family xcup -flatten -top " + top + "\n"
                + "tee -q -o xilinx.stat stat\n"
                + "write_json xilinx.netlist.json\n";
        Files.writeString(dir.resolve("xilinx.ys"), script);
        int rc = run(dir, "xilinx.yosys.log", "yosys", "-q", "-s", "xilinx.ys");
        Map<String, Object> r = new LinkedHashMap<>();
        if (rc != 0) {
            r.put("error", "yosys exited " + rc + ", see " + dir.resolve("xilinx.yosys.log"));
            return r;
        }
        Map<String, Long> cells = ToolOutput.yosysCells(Files.readString(dir.resolve("xilinx.stat")));
        r.put("resources", ToolOutput.xilinxResources(cells));
        ToolOutput.DeepestPath path = ToolOutput.xilinxDeepestPath(Files.readString(dir.resolve("xilinx.netlist.json")), top);
        r.put("logicLevels", path.levels());
        r.put("deepestPath", path.nets());
        r.put("cells", cells);
        return r;
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
        doc.put("reference", reference);
        doc.put("configurations", rows);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(outDir.resolve(block + ".json").toFile(), doc);
    }

    /** The Markdown summary (also docs/resources.md). */
    @SuppressWarnings("unchecked")
    public String summary(Map<String, List<Map<String, Object>>> byBlock) {
        StringBuilder sb = new StringBuilder();
        sb.append("# Resources and timing\n\n")
          .append("Generated by `make reports` (`hwgen report`); do not edit by hand. Yosys `synth_xilinx -family xcup`\n")
          .append("(UltraScale+) cell counts, logic levels = longest path through LUT/MUXF/CARRY cells between\n")
          .append("registers; iCE40 = Yosys `synth_ice40` + nextpnr-ice40 on ").append(ICE40_DEVICE.toUpperCase())
          .append(" (").append(ICE40_PACKAGE).append("), seed 1. Every top is wrapped with registered I/O (`Rtl.ffIo`; on iCE40 inputs\n")
          .append("also come through one shift chain and outputs are XOR-ed to one pin), so FF counts include\n")
          .append("the wrapper's 3 registers per I/O bit (some become SRL16 shift registers, counted as LUTRAM)\n")
          .append("and Fmax is the block's internal one.\n\n");
        Map<String, Object> refIce = (Map<String, Object>) reference.get("ice40");
        sb.append(String.format(Locale.ROOT, "Reference (32-bit registered accumulator, same device, same run): %.1f MHz.%n%n",
                (double) refIce.get("fmaxMhz")));
        for (var e : byBlock.entrySet()) {
            sb.append("## ").append(e.getKey()).append("\n\n");
            sb.append("| configuration | I/O bits | LUT | FF | BRAM36 | URAM | DSP | CARRY | LUTRAM | logic levels | iCE40 Fmax (MHz) | / reference | state bits (paper) |\n");
            sb.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
            for (Map<String, Object> row : e.getValue()) {
                Map<String, Object> x = (Map<String, Object>) row.get("xcup");
                Map<String, Double> res = (Map<String, Double>) x.getOrDefault("resources", Map.of());
                Map<String, Object> ice = (Map<String, Object>) row.get("ice40");
                Map<String, String> facts = (Map<String, String>) row.get("facts");
                String fmax = ice.containsKey("error") ? "error: " + ice.get("error")
                        : Boolean.TRUE.equals(ice.get("fits"))
                        ? String.format(Locale.ROOT, "%.1f", (double) ice.get("fmaxMhz"))
                        : "does not fit: " + overUsed((Map<String, String>) ice.get("utilisation"));
                Object ratio = ice.get("fmaxRatioToReference");
                sb.append(String.format(Locale.ROOT, "| %s | %s | %.0f | %.0f | %.1f | %.0f | %.0f | %.0f | %.0f | %s | %s | %s | %s |%n",
                        row.get("label"), row.get("ioBits"), res.getOrDefault("LUT", 0.0), res.getOrDefault("FF", 0.0),
                        res.getOrDefault("BRAM36", 0.0), res.getOrDefault("URAM", 0.0), res.getOrDefault("DSP", 0.0),
                        res.getOrDefault("CARRY", 0.0), res.getOrDefault("LUTRAM", 0.0), x.getOrDefault("logicLevels", "?"),
                        fmax, ratio == null ? "-" : String.format(Locale.ROOT, "%.2f", (double) ratio),
                        facts.getOrDefault("stateBitsPerConnection", "-") + " ("
                                + facts.getOrDefault("paperStateBitsPerConnection", "-") + ")"));
            }
            // The deepest path of the configuration with the most levels, by the nets it drives.
            e.getValue().stream()
                    .filter(row -> ((Map<String, Object>) row.get("xcup")).get("deepestPath") instanceof List<?> l && !l.isEmpty())
                    .max(java.util.Comparator.comparingInt(row -> ((Number) ((Map<String, Object>) row.get("xcup"))
                            .getOrDefault("logicLevels", 0)).intValue()))
                    .ifPresent(row -> sb.append("\nDeepest path (").append(row.get("label")).append("), by the named nets it drives: `")
                            .append(String.join("` -> `", (List<String>) ((Map<String, Object>) row.get("xcup")).get("deepestPath")))
                            .append("`.\n"));
            sb.append('\n');
        }
        return sb.toString();
    }

    private static String overUsed(Map<String, String> util) {
        List<String> over = new ArrayList<>();
        util.forEach((k, v) -> {
            String[] p = v.split("/");
            if (Integer.parseInt(p[0]) > Integer.parseInt(p[1])) {
                over.add(k + " " + v);
            }
        });
        return over.isEmpty() ? String.join(", ", util.entrySet().stream().map(e -> e.getKey() + " " + e.getValue()).toList())
                : String.join(", ", over);
    }

    /**
     * `make reports`: every block's sweep, JSON per block, the summary and docs/resources.md.
     * Arguments: output folder, Markdown copy, and optionally a comma-separated list of blocks to
     * run again; the other blocks' rows are read back from their JSON of an earlier run.
     */
    @SuppressWarnings("unchecked")
    public static void main(String[] args) throws Exception {
        checkTools();
        Path out = Path.of(args.length > 0 ? args[0] : "build/reports");
        java.util.Set<String> only = args.length > 2 && !args[2].isBlank()
                ? java.util.Set.of(args[2].split(",")) : java.util.Set.of();
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
            for (var cfg : sweep(block.name()).entrySet()) {
                rows.add(reports.report(block, cfg.getKey(), block.check(cfg.getValue())));
            }
            reports.writeBlock(block.name(), rows);
            all.put(block.name(), rows);
        }
        String md = reports.summary(all);
        Files.writeString(out.resolve("summary.md"), md, StandardCharsets.UTF_8);
        if (args.length > 1) {
            Files.writeString(Path.of(args[1]), md, StandardCharsets.UTF_8);
        }
        System.out.print(md);
    }

}
