// SPDX-License-Identifier: Apache-2.0
package uehw.bench;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A plain-Verilog testbench for a generated top, run by Icarus (iverilog/vvp) and by Verilator
 * (--binary --timing) on the same vectors: the simulators outside the project's own harness.
 *
 * <p>The bench holds reset for 16 clocks (the blocks' documented minimum, docs/integration.md), waits for {@code io_initDone} where the top has it,
 * writes (and reads) the CSRs over AXI4-Lite one at a time (AW and W together, B awaited), waits
 * {@code settleClocks}, then drives each input stream from its vector file: a transaction's fields
 * are presented with valid and advance on a clock edge where valid and ready are high (an input
 * Flow, without ready, takes one a clock). Every output stream or flow is logged, one line per
 * edge where valid and ready are set: {@code <prefix> <field hex> ... @<clock>} in the manifest's
 * field order, {@code <clock>} counting edges from the first after power-up. Output readies are
 * high, or low until every input transaction has moved ({@link #holdReadyUntilInputsDone}).
 * Inputs outside the streams (such as {@code io_now}) may be bound to a stream and then change
 * with its transactions; chosen fields of an input's transfers may be logged too. Streams are
 * named SpinalHDL's way ({@code <prefix>_valid}, {@code _ready}, {@code _payload_<field>}) or
 * AXI4-Stream's ({@code <prefix>_tvalid}, {@code _tready}, {@code _tdata}, ...). The run ends
 * {@code drainClocks} after the last input transaction. Icarus leaves the waveform of the whole
 * run in icarus.fst.
 */
public final class VerilogBench {
    public record Port(String name, String direction, int width) {
    }

    private final String top;
    /** The manifest's Verilog file (uehw_<block>.v; the module in it is `top`). */
    private final String verilog;
    private final List<Port> ports = new ArrayList<>();
    private final List<long[]> csrWrites = new ArrayList<>();
    private final Map<String, List<String>> inputFields = new LinkedHashMap<>();
    private final Map<String, List<BigInteger[]>> inputs = new LinkedHashMap<>();
    private final Map<String, String> startAfter = new LinkedHashMap<>();
    private final Map<String, List<String>> loggedInputs = new LinkedHashMap<>();
    private final List<String> heldReadies = new ArrayList<>();
    private int settleClocks = 16;
    private int drainClocks = 64;

    /** A bench for the top of a generated folder, from its manifest. */
    public VerilogBench(Path manifest) throws IOException {
        JsonNode m = new ObjectMapper().readTree(manifest.toFile());
        top = m.get("topModule").asText();
        verilog = m.get("verilog").asText();
        m.get("ports").forEach(p -> ports.add(new Port(p.get("name").asText(), p.get("direction").asText(), p.get("width").asInt())));
    }

    public VerilogBench csrWrite(long address, long data) {
        csrWrites.add(new long[] {address, data});
        return this;
    }

    /** A CSR read, in order with the writes; logged as {@code csr <address hex> <data hex> @<clock>}. */
    public VerilogBench csrRead(long address) {
        csrWrites.add(new long[] {address | READ, 0});
        return this;
    }

    /** Bit 31 of a CSR table address marks a read (the CSR addresses are 8 bits). */
    private static final long READ = 1L << 31;

    public VerilogBench settleClocks(int clocks) {
        settleClocks = clocks;
        return this;
    }

    public VerilogBench drainClocks(int clocks) {
        drainClocks = clocks;
        return this;
    }

    /**
     * The payload ports of input stream {@code prefix} (in manifest order), then the extra input
     * ports bound to it: the field order of {@link #send}.
     */
    public List<String> fields(String prefix, String... extraInputs) {
        return inputFields.computeIfAbsent(prefix, p -> {
            List<String> f = payload(p, "input");
            f.addAll(List.of(extraInputs));
            return f;
        });
    }

    /** The payload ports of stream {@code prefix} in {@code direction}, in manifest order. */
    private List<String> payload(String prefix, String direction) {
        boolean axis = has(prefix + "_tvalid");
        List<String> f = new ArrayList<>();
        for (Port port : ports) {
            boolean field = axis ? port.name.startsWith(prefix + "_t") && !port.name.equals(valid(prefix))
                    && !port.name.equals(prefix + "_tready") : port.name.startsWith(prefix + "_payload_");
            if (port.direction.equals(direction) && field) {
                f.add(port.name);
            }
        }
        return f;
    }

    private String valid(String prefix) {
        return has(prefix + "_tvalid") ? prefix + "_tvalid" : prefix + "_valid";
    }

    /** The stream's ready port, or null for a Flow. */
    private String ready(String prefix) {
        return has(prefix + "_tready") ? prefix + "_tready" : has(prefix + "_ready") ? prefix + "_ready" : null;
    }

    /** Each transfer of input stream {@code prefix} is logged with these of its fields (none: just the clock). */
    public VerilogBench logInput(String prefix, String... fieldsToLog) {
        loggedInputs.put(prefix, List.of(fieldsToLog));
        return this;
    }

    /** Output stream {@code prefix}'s ready stays low until every input transaction has moved. */
    public VerilogBench holdReadyUntilInputsDone(String prefix) {
        if (ready(prefix) == null) {
            throw new IllegalArgumentException(top + ": " + prefix + " has no ready");
        }
        heldReadies.add(ready(prefix));
        return this;
    }

    /** Input stream {@code prefix} starts once every transaction of {@code earlier} has moved. */
    public VerilogBench startAfter(String prefix, String earlier) {
        startAfter.put(prefix, earlier);
        return this;
    }

    /** One transaction on input stream {@code prefix}: values in {@link #fields} order. */
    public VerilogBench send(String prefix, long... values) {
        BigInteger[] v = new BigInteger[values.length];
        for (int i = 0; i < values.length; i++) {
            v[i] = BigInteger.valueOf(values[i]);
        }
        return send(prefix, v);
    }

    /** One transaction on input stream {@code prefix}, for fields wider than 64 bits. */
    public VerilogBench send(String prefix, BigInteger... v) {
        if (v.length != fields(prefix).size()) {
            throw new IllegalArgumentException(prefix + ": " + v.length + " values for fields " + fields(prefix));
        }
        inputs.computeIfAbsent(prefix, p -> new ArrayList<>()).add(v);
        return this;
    }

    private Port port(String name) {
        return ports.stream().filter(p -> p.name.equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException(top + " has no port " + name));
    }

    private boolean has(String name) {
        return ports.stream().anyMatch(p -> p.name.equals(name));
    }

    private static String range(int width) {
        return width > 1 ? "[" + (width - 1) + ":0] " : "";
    }

    /** The testbench module `tb` and its vector files, written into dir (the generated folder). */
    public void write(Path dir) throws IOException {
        if (inputFields.isEmpty()) {
            throw new IllegalStateException(top + ": no input stream to drive (call fields/send first)");
        }
        List<String> outputStreams = new ArrayList<>();
        for (Port p : ports) {
            String suffix = p.name.endsWith("_tvalid") ? "_tvalid" : "_valid";
            if (p.name.endsWith(suffix) && p.direction.equals("output") && !p.name.startsWith("ctrl_")) {
                outputStreams.add(p.name.substring(0, p.name.length() - suffix.length()));
            }
        }
        StringBuilder v = new StringBuilder("`timescale 1ns/1ps\n// Written by uehw.bench.VerilogBench for ")
                .append(top).append(".\nmodule tb;\n  reg clk = 1'b0;\n  always #2 clk = ~clk;\n  reg reset = 1'b1;\n");
        for (Port p : ports) {
            if (p.name.equals("clk") || p.name.equals("reset")) {
                continue;
            }
            if (p.direction.equals("input")) {
                boolean ready = p.name.endsWith("_ready") || p.name.endsWith("_tready") || p.name.equals("ctrl_bready")
                        || p.name.equals("ctrl_rready");
                String init = ready && !heldReadies.contains(p.name) ? "1" : p.name.equals("ctrl_wstrb") ? "4'hF" : "0";
                v.append("  reg ").append(range(p.width)).append(p.name).append(" = ").append(init).append(";\n");
            } else {
                v.append("  wire ").append(range(p.width)).append(p.name).append(";\n");
            }
        }
        v.append("  ").append(top).append(" dut (\n");
        for (int i = 0; i < ports.size(); i++) {
            v.append("    .").append(ports.get(i).name).append("(").append(ports.get(i).name).append(")")
                    .append(i + 1 < ports.size() ? ",\n" : "\n");
        }
        v.append("  );\n\n  integer log;\n  integer clocks = 0;\n  always @(posedge clk) clocks <= clocks + 1;\n");

        // CSR writes: a state machine over a table of (address, data).
        int nCsr = csrWrites.size();
        v.append("  reg [31:0] csrAddr [0:").append(Math.max(nCsr, 1) - 1).append("];\n")
         .append("  reg [31:0] csrData [0:").append(Math.max(nCsr, 1) - 1).append("];\n")
         .append("  integer csrIndex = 0;\n  reg csrBusy = 1'b0;\n")
         .append("  wire ready0 = ").append(has("io_initDone") ? "io_initDone" : "1'b1").append(";\n")
         .append("  reg phaseCsr = 1'b0, phaseRun = 1'b0;\n  integer settle = 0;\n")
         .append("  always @(posedge clk) if (phaseCsr) begin\n")
         .append("    if (!csrBusy) begin\n")
         .append("      if (csrIndex < ").append(nCsr).append(" && csrAddr[csrIndex][31]) begin\n")
         .append("        ctrl_araddr <= csrAddr[csrIndex][").append(port("ctrl_araddr").width - 1).append(":0]; ctrl_arvalid <= 1'b1;\n")
         .append("        csrBusy <= 1'b1;\n")
         .append("      end else if (csrIndex < ").append(nCsr).append(") begin\n")
         .append("        ctrl_awaddr <= csrAddr[csrIndex][").append(port("ctrl_awaddr").width - 1).append(":0]; ctrl_awvalid <= 1'b1;\n")
         .append("        ctrl_wdata <= csrData[csrIndex]; ctrl_wvalid <= 1'b1; csrBusy <= 1'b1;\n")
         .append("      end else begin\n")
         .append("        settle <= settle + 1;\n")
         .append("        if (settle == ").append(settleClocks).append(") begin phaseCsr <= 1'b0; phaseRun <= 1'b1; end\n")
         .append("      end\n")
         .append("    end else begin\n")
         .append("      if (ctrl_awvalid && ctrl_awready) ctrl_awvalid <= 1'b0;\n")
         .append("      if (ctrl_wvalid && ctrl_wready) ctrl_wvalid <= 1'b0;\n")
         .append("      if (ctrl_bvalid && ctrl_bready) begin csrBusy <= 1'b0; csrIndex <= csrIndex + 1; end\n")
         .append("      if (ctrl_arvalid && ctrl_arready) ctrl_arvalid <= 1'b0;\n")
         .append("      if (ctrl_rvalid && ctrl_rready) begin\n")
         .append("        $fdisplay(log, \"csr %h %h @%0d\", csrAddr[csrIndex][").append(port("ctrl_araddr").width - 1)
         .append(":0], ctrl_rdata, clocks);\n")
         .append("        csrBusy <= 1'b0; csrIndex <= csrIndex + 1;\n      end\n")
         .append("    end\n  end\n");

        // Input streams and flows, each from its vector files (one per field, one more zero entry).
        List<String> doneTerms = new ArrayList<>();
        for (var e : inputFields.entrySet()) {
            String s = e.getKey();
            int n = inputs.getOrDefault(s, List.of()).size();
            v.append("  integer ").append(s).append("_index = 0;\n");
            for (String f : e.getValue()) {
                v.append("  reg ").append(range(port(f).width)).append("vec_").append(f).append(" [0:").append(n).append("];\n");
            }
            v.append("  wire ").append(s).append("_moves = ").append(valid(s))
             .append(ready(s) != null ? " && " + ready(s) : "").append(";\n")
             .append("  always @(posedge clk) if (phaseRun").append(startAfter.containsKey(s)
                     ? " && " + startAfter.get(s) + "_index == " + inputs.getOrDefault(startAfter.get(s), List.of()).size() : "")
             .append(") begin : drive_").append(s).append("\n")
             .append("    integer next;\n    next = ").append(s).append("_index + (").append(s).append("_moves ? 1 : 0);\n")
             .append("    ").append(s).append("_index <= next;\n")
             .append("    ").append(valid(s)).append(" <= next < ").append(n).append(";\n");
            for (String f : e.getValue()) {
                v.append("    ").append(f).append(" <= vec_").append(f).append("[next];\n");
            }
            v.append("  end\n");
            doneTerms.add("(" + s + "_index == " + n + ")");
        }
        // Output streams and flows, and the logged inputs: one log line per transfer.
        v.append("  always @(posedge clk) if (!reset) begin\n");
        Map<String, List<String>> logged = new LinkedHashMap<>();
        outputStreams.forEach(s -> logged.put(s, payload(s, "output")));
        logged.putAll(loggedInputs);
        for (var e : logged.entrySet()) {
            String s = e.getKey();
            v.append("    if (").append(valid(s)).append(ready(s) != null ? " && " + ready(s) : "")
             .append(") $fdisplay(log, \"").append(s);
            e.getValue().forEach(f -> v.append(" %h"));
            v.append(" @%0d\"");
            e.getValue().forEach(f -> v.append(", ").append(f));
            v.append(", clocks);\n");
        }
        v.append("  end\n\n  integer drain = 0;\n  initial begin\n")
         .append("`ifdef VERILATOR\n    log = $fopen(\"verilator.log\", \"w\");\n`else\n    log = $fopen(\"icarus.log\", \"w\");\n")
         .append("    $dumpfile(\"icarus.fst\");\n    $dumpvars(0, tb);\n`endif\n")
         .append("    $readmemh(\"tb_csr_addr.hex\", csrAddr);\n    $readmemh(\"tb_csr_data.hex\", csrData);\n");
        for (var e : inputFields.entrySet()) {
            for (String f : e.getValue()) {
                v.append("    $readmemh(\"tb_").append(f).append(".hex\", vec_").append(f).append(");\n");
            }
        }
        v.append("  end\n")
         // Sequencing in clocked blocks only, so that both simulators order it the same way.
         .append("  reg begun = 1'b0;\n")
         .append("  wire allDone = ").append(doneTerms.isEmpty() ? "1'b1" : String.join(" && ", doneTerms)).append(";\n")
         .append("  always @(posedge clk) begin\n")
         .append("    if (clocks == 16) reset <= 1'b0;\n")
         .append("    if (!reset && ready0 && !begun) begin begun <= 1'b1; phaseCsr <= 1'b1; end\n")
         .append("    if (phaseRun && allDone) drain <= drain + 1;\n");
        heldReadies.forEach(r -> v.append("    if (phaseRun && allDone) ").append(r).append(" <= 1'b1;\n"));
        v
         .append("    if (drain == ").append(drainClocks).append(") begin\n")
         .append("      $fdisplay(log, \"end %0d\", clocks);\n      $fclose(log);\n      $finish;\n    end\n")
         .append("    if (clocks > 2000000) begin $display(\"tb: timeout\"); $fclose(log); $finish; end\n")
         .append("  end\nendmodule\n");
        Files.writeString(dir.resolve("tb.v"), v.toString());

        writeHex(dir.resolve("tb_csr_addr.hex"), csrWrites.stream().map(w -> BigInteger.valueOf(w[0])).toList());
        writeHex(dir.resolve("tb_csr_data.hex"), csrWrites.stream().map(w -> BigInteger.valueOf(w[1])).toList());
        for (var e : inputFields.entrySet()) {
            List<BigInteger[]> rows = inputs.getOrDefault(e.getKey(), List.of());
            for (int f = 0; f < e.getValue().size(); f++) {
                List<BigInteger> col = new ArrayList<>();
                for (BigInteger[] r : rows) {
                    col.add(r[f]);
                }
                col.add(BigInteger.ZERO);
                writeHex(dir.resolve("tb_" + e.getValue().get(f) + ".hex"), col);
            }
        }
    }

    private static void writeHex(Path file, List<BigInteger> values) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (BigInteger b : values) {
            sb.append(b.toString(16)).append('\n');
        }
        if (values.isEmpty()) {
            sb.append("0\n");
        }
        Files.writeString(file, sb.toString());
    }

    /** Runs the bench with Icarus; returns the log lines. */
    public List<String> runIcarus(Path dir) throws IOException, InterruptedException {
        run(dir, 300, "iverilog", "-g2012", "-o", "tb.vvp", "-s", "tb", "tb.v", verilog);
        run(dir, 600, "vvp", "-n", "tb.vvp", "-fst");
        return Files.readAllLines(dir.resolve("icarus.log"));
    }

    /** Runs the bench with Verilator (--binary --timing); returns the log lines. */
    public List<String> runVerilator(Path dir) throws IOException, InterruptedException {
        run(dir, 900, "verilator", "--binary", "--timing", "-Wno-fatal", "-Wno-lint", "-Wno-style", "--top-module", "tb",
                "-Mdir", "tb_obj", "tb.v", verilog);
        run(dir, 600, dir.toAbsolutePath().resolve("tb_obj").resolve("Vtb").toString());
        return Files.readAllLines(dir.resolve("verilator.log"));
    }

    private static void run(Path dir, int seconds, String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("tb_" + Path.of(cmd[0]).getFileName() + ".out").toFile()).start();
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", cmd) + " timed out after " + seconds + " s in " + dir);
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " exited " + p.exitValue() + ": see "
                    + dir.resolve("tb_" + Path.of(cmd[0]).getFileName() + ".out"));
        }
    }
}
