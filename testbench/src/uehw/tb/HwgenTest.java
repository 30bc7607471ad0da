// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import uehw.bench.csr.DartDasrCsr;
import uehw.bench.csr.DartDftCsr;
import uehw.bench.csr.DasrLimiterCsr;
import uehw.bench.csr.RepsCsr;
import uehw.bench.csr.SmarttCsr;
import uehw.bench.csr.SwiftCsr;
import uehw.bench.csr.TrimQueueCsr;
import uehw.cli.Hwgen;
import uehw.cli.IntegrationKit;
import uehw.cli.ParamTable;
import uehw.cli.PortTable;
import uehw.hw.BlockSpec;
import uehw.hw.Blocks;
import uehw.hw.LintVariant;
import uehw.hw.SweepPoint;
import uehw.hw.common.ParameterException;
import uehw.hw.reps.RepsConfig;

/** The generator CLI: manifests, constraints, register docs, and bad parameters rejected by name. */
@Tag("tools")
class HwgenTest {
    @TempDir
    Path tmp;

    private int run(String... args) {
        return Hwgen.commandLine().execute(args);
    }

    @Test
    void generatesVerilogManifestConstraintsAndRegisterDocs() throws Exception {
        Path out = tmp.resolve("reps");
        assertEquals(0, run("generate", "reps", "--connections", "256", "--mode", "reps-lite", "--out", out.toString(),
                "--clock-mhz", "300"));
        for (String f : new String[] {"uehw_reps.v", "uehw_reps.xdc", "uehw_reps_ooc.xdc", "uehw_reps.sdc", "uehw_reps.ice40.py",
                "uehw_reps_regs.h", "uehw_reps_regs.html", "uehw_reps_regs.json"}) {
            assertTrue(Files.size(out.resolve(f)) > 0, f);
        }
        JsonNode m = new ObjectMapper().readTree(out.resolve("uehw_reps.manifest.json").toFile());
        assertEquals("reps", m.get("block").asText());
        assertTrue(m.get("topModule").asText().matches("uehw_reps_[0-9a-f]{6}"), "the top's name carries the parameters' hash");
        assertEquals(m.get("parametersSha256").asText().substring(0, 6), m.get("topModule").asText().substring(10));
        assertEquals("256", m.get("parameters").get("connections").asText());
        assertEquals("reps-lite", m.get("parameters").get("mode").asText());
        assertEquals(RepsConfig.params().size(), m.get("parameters").size(), "every parameter value is recorded");
        assertFalse(m.get("gitHash").asText().isEmpty());
        boolean sawSendConn = false;
        for (JsonNode p : m.get("ports")) {
            if (p.get("name").asText().equals("io_send_payload_conn")) {
                sawSendConn = p.get("width").asInt() == 16 && p.get("direction").asText().equals("input");
            }
        }
        assertTrue(sawSendConn, "port list with widths");
        assertTrue(Files.readString(out.resolve("uehw_reps_ooc.xdc")).contains("create_clock -name clk -period 3.333 [get_ports clk]"));
        assertTrue(Files.readString(out.resolve("uehw_reps.sdc")).contains("-period 3.333"));
        String scoped = Files.readString(out.resolve("uehw_reps.xdc"));
        assertTrue(scoped.contains("read_xdc -ref " + m.get("topModule").asText() + " uehw_reps.xdc"), "scoped to the top");
        assertFalse(scoped.lines().anyMatch(l -> !l.startsWith("#") && l.contains("create_clock")),
                "inside a design the clock comes from the design: the scoped XDC creates none");
        assertTrue(Files.readString(out.resolve("uehw_reps.v")).contains("module " + m.get("topModule").asText() + " ("));
    }

    /**
     * ROM contents are inline by default (no file beside the Verilog to lose or to clash); with
     * --rom-files they are $readmemb files named after the top's module. A bad --prefix exits 2.
     */
    @Test
    void romContentsAreInlineUnlessFilesAreAskedFor() throws Exception {
        Path inline = tmp.resolve("inline");
        assertEquals(0, run("generate", "swift", "--flows", "16", "--out", inline.toString()));
        try (Stream<Path> files = Files.list(inline)) {
            assertFalse(files.anyMatch(f -> f.toString().endsWith(".bin")), "no ROM file by default");
        }
        assertFalse(Files.readString(inline.resolve("uehw_swift.v")).contains("$readmem"));
        Path withFiles = tmp.resolve("files");
        assertEquals(0, run("generate", "swift", "--flows", "16", "--prefix", "nic_swift", "--rom-files", "--out", withFiles.toString()));
        List<String> bins = new ArrayList<>();
        try (Stream<Path> files = Files.list(withFiles)) {
            files.map(f -> f.getFileName().toString()).filter(f -> f.endsWith(".bin")).forEach(bins::add);
        }
        assertEquals(2, bins.size(), "the reciprocal and 1/sqrt tables: " + bins);
        String verilog = Files.readString(withFiles.resolve("uehw_swift.v"));
        for (String bin : bins) {
            assertTrue(bin.contains("nic_swift"), bin + " carries the top's name");
            assertTrue(verilog.contains("$readmemb(\"" + bin + "\""), "the Verilog reads " + bin);
        }
        assertEquals(2, run("generate", "swift", "--prefix", "2swift", "--out", tmp.resolve("bad").toString()));
        assertFalse(Files.exists(tmp.resolve("bad")), "a bad prefix writes nothing");
        assertEquals(2, run("generate", "swift", "--prefix", "module", "--out", tmp.resolve("bad").toString()),
                "a reserved word is no module name");
        assertEquals(2, run("generate", "swift", "--prefix", "always_ff", "--out", tmp.resolve("bad").toString()));
    }

    /**
     * Packaging: every generated folder has a FuseSoC CAPI2 core and an IP-XACT 1685-2014 component.
     * The component parses as strict namespace-aware XML, has the standard's top-level elements in
     * the standard's order, one model port per manifest port (direction, width), and bus interfaces
     * (clock, reset, AXI4-Lite, AXI4-Stream) whose port maps name real ports with the AMBA signal
     * names; the core parses as YAML with CAPI2's structure, naming files that are in the folder.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("defaultBlocks")
    void folderCarriesAFuseSocCoreAndAnIpXactComponent(String block) throws Exception {
        Path out = tmp.resolve(block);
        JsonNode m = generateDefault(block, out);
        String base = "uehw_" + block.replace('-', '_');
        String top = m.get("topModule").asText();
        Map<String, JsonNode> ports = new HashMap<>();
        m.get("ports").forEach(p -> ports.put(p.get("name").asText(), p));

        var factory = javax.xml.parsers.DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        var builder = factory.newDocumentBuilder();
        builder.setErrorHandler(new org.xml.sax.helpers.DefaultHandler() {
            @Override
            public void error(org.xml.sax.SAXParseException e) throws org.xml.sax.SAXException {
                throw e;
            }
        });
        org.w3c.dom.Element root = builder.parse(out.resolve("component.xml").toFile()).getDocumentElement();
        String ns = uehw.cli.Packaging.IPXACT_NS;
        assertEquals(ns, root.getNamespaceURI());
        assertEquals("component", root.getLocalName());
        // componentType's sequence (component.xsd): versionedIdentifier, busInterfaces, ..., model, ..., fileSets, ..., description
        List<String> order = List.of("vendor", "library", "name", "version", "busInterfaces", "indirectInterfaces", "channels",
                "remapStates", "addressSpaces", "memoryMaps", "model", "componentGenerators", "choices", "fileSets",
                "whiteboxElements", "cpus", "otherClockDrivers", "resetTypes", "description", "parameters", "assertions",
                "vendorExtensions");
        List<String> children = elementChildren(root).stream().map(e -> e.getLocalName()).toList();
        assertEquals(List.of("vendor", "library", "name", "version"), children.subList(0, 4), "VLNV first");
        for (int i = 1; i < children.size(); i++) {
            assertTrue(order.indexOf(children.get(i - 1)) < order.indexOf(children.get(i)), "element order: " + children);
        }
        assertEquals(top, child(root, "name").getTextContent());
        assertEquals(m.get("generatorVersion").asText(), child(root, "version").getTextContent());
        org.w3c.dom.Element model = child(root, "model");
        List<org.w3c.dom.Element> modelPorts = elementChildren(child(model, "ports"));
        assertEquals(ports.size(), modelPorts.size(), "one model port per manifest port");
        for (org.w3c.dom.Element p : modelPorts) {
            JsonNode mp = ports.get(child(p, "name").getTextContent());
            assertTrue(mp != null, "a manifest port: " + child(p, "name").getTextContent());
            org.w3c.dom.Element wire = child(p, "wire");
            assertEquals(mp.get("direction").asText().equals("input") ? "in" : "out", child(wire, "direction").getTextContent());
            var vectors = wire.getElementsByTagNameNS(ns, "left");
            assertEquals(mp.get("width").asInt() - 1, vectors.getLength() == 0 ? 0 : Integer.parseInt(vectors.item(0).getTextContent()));
        }
        assertEquals(top, model.getElementsByTagNameNS(ns, "moduleName").item(0).getTextContent());
        Map<String, String> busOf = new HashMap<>();
        for (org.w3c.dom.Element bus : elementChildren(child(root, "busInterfaces"))) {
            String name = child(bus, "name").getTextContent();
            busOf.put(name, child(bus, "busType").getAttribute("name"));
            var maps = bus.getElementsByTagNameNS(ns, "portMap");
            for (int i = 0; i < maps.getLength(); i++) {
                org.w3c.dom.Element pm = (org.w3c.dom.Element) maps.item(i);
                String logical = child(child(pm, "logicalPort"), "name").getTextContent();
                String physical = child(child(pm, "physicalPort"), "name").getTextContent();
                assertTrue(ports.containsKey(physical), name + " maps " + physical);
                assertTrue(logical.matches("CLK|RST|(AW|AR)(VALID|READY|ADDR|PROT)|W(VALID|READY|DATA|STRB)|B(VALID|READY|RESP)"
                        + "|R(VALID|READY|DATA|RESP)|T(VALID|READY|DATA|KEEP|LAST|USER)"), "an AMBA / Vivado signal name: " + logical);
            }
        }
        assertEquals("clock", busOf.get("clk"));
        assertEquals("reset", busOf.get("reset"));
        assertEquals("aximm", busOf.get("ctrl"), "the CSR port is AXI4-Lite");
        if (block.equals("trim-queue")) {
            assertEquals("axis", busOf.get("s_axis"));
            assertEquals("axis", busOf.get("m_axis"));
        }
        var files = root.getElementsByTagNameNS(ns, "file");
        for (int i = 0; i < files.getLength(); i++) {
            String f = child((org.w3c.dom.Element) files.item(i), "name").getTextContent();
            assertTrue(Files.exists(out.resolve(f)), "component.xml names " + f);
        }

        String coreText = Files.readString(out.resolve(base + ".core"));
        assertTrue(coreText.startsWith("CAPI=2:\n"), "a CAPI2 core starts with CAPI=2:");
        JsonNode core = new ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory()).readTree(coreText);
        assertEquals("uehw:uehw:" + top + ":" + m.get("generatorVersion").asText(), core.get("name").asText(), "VLNV name");
        assertTrue(core.get("description").asText().length() > 10);
        for (var it = core.get("filesets").fields(); it.hasNext(); ) {
            var fs = it.next();
            for (JsonNode f : fs.getValue().get("files")) {
                String name = f.isTextual() ? f.asText() : f.fieldNames().next();
                assertTrue(Files.exists(out.resolve(name)), "fileset " + fs.getKey() + " names " + name);
            }
            assertTrue(fs.getValue().has("file_type"), "fileset " + fs.getKey() + " has a file_type");
        }
        for (String target : new String[] {"default", "lint"}) {
            JsonNode t = core.get("targets").get(target);
            assertEquals(top, t.get("toplevel").asText(), target);
            t.get("filesets").forEach(f -> assertTrue(core.get("filesets").has(f.asText()), target + " uses fileset " + f.asText()));
        }
        assertEquals("verilator", core.get("targets").get("lint").get("default_tool").asText());
        assertTrue(m.get("files").has("component.xml") && m.get("files").has(base + ".core"), "the manifest's SHA-256 cover both");
    }

    private static List<org.w3c.dom.Element> elementChildren(org.w3c.dom.Element e) {
        List<org.w3c.dom.Element> r = new ArrayList<>();
        for (org.w3c.dom.Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof org.w3c.dom.Element el) {
                r.add(el);
            }
        }
        return r;
    }

    private static org.w3c.dom.Element child(org.w3c.dom.Element e, String localName) {
        return elementChildren(e).stream().filter(c -> c.getLocalName().equals(localName)).findFirst()
                .orElseThrow(() -> new AssertionError(e.getLocalName() + " has no " + localName));
    }

    /**
     * docs/integration.md: each block's configuration case class has one field per generation
     * parameter, named in camelCase (`--capacity-bytes` -> `capacityBytes`), holding the value hwgen
     * generates with (the parameter's default when none is given).
     */
    @Test
    void configFieldsAreTheGenerationParametersInCamelCase() {
        for (uehw.hw.BlockSpec block : Blocks.allJava()) {
            uehw.hw.common.ParamValues values = block.check(Map.of());
            Object cfg = ((uehw.hw.ConfiguredBlock<?>) block).config(values);
            scala.Product product = (scala.Product) cfg;
            Map<String, String> fields = new HashMap<>();
            for (int i = 0; i < product.productArity(); i++) {
                fields.put(product.productElementName(i), String.valueOf(product.productElement(i)));
            }
            for (uehw.hw.common.ParamSpec p : block.paramsJava()) {
                String[] parts = p.name().split("-");
                StringBuilder camel = new StringBuilder(parts[0]);
                for (int i = 1; i < parts.length; i++) {
                    camel.append(Character.toUpperCase(parts[i].charAt(0))).append(parts[i].substring(1));
                }
                assertTrue(fields.containsKey(camel.toString()), block.name() + ": no config field " + camel + " for --" + p.name()
                        + " (fields " + fields.keySet() + ")");
                assertEquals(values.string(p.name()), fields.get(camel.toString()), block.name() + "." + camel);
            }
            assertEquals(block.paramsJava().size(), product.productArity(), block.name() + ": a config field per parameter, no more");
        }
    }

    /**
     * --clock-mhz warns when the block's reported critical path (docs/resources.md, default
     * parameters) does not fit the period, or fits without the 0.4 ns margin; silent when it fits.
     */
    @Test
    void clockFasterThanTheReportedPathWarns() throws Exception {
        double reps = uehw.cli.Constraints.reportedDefaultNs("reps").orElseThrow();
        assertTrue(reps > 1000.0 / 322, "REPS is reported above 3.1 ns (" + reps + "), so 322 MHz must warn");
        String at322 = stderrOf("generate", "reps", "--clock-mhz", "322", "--out", tmp.resolve("r322").toString());
        assertTrue(at322.contains("hwgen: warning: --clock-mhz 322") && at322.contains("does not fit"), at322);
        String at200 = stderrOf("generate", "reps", "--clock-mhz", "200", "--out", tmp.resolve("r200").toString());
        assertFalse(at200.contains("warning"), at200);
        double dft = uehw.cli.Constraints.reportedDefaultNs("dart-dft").orElseThrow();
        double mhz = Math.floor(1000.0 / (dft + 0.2));          // fits, with less than 0.4 ns to spare
        String tight = stderrOf("generate", "dart-dft", "--clock-mhz", String.valueOf((long) mhz), "--out", tmp.resolve("d").toString());
        assertTrue(tight.contains("without the 0.4 ns margin"), mhz + " MHz: " + tight);
    }

    private String stderrOf(String... args) {
        PrintStream oldErr = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true));
        try {
            assertEquals(0, run(args));
        } finally {
            System.setErr(oldErr);
        }
        return err.toString();
    }

    /**
     * Any set of blocks and sizes shares one design: trim-queue at two widths, dart-dft and REPS,
     * instantiated in one top, compile in Icarus and lint clean in Verilator with MODDUP an error.
     * The same four with both trim queues given one --prefix must fail in both tools (the check can fail).
     */
    @Tag("rtl")
    @Test
    void fourBlocksAndSizesCompileIntoOneDesign() throws Exception {
        String[][] gens = {
            {"trim-queue"},
            {"trim-queue", "--data-bytes", "8", "--capacity-bytes", "32768", "--control-bytes", "4096", "--trim-bytes", "96"},
            {"dart-dft"},
            {"reps"}};
        Path unique = tmp.resolve("unique");
        Path clash = tmp.resolve("clash");
        List<String> uniqueFiles = new ArrayList<>();
        List<String> clashFiles = new ArrayList<>();
        List<JsonNode> uniqueManifests = new ArrayList<>();
        List<JsonNode> clashManifests = new ArrayList<>();
        for (int i = 0; i < gens.length; i++) {
            for (boolean shared : new boolean[] {false, true}) {
                Path dir = (shared ? clash : unique).resolve("g" + i);
                List<String> args = new ArrayList<>(List.of("generate"));
                args.addAll(List.of(gens[i]));
                args.addAll(List.of("--out", dir.toString()));
                if (shared && gens[i][0].equals("trim-queue")) {
                    args.addAll(List.of("--prefix", "port_queue"));
                }
                assertEquals(0, run(args.toArray(new String[0])));
                String base = "uehw_" + gens[i][0].replace('-', '_');
                (shared ? clashFiles : uniqueFiles).add(dir.resolve(base + ".v").toString());
                (shared ? clashManifests : uniqueManifests).add(
                        new ObjectMapper().readTree(dir.resolve(base + ".manifest.json").toFile()));
            }
        }
        assertEquals(uniqueManifests.size(), uniqueManifests.stream().map(m -> m.get("topModule").asText()).distinct().count(),
                "four tops, four names");
        for (var c : List.of(Map.entry(unique, uniqueFiles), Map.entry(clash, clashFiles))) {
            Path dir = c.getKey();
            Files.writeString(dir.resolve("four_blocks.v"), oneTop(dir == unique ? uniqueManifests : clashManifests));
            List<String> iverilog = new ArrayList<>(List.of("iverilog", "-g2012", "-o", "four.vvp", "-s", "four_blocks", "four_blocks.v"));
            iverilog.addAll(c.getValue());
            List<String> verilator = new ArrayList<>(List.of("verilator", "--lint-only", "-Wall", "-Werror-MODDUP",
                    "--top-module", "four_blocks", Path.of(System.getProperty("user.dir"), "hw/lint/spinal-waivers.vlt").toString(),
                    "four_blocks.v"));
            verilator.addAll(c.getValue());
            if (dir == unique) {
                assertEquals(0, tool(dir, iverilog.toArray(new String[0])), "Icarus compiles the four blocks in one design");
                assertEquals(0, tool(dir, verilator.toArray(new String[0])), "Verilator lints the four blocks in one design");
            } else {
                assertTrue(tool(dir, iverilog.toArray(new String[0])) != 0, "one name twice: Icarus must refuse it");
                assertTrue(tool(dir, verilator.toArray(new String[0])) != 0, "one name twice: Verilator must refuse it");
            }
        }
    }

    /**
     * Provenance: hwgen run inside someone else's git repository stamps the generator's own commit
     * (baked in at build time), never that repository's: in the manifest, the Verilog's header and
     * hwgen -V. The generator here is built from this checkout, so its commit is this HEAD.
     */
    @Tag("rtl")
    @Test
    void generationFromAForeignRepositoryCarriesTheGeneratorsCommit() throws Exception {
        Path foreign = tmp.resolve("their-repo");
        Files.createDirectories(foreign);
        Files.writeString(foreign.resolve("top.v"), "module top; endmodule\n");
        for (String[] cmd : new String[][] {{"git", "init", "-q"}, {"git", "add", "top.v"},
                {"git", "-c", "user.name=user", "-c", "user.email=user@example.com", "commit", "-q", "-m", "theirs"}}) {
            assertEquals(0, tool(foreign, cmd), String.join(" ", cmd));
        }
        String theirs = output(foreign, "git", "rev-parse", "HEAD");
        String ours = output(Path.of(System.getProperty("user.dir")), "git", "rev-parse", "HEAD");
        assertTrue(ours.matches("[0-9a-f]{40}") && theirs.matches("[0-9a-f]{40}") && !ours.equals(theirs), ours + " / " + theirs);

        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = System.getProperty("java.class.path");
        assertEquals(0, tool(foreign, java, "-cp", cp, "uehw.cli.Hwgen", "generate", "reps", "--connections", "16",
                "--out", "rtl"), "hwgen generate in a foreign repository");
        JsonNode m = new ObjectMapper().readTree(foreign.resolve("rtl/uehw_reps.manifest.json").toFile());
        String stamp = m.get("gitHash").asText();
        assertTrue(stamp.equals(ours) || stamp.equals(ours + "-dirty"), "the generator's commit " + ours + ", not " + stamp);
        String verilog = Files.readString(foreign.resolve("rtl/uehw_reps.v"));
        String head = verilog.substring(0, verilog.indexOf("module "));
        assertTrue(head.contains("commit " + stamp + " "), "the commit in the Verilog header: " + head);
        assertTrue(head.contains("Parameters SHA-256 " + m.get("parametersSha256").asText()), "the parameters' SHA in the header");
        assertTrue(output(foreign, java, "-cp", cp, "uehw.cli.Hwgen", "-V").contains("(" + stamp + ")"), "hwgen -V");
    }

    private static String output(Path dir, String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()).trim();
        assertEquals(0, p.waitFor(), String.join(" ", cmd) + ": " + out);
        return out;
    }

    /** A top with one instance per manifest, every port of it a port of the top named u<i>_<port>. */
    private static String oneTop(List<JsonNode> manifests) {
        List<String> ports = new ArrayList<>(List.of("input wire clk", "input wire reset"));
        StringBuilder body = new StringBuilder();
        for (int i = 0; i < manifests.size(); i++) {
            JsonNode m = manifests.get(i);
            body.append("  ").append(m.get("topModule").asText()).append(" u").append(i).append(" (\n");
            List<String> conns = new ArrayList<>();
            for (JsonNode p : m.get("ports")) {
                String name = p.get("name").asText();
                int w = p.get("width").asInt();
                if (name.equals("clk") || name.equals("reset")) {
                    conns.add("    ." + name + "(" + name + ")");
                    continue;
                }
                ports.add(p.get("direction").asText() + " wire " + (w > 1 ? "[" + (w - 1) + ":0] " : "") + "u" + i + "_" + name);
                conns.add("    ." + name + "(u" + i + "_" + name + ")");
            }
            body.append(String.join(",\n", conns)).append("\n  );\n");
        }
        return "// four uehw generations in one design\n`timescale 1ns / 1ps\nmodule four_blocks (\n  " + String.join(",\n  ", ports) + "\n);\n"
                + body + "endmodule\n";
    }

    @Test
    void badParameterExitsNonZeroNamesItAndWritesNothing() {
        Path out = tmp.resolve("never");
        PrintStream oldErr = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true));
        try {
            assertEquals(Hwgen.EXIT_BAD_PARAMETER, run("generate", "reps", "--connections", "0", "--out", out.toString()));
            assertEquals(Hwgen.EXIT_BAD_PARAMETER, run("generate", "reps", "--buffer-entries", "6", "--out", out.toString()));
            assertEquals(Hwgen.EXIT_BAD_PARAMETER, run("generate", "reps", "--mode", "ecmp", "--out", out.toString()));
            assertEquals(Hwgen.EXIT_BAD_PARAMETER,
                    run("generate", "reps", "--connections", "4096", "--conn-id-width", "8", "--out", out.toString()));
            assertEquals(Hwgen.EXIT_BAD_PARAMETER, run("generate", "dart-dft", "--entries", "65", "--out", out.toString()));
            assertEquals(Hwgen.EXIT_BAD_PARAMETER,
                    run("generate", "dart-dft", "--occupancy-width", "12", "--threshold", "15000", "--out", out.toString()));
            assertEquals(Hwgen.EXIT_BAD_PARAMETER,
                    run("generate", "smartt", "--link-gbps", "800", "--byte-width", "20", "--out", out.toString()));
            assertEquals(Hwgen.EXIT_BAD_PARAMETER, run("generate", "smartt", "--rtt-width", "8", "--base-rtt-ns", "100",
                    "--out", out.toString()));
            assertEquals(Hwgen.EXIT_BAD_PARAMETER, run("generate", "trim-queue", "--data-bytes", "24", "--out", out.toString()));
        } finally {
            System.setErr(oldErr);
        }
        String msg = err.toString();
        assertTrue(msg.contains("'connections' = '0'") && msg.contains("2..65536"), msg);
        assertTrue(msg.contains("'buffer-entries'") && msg.contains("power of two"), msg);
        assertTrue(msg.contains("'mode'"), msg);
        assertTrue(msg.contains("'conn-id-width'"), msg);
        assertTrue(msg.contains("'entries' = '65'") && msg.contains("1..64"), msg);
        assertTrue(msg.contains("'threshold'") && msg.contains("occupancy-width 12"), msg);
        assertTrue(msg.contains("'byte-width'") && msg.contains("1.25 BDP"), msg);
        assertTrue(msg.contains("'rtt-width'") && msg.contains("FAST_INCREASE_CLOSENESS"), msg);
        assertTrue(msg.contains("'data-bytes'") && msg.contains("8, 16, 32 or 64"), msg);
        assertFalse(Files.exists(out), "nothing may be written for a rejected parameter");
    }

    @Test
    void configRejectsBadValuesByName() {
        ParameterException e = assertThrows(ParameterException.class,
                () -> new RepsConfig("reps", 1024, 8, 16, 16, 32, 8, 10, 300, 0, 1));
        assertEquals("num-pkts-bdp", e.parameter());
        e = assertThrows(ParameterException.class, () -> Blocks.reps().check(Map.of("ev-width", "17")));
        assertEquals("ev-width", e.parameter());
    }

    static Stream<Arguments> csrMaps() {
        return Stream.of(
                Arguments.of("reps", RepsCsr.class, "uehw_reps_regs.h", "REPS", new String[] {"--connections", "16"}),
                // 64 ports: the *_HI mask registers exist only above 32 ports.
                Arguments.of("dart-dft", DartDftCsr.class, "uehw_dart_dft_regs.h", "DART", new String[] {"--ports", "64"}),
                Arguments.of("dart-dasr", DartDasrCsr.class, "uehw_dart_dasr_regs.h", "DASR", new String[] {"--capacity", "16"}),
                Arguments.of("dasr-limiter", DasrLimiterCsr.class, "uehw_dasr_limiter_regs.h", "DASRL", new String[] {"--flows", "16"}),
                Arguments.of("smartt", SmarttCsr.class, "uehw_smartt_regs.h", "SMARTT", new String[] {"--flows", "16"}),
                Arguments.of("swift", SwiftCsr.class, "uehw_swift_regs.h", "SWIFT", new String[] {"--flows", "16"}),
                Arguments.of("trim-queue", TrimQueueCsr.class, "uehw_trim_queue_regs.h", "TRIMQ",
                        new String[] {"--data-bytes", "8", "--capacity-bytes", "32768"}));
    }

    /** The Java CSR address classes (used by every test) must match the map regif generated. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("csrMaps")
    void csrAddressesMatchTheGeneratedRegisterMap(String block, Class<?> addresses, String headerFile, String prefix,
                                                  String[] params) throws Exception {
        Path out = tmp.resolve("map");
        List<String> args = new ArrayList<>(List.of("generate", block, "--out", out.toString()));
        args.addAll(List.of(params));
        assertEquals(0, run(args.toArray(String[]::new)));
        String header = Files.readString(out.resolve(headerFile));
        for (var f : addresses.getFields()) {
            if (f.getType() != int.class) {
                continue; // COUNTERS, ADDRESSES
            }
            String hex = String.format("0x%04x", f.getInt(null));
            assertTrue(header.matches("(?s).*#define\\s+" + prefix + "_" + f.getName() + "\\s+" + hex + ".*"),
                    prefix + "_" + f.getName() + " at " + hex + " in the C header");
        }
        // INFO's and VERSION's fields are named: in the JSON map, and with SHIFT / MASK defines in both headers
        String svh = Files.readString(out.resolve(headerFile.replace(".h", ".svh")));
        assertTrue(header.matches("(?s).*#define\\s+" + prefix + "_INFO_ID_SHIFT\\s+0\\n.*"), "INFO.ID's shift in the C header");
        assertTrue(header.matches("(?s).*#define\\s+" + prefix + "_INFO_ID_MASK\\s+0x000000ff .*"), "INFO.ID's mask in the C header");
        assertTrue(header.matches("(?s).*#define\\s+" + prefix + "_VERSION_MAJOR_MASK\\s+0x00ff0000 .*"), "VERSION.MAJOR's mask");
        assertTrue(svh.matches("(?s).*`define\\s+" + prefix + "_INFO_ID_MASK\\s+'h000000ff .*"), "INFO.ID's mask in the SV header");
        JsonNode regs = new ObjectMapper().readTree(out.resolve(headerFile.replace(".h", ".json")).toFile());
        for (JsonNode slice : regs.get("slices")) {
            if (slice.get("name").asText().endsWith("_INFO") || slice.get("name").asText().endsWith("_VERSION")) {
                for (JsonNode field : slice.get("fields")) {
                    assertTrue(field.get("access").asText().equals("NA") || field.get("name").asText().matches("[A-Z][A-Z0-9_]*"),
                            slice.get("name").asText() + " has an unnamed field: " + field);
                }
            }
        }
    }

    /**
     * docs/dart-cam.md (FLUSH, timing diagram): a flush holds new packets in stage 0 and waits for
     * the packets in stages 1 to 3 before it clears the table. The field descriptions that go into
     * the generated header, HTML and JSON must say the same.
     */
    @Test
    void dartFlushDescriptionsNameTheStagesItWaitsFor() throws Exception {
        Path out = tmp.resolve("dart");
        assertEquals(0, run("generate", "dart-dft", "--out", out.toString()));
        JsonNode regs = new ObjectMapper().readTree(out.resolve("uehw_dart_dft_regs.json").toFile());
        Map<String, String> docs = new HashMap<>();
        for (JsonNode slice : regs.get("slices")) {
            for (JsonNode field : slice.get("fields")) {
                docs.put(slice.get("name").asText() + "." + field.get("name").asText(), field.get("doc").asText());
            }
        }
        for (String field : List.of("DART_COMMAND.FLUSH", "DART_STATUS.FLUSH_PENDING")) {
            String doc = docs.get(field);
            assertTrue(doc != null && doc.contains("stages 1 to 3"), field + ": " + doc);
        }
        String header = Files.readString(out.resolve("uehw_dart_dft_regs.h"));
        assertTrue(header.contains("wait until stages 1 to 3 are empty"), "the C header carries the FLUSH description");
    }

    @Test
    void stateBitsPerConnectionStayWithinThePaper() {
        RepsConfig cfg = new RepsConfig("reps", 1024, 8, 16, 16, 32, 8, 10000000L, 37, 0, 0x2545F491L);
        System.out.printf("reps state: %d bits per connection (reps.txt Table 1: 193), %d RAM bits per connection%n",
                cfg.stateBitsPerConnection(), cfg.ramBitsPerConnection());
        assertTrue(cfg.stateBitsPerConnection() <= 193);
    }

    /** smartt-reps.txt Sec. 3.2.5: 19 bytes per flow. The state RAM word of the generated Verilog is the count. */
    @Test
    void smarttStateBitsPerFlowStayWithinThePaper() throws Exception {
        Path out = tmp.resolve("smartt");
        assertEquals(0, run("generate", "smartt", "--out", out.toString()));
        String verilog = Files.readString(out.resolve("uehw_smartt.v"));
        var m = java.util.regex.Pattern.compile("reg\\s+\\[(\\d+):0\\]\\s+stateRam\\s+\\[0:1023\\]").matcher(verilog);
        assertTrue(m.find(), "no 1024-word state RAM in the Verilog");
        int bits = Integer.parseInt(m.group(1)) + 1;
        JsonNode manifest = new ObjectMapper().readTree(out.resolve("uehw_smartt.manifest.json").toFile());
        assertEquals(String.valueOf(bits), manifest.get("facts").get("stateBitsPerConnection").asText());
        System.out.printf("smartt state: %d bits per flow (smartt-reps.txt Sec. 3.2.5: 19 bytes = 152 bits)%n", bits);
        assertTrue(bits <= 152, bits + " bits per flow");
    }

    /**
     * A generated folder stands on its own: Verilator lints the top clean with the folder's own
     * waivers, the instantiation template names every port of the manifest with its width and
     * compiles (Icarus) against the Verilog, and the manifest's SHA-256 match the files.
     */
    @Tag("rtl")
    @ParameterizedTest(name = "{0}")
    @MethodSource("defaultBlocks")
    void generatedFolderIsSelfContained(String block) throws Exception {
        Path out = tmp.resolve(block);
        JsonNode m = generateDefault(block, out);
        String top = "uehw_" + block.replace('-', '_');
        assertTrue(Files.size(out.resolve("README.txt")) > 0);

        assertEquals(0, tool(out, "verilator", "--lint-only", "-Wall", IntegrationKit.waiversFile(top), top + ".v"),
                "verilator --lint-only -Wall with the folder's waivers");

        String inst = Files.readString(out.resolve(IntegrationKit.instantiationFile(top)));
        // Every generated Verilog file states its license, and the Verilog the version the manifest gives.
        String verilog = Files.readString(out.resolve(top + ".v"));
        String head = verilog.substring(0, verilog.indexOf("module "));
        assertTrue(head.contains("// SPDX-License-Identifier: Apache-2.0"), "SPDX line in the header: " + head);
        assertTrue(head.contains("uehw " + m.get("generatorVersion").asText()), "the generator version in the header: " + head);
        assertTrue(inst.startsWith("// SPDX-License-Identifier: Apache-2.0\n"), "SPDX line in the instantiation template");
        for (JsonNode p : m.get("ports")) {
            String name = p.get("name").asText();
            int width = p.get("width").asInt();
            assertTrue(inst.contains("." + name + " "), name + " connected in the template");
            String declared = "(?s).*wire\\s+" + (width > 1 ? "\\[" + (width - 1) + ":0\\]\\s+" : "") + name + ";.*";
            assertTrue(inst.matches(declared), name + " declared " + width + " bits wide");
        }
        Files.writeString(out.resolve("inst_check.v"), "module inst_check;\n" + inst + "endmodule\n");
        assertEquals(0, tool(out, "iverilog", "-g2012", "-o", "inst_check.vvp", "-s", "inst_check", "inst_check.v", top + ".v"),
                "the template compiles against the Verilog (iverilog)");

        // The ports CSV: every port of the top, in its order, with its direction, width and a meaning.
        List<String> csv = Files.readAllLines(out.resolve(IntegrationKit.portsFile(top)));
        assertEquals("name,direction,width,clock,meaning", csv.get(0));
        assertEquals(m.get("ports").size() + 1, csv.size(), "one line a port");
        for (int i = 0; i < m.get("ports").size(); i++) {
            JsonNode p = m.get("ports").get(i);
            String[] cells = csv.get(i + 1).split(",", 5);
            assertEquals(List.of(p.get("name").asText(), p.get("direction").asText(), p.get("width").asText()),
                    List.of(cells[0], cells[1], cells[2]), "ports CSV line " + (i + 2));
            assertEquals(p.get("name").asText().equals("clk") ? "" : "clk", cells[3]);
            assertTrue(cells[4].length() > 3, "a meaning for " + cells[0]);
        }
        // each port its own meaning, not its group's text copied (the CSR port by AMBA signal names)
        Map<String, String> seen = new HashMap<>();
        for (String line : csv.subList(1, csv.size())) {
            String[] cells = line.split(",", 5);
            String before = seen.put(cells[4], cells[0]);
            assertTrue(before == null, cells[0] + " and " + before + " have the same meaning: " + cells[4]);
        }
        assertTrue(csv.stream().anyMatch(l -> l.startsWith("ctrl_awaddr,") && l.contains("AWADDR")), "ctrl_awaddr is AWADDR");

        JsonNode files = m.get("files");
        assertTrue(files.has(top + ".v") && files.has(IntegrationKit.waiversFile(top)) && files.has(top + "_regs.svh")
                && files.has(IntegrationKit.portsFile(top)));
        for (var it = files.fields(); it.hasNext(); ) {
            var e = it.next();
            assertEquals(IntegrationKit.sha256(Files.readAllBytes(out.resolve(e.getKey()))), e.getValue().asText(), e.getKey());
        }
    }

    /**
     * docs/integration.md: a user's SpinalHDL component instantiating REPS elaborates to Verilog
     * (with the block inside and its register map beside), and the page quotes the source exactly.
     */
    @Tag("rtl")
    @Test
    void spinalLibraryExampleElaboratesAndIsTheOneDocumented() throws Exception {
        Path out = tmp.resolve("example");
        uehw.hw.examples.NicSendPathExample.main(new String[] {out.toString()});
        String verilog = Files.readString(out.resolve("NicSendPathExample.v"));
        assertTrue(verilog.contains("module NicSendPathExample ("), "the user's top");
        assertTrue(verilog.matches("(?s).*\\n\\s*uehw_reps\\s+reps\\s*\\(.*"), "REPS instantiated in it");
        assertTrue(Files.readString(out.resolve("uehw_reps_regs.h")).contains("REPS_INFO"));
        assertEquals(0, tool(out, "verilator", "--lint-only", "-Wno-DECLFILENAME", "NicSendPathExample.v"),
                "the example's Verilog lints (the block's own waivers are not needed at the default warnings)");

        String source = Files.readString(Path.of("hw/src/uehw/hw/examples/NicSendPathExample.scala"));
        String page = Files.readString(Path.of("docs/integration.md"));
        int start = page.indexOf("```scala\n");
        assertTrue(start >= 0, "docs/integration.md has the scala block");
        int end = page.indexOf("```", start + 9);
        assertEquals(source, page.substring(start + 9, end), "docs/integration.md quotes NicSendPathExample.scala exactly");
    }

    /**
     * Each block page's port table names exactly the ports of the generated tops (the default
     * configuration and the lint variants, whose options may add ports): every port of a manifest is
     * in the table, every name in the table is a port of one (the table's shorthand is
     * uehw.cli.PortTable's).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("blockPages")
    void portTableOfTheBlockPageMatchesTheManifest(String block, String page) throws Exception {
        List<String> ports = new ArrayList<>();
        generateDefault(block, tmp.resolve(block)).get("ports").forEach(p -> ports.add(p.get("name").asText()));
        for (var variant : Blocks.find(block).lintVariantsJava()) {
            List<String> args = new ArrayList<>(List.of("generate", block));
            variant.paramsJava().forEach((k, v) -> args.addAll(List.of("--" + k, v)));
            Path out = tmp.resolve(block + "-" + variant.name());
            args.addAll(List.of("--out", out.toString()));
            assertEquals(0, run(args.toArray(String[]::new)), "generate " + args);
            new ObjectMapper().readTree(out.resolve("uehw_" + block.replace('-', '_') + ".manifest.json").toFile()).get("ports")
                    .forEach(p -> {
                        if (!ports.contains(p.get("name").asText())) {
                            ports.add(p.get("name").asText());
                        }
                    });
        }

        List<String> names = new ArrayList<>();
        PortTable.rows(Files.readString(Path.of("docs", page))).forEach(r -> names.addAll(r.names()));
        assertTrue(!names.isEmpty(), page + " has a port table");
        for (String port : ports) {
            assertTrue(names.stream().anyMatch(n -> PortTable.matches(n, port)), page + " lacks port " + port);
        }
        for (String name : names) {
            assertTrue(ports.stream().anyMatch(p -> PortTable.matches(name, p)), page + " names " + name + ", not a port of the top");
        }
    }

    static Stream<Arguments> blockPages() {
        return defaultBlocks().map(b -> Arguments.of(b, PortTable.page(b)));
    }

    /** Every block of the registry. */
    static Stream<String> defaultBlocks() {
        return Blocks.allJava().stream().map(BlockSpec::name);
    }

    /**
     * Each block page's parameter table is the registry's (the ParamSpecs the CLI's options and the
     * checks come from): `make doc-tables` rewrites it. hwgen list --param-table prints the same.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("blockPages")
    void parameterTableOfTheBlockPageIsTheRegistrys(String block, String page) throws Exception {
        String table = ParamTable.ofPage(Files.readString(Path.of("docs", page)));
        assertTrue(table != null, page + " has no parameter table (" + ParamTable.HEADER + ")");
        assertEquals(ParamTable.markdown(Blocks.find(block)), table, page + "'s parameter table: run make doc-tables");
        StringWriter printed = new StringWriter();
        assertEquals(0, Hwgen.commandLine().setOut(new PrintWriter(printed)).execute("list", "--param-table", block));
        assertEquals(table, printed.toString());
    }

    /** The registry's descriptors are consistent: one default point, sweep and variant parameters the block has. */
    @Test
    void everyBlockDescriptorGeneratesItsSweepAndVariants() {
        List<String> names = new ArrayList<>();
        for (BlockSpec b : Blocks.allJava()) {
            names.add(b.name());
            assertEquals(1, b.sweepJava().stream().filter(SweepPoint::isDefault).count(), b.name() + ": one default point");
            for (SweepPoint p : b.sweepJava()) {
                b.check(p.paramsJava()); // throws naming the parameter if a point is not a valid generation
            }
            for (LintVariant v : b.lintVariantsJava()) {
                b.check(v.paramsJava());
            }
            assertTrue(Files.exists(Path.of("docs", b.docPage())), b.name() + ": its page docs/" + b.docPage());
        }
        assertEquals(names.size(), new java.util.HashSet<>(names).size(), "block names are unique: " + names);
    }

    /** Generates the block at its defaults into out; its manifest. */
    private JsonNode generateDefault(String block, Path out) throws Exception {
        assertEquals(0, run("generate", block, "--out", out.toString()));
        return new ObjectMapper().readTree(out.resolve("uehw_" + block.replace('-', '_') + ".manifest.json").toFile());
    }

    private static int tool(Path dir, String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        int rc = p.waitFor();
        if (rc != 0) {
            System.out.println(String.join(" ", cmd) + " in " + dir + ":\n" + output);
        }
        return rc;
    }
}
