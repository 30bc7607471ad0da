// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import uehw.hw.Blocks;
import uehw.report.Reports;
import uehw.report.ToolOutput;
import uehw.report.XilinxTiming;

/** Report parsers on real tool output, and one small report end to end with the real tools. */
class ReportsTest {
    @TempDir
    Path tmp;

    private static String fixture(String name) throws IOException {
        try (InputStream in = ReportsTest.class.getResourceAsStream("/reports/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** Yosys 0.23 synth_xilinx -family xcup of the 32-bit accumulator wrapped by Rtl.ffIo. */
    /**
     * hwgen report from the jar alone: the jar carries the pinned YoWASP package (its version the one
     * YowaspTool installs into the user cache), and a missing YoWASP names the install command.
     */
    @Tag("tools")
    @Test
    void theJarCarriesThePinnedYowaspPackage() throws IOException {
        String pinned = Files.readString(Path.of("sim/tools/yowasp/package.json"));
        assertTrue(pinned.contains("\"@yowasp/yosys\": \"" + uehw.report.YowaspTool.VERSION + "\""), pinned);
        for (String f : new String[] {"package.json", "package-lock.json", "yosys.mjs"}) {
            try (InputStream in = ReportsTest.class.getResourceAsStream("/yowasp/" + f)) {
                assertTrue(in != null, "/yowasp/" + f + " on the class path");
                assertEquals(Files.readString(Path.of("sim/tools/yowasp", f)), new String(in.readAllBytes(), StandardCharsets.UTF_8), f);
            }
        }
        assertTrue(uehw.report.YowaspTool.candidates().contains(uehw.report.YowaspTool.userCache().resolve("yosys.mjs")));
        assertTrue(uehw.report.YowaspTool.missingMessage().contains("--install-yowasp"));
    }

    @Tag("tools")
    @Test
    void parsesYosysStat() throws IOException {
        Map<String, Long> cells = ToolOutput.yosysCells(fixture("ref-acc32.xcup.stat"));
        assertEquals(32L, cells.get("LUT2"));
        assertEquals(8L, cells.get("CARRY4"));
        Map<String, Double> r = ToolOutput.xilinxResources(cells);
        assertEquals(32.0, r.get("LUT"));
        assertEquals(192.0, r.get("FF"));
        assertEquals(8.0, r.get("CARRY"));
        assertEquals(32.0, r.get("LUTRAM"), "SRL16E shift registers count as LUTRAM");
        assertEquals(0.0, r.get("BRAM36"));
    }

    /** nextpnr-ice40 0.4 --report of the same accumulator on an HX8K (fmax and utilization keys kept). */
    @Tag("tools")
    @Test
    void parsesNextpnrReport() throws IOException {
        ToolOutput.PnrResult r = ToolOutput.nextpnrReport(fixture("ref-acc32.nextpnr.report.json"), "clk");
        assertTrue(r.fits());
        assertEquals(157.48, r.fmaxMhz(), 0.01);
        assertEquals(273, r.utilisation().get("ICESTORM_LC")[0]);
        assertEquals(7680, r.utilisation().get("ICESTORM_LC")[1]);
    }

    /** nextpnr-ice40 0.4 log of REPS with 1024 connections, which needs more block RAM than an HX8K has. */
    @Tag("tools")
    @Test
    void parsesNextpnrLogOfADesignThatDoesNotFit() throws IOException {
        ToolOutput.PnrResult r = ToolOutput.nextpnrLog(fixture("reps-n1024.nextpnr.nofit.log"));
        assertFalse(r.fits());
        int[] ram = r.utilisation().get("ICESTORM_RAM");
        assertTrue(ram[0] > ram[1], "RAM used " + ram[0] + " of " + ram[1]);
    }

    private static final String LUT2 = "{\"type\": \"LUT2\", \"port_directions\": {\"I0\": \"input\", \"I1\": \"input\", "
            + "\"O\": \"output\"}, \"connections\": {\"I0\": [%d], \"I1\": [%d], \"O\": [%d]}}";
    private static final String FDRE = "{\"type\": \"FDRE\", \"port_directions\": {\"C\": \"input\", \"CE\": \"input\", "
            + "\"D\": \"input\", \"R\": \"input\", \"Q\": \"output\"}, \"connections\": {\"C\": [2], \"CE\": [\"1\"], "
            + "\"D\": [%d], \"R\": [\"0\"], \"Q\": [%d]}}";

    /** A Yosys JSON netlist of module top with the clock on bit 2, input bit 3 and output bit 4. */
    private static String netlist(String cells) {
        return "{\"modules\": {\"top\": {\"ports\": {\"clk\": {\"direction\": \"input\", \"bits\": [2]}, "
                + "\"d\": {\"direction\": \"input\", \"bits\": [3]}, \"q\": {\"direction\": \"output\", \"bits\": [4]}}, "
                + "\"cells\": {" + cells + "}, \"netnames\": {\"start_reg\": {\"bits\": [10]}, \"end_reg\": {\"bits\": [4]}}}}}";
    }

    private XilinxTiming.Path sta(String netlist, double lut) throws Exception {
        Reports.checkTools();
        return Reports.staPath(tmp, netlist, "top", lut, XilinxTiming.outputNetNames(netlist, "top"));
    }

    /**
     * FF -> LUT2 -> LUT2 -> FF at every LUT delay of the band: clock-to-Q 0.10 + 2 LUT + setup 0.20
     * (the end register's D comes from a LUT of its slice, so no route is added).
     */
    @Tag("rtl")
    @Test
    void twoLutPathIsClockToQPlusTwoLutsPlusSetup() throws Exception {
        String n = netlist("\"s\": " + String.format(FDRE, 3, 10) + ", \"a\": " + String.format(LUT2, 10, 10, 11)
                + ", \"b\": " + String.format(LUT2, 11, 10, 12) + ", \"e\": " + String.format(FDRE, 12, 4));
        for (double lut : XilinxTiming.LUT_BANDS_NS) {
            XilinxTiming.Path p = sta(n, lut);
            assertEquals(0.10 + 2 * lut + 0.20, p.ns(), 0.0015, "LUT " + lut);
            assertEquals("start_reg", p.startNet());
            assertEquals("end_reg", p.endNet());
            assertEquals(Map.of("LUT", 2), p.cellsOnPath());
        }
    }

    /**
     * Fanout: the same LUT driving 40 flip-flops (3 doublings above 8) adds 3 x 0.10 ns to its
     * output; and a flip-flop fed straight from another flip-flop pays a route (0.40 - 0.10) on D.
     */
    @Tag("rtl")
    @Test
    void fanoutAndRoutedInputsAddDelay() throws Exception {
        StringBuilder cells = new StringBuilder("\"s\": " + String.format(FDRE, 3, 10) + ", \"a\": " + String.format(LUT2, 10, 10, 11));
        for (int i = 0; i < 40; i++) {
            cells.append(", \"e").append(i).append("\": ").append(String.format(FDRE, 11, i == 0 ? 4 : 100 + i));
        }
        assertEquals(0.10 + 0.40 + 0.30 + 0.20, sta(netlist(cells.toString()), 0.40).ns(), 0.0015);
        String direct = netlist("\"s\": " + String.format(FDRE, 3, 10) + ", \"e\": " + String.format(FDRE, 10, 4));
        assertEquals(0.10 + 0.30 + 0.20, sta(direct, 0.40).ns(), 0.0015);
    }

    private XilinxTiming.Path staPacked(String netlist, double lut) throws Exception {
        Reports.checkTools();
        return Reports.staPath(tmp, netlist, "top", lut, XilinxTiming.outputNetNames(netlist, "top"),
                XilinxTiming.Packing.VIVADO);
    }

    private static String dsp(String regs, int a, int p) {
        return "{\"type\": \"DSP48E1\", \"parameters\": {" + regs + "}, \"port_directions\": {\"CLK\": \"input\", "
                + "\"A\": \"input\", \"P\": \"output\"}, \"connections\": {\"CLK\": [2], \"A\": [" + a + "], \"P\": [" + p + "]}}";
    }

    /**
     * Vivado-packed DSP: FF -> A (no AREG) -> MREG, then P out of MREG (no PREG) -> LUT -> FF.
     * Into MREG: 0.10 + route 0.30 + 1.70; out of it: 1.60 + LUT 0.40 + setup 0.20 = 2.20, the
     * larger. With PREG packed as well the path out is 0.40 + 0.40 + 0.20.
     */
    @Tag("rtl")
    @Test
    void vivadoPackedDspIsTimedByItsRegisters() throws Exception {
        String mOnly = "\"AREG\": \"0\", \"BREG\": \"0\", \"MREG\": \"1\", \"PREG\": \"0\"";
        String n = netlist("\"s\": " + String.format(FDRE, 3, 10) + ", \"m\": " + dsp(mOnly, 10, 11)
                + ", \"a\": " + String.format(LUT2, 11, 11, 12) + ", \"e\": " + String.format(FDRE, 12, 4));
        XilinxTiming.Path p = staPacked(n, 0.40);
        assertEquals(1.60 + 0.40 + 0.20, p.ns(), 0.0015);
        assertEquals("end_reg", p.endNet());
        String mAndP = "\"AREG\": \"0\", \"BREG\": \"0\", \"MREG\": \"1\", \"PREG\": \"1\"";
        String n2 = netlist("\"s\": " + String.format(FDRE, 3, 10) + ", \"m\": " + dsp(mAndP, 10, 11)
                + ", \"a\": " + String.format(LUT2, 11, 11, 12) + ", \"e\": " + String.format(FDRE, 12, 4));
        assertEquals(0.10 + 0.30 + 1.70, staPacked(n2, 0.40).ns(), 0.0015, "now the path into MREG limits");
    }

    /**
     * A block RAM's output bit whose only load is a flip-flop: as mapped the RAM's 1.10 ns
     * clock-to-out, a route and setup (1.60) limit; Vivado-packed the flip-flop is DO_REG and the
     * path from it runs 0.33 + LUT 0.40 + setup 0.20.
     */
    @Tag("rtl")
    @Test
    void vivadoPackedBlockRamAbsorbsItsOutputRegister() throws Exception {
        String ram = "{\"type\": \"RAMB18E2\", \"parameters\": {\"DOA_REG\": \"0\", \"DOB_REG\": \"0\"}, "
                + "\"port_directions\": {\"CLKARDCLK\": \"input\", \"ADDRARDADDR\": \"input\", \"DOUTADOUT\": \"output\"}, "
                + "\"connections\": {\"CLKARDCLK\": [2], \"ADDRARDADDR\": [20], \"DOUTADOUT\": [10]}}";
        String n = netlist("\"i\": " + String.format(FDRE, 3, 20) + ", \"r\": " + ram + ", \"s\": " + String.format(FDRE, 10, 11)
                + ", \"a\": " + String.format(LUT2, 11, 11, 12) + ", \"e\": " + String.format(FDRE, 12, 4));
        assertEquals(1.10 + 0.30 + 0.20, sta(n, 0.40).ns(), 0.0015);
        assertEquals(0.33 + 0.40 + 0.20, staPacked(n, 0.40).ns(), 0.0015);
    }

    /** The reference designs, one small REPS configuration, JSON and Markdown, with the real tools. */
    @Tag("rtl")
    @Test
    void smallReportEndToEnd() throws Exception {
        Reports.checkTools();
        Reports reports = new Reports(tmp, System.out);
        var values = Blocks.reps().check(Map.of("mode", "ops", "connections", "2"));
        Map<String, Object> row = reports.report(Blocks.reps(), "ops N=2", values);
        Map<String, Map<String, Object>> refs = new java.util.HashMap<>();
        reports.references().forEach(r -> refs.put((String) r.get("label"), r));
        // 32-bit add: FF -> LUT2 -> 8 CARRY4 (S->CO, 6 x CI->CO, CI->O) -> FF of the same slice.
        assertEquals(0.10 + 0.40 + 0.20 + 7 * 0.03 + 0.20, Reports.nominalNs(refs.get("32-bit registered accumulator")), 0.0015);
        // Registers that drive only the DSP and a product that drives only registers: packed, DS923's 544 MHz.
        assertEquals(1000.0 / 544, Reports.nominalNs(refs.get("calibration: registered 27x18 multiply")), 0.0015);
        // Block RAM without its output register (1.10) -> routed D (0.30) -> setup (0.20).
        assertEquals(1.10 + 0.30 + 0.20, Reports.nominalNs(refs.get("calibration: block RAM 1024 x 32, registered read")), 0.0015);
        // Vivado-packed: A/B, M and P registers in the DSP; P (0.40) -> routed D (0.30) -> setup (0.20).
        assertEquals(0.40 + 0.30 + 0.20, Reports.packedNs(refs.get("calibration: registered 27x18 multiply")), 0.0015);
        // Vivado-packed: the read register is DO_REG (0.33 -> routed D 0.30 -> setup 0.20); the write enable's
        // setup (0.10 + route 0.30 + 0.45) now limits.
        assertEquals(0.10 + 0.30 + 0.45, Reports.packedNs(refs.get("calibration: block RAM 1024 x 32, registered read")), 0.0015);
        assertTrue(Reports.nominalNs(row) > 0);
        assertEquals(Math.max(Reports.fabricNs(row), Reports.packedNs(row)), Reports.nominalNs(row));
        @SuppressWarnings("unchecked")
        Map<String, Object> ice = (Map<String, Object>) row.get("ice40");
        assertEquals(Boolean.TRUE, ice.get("fits"));
        assertTrue((double) ice.get("fmaxMhz") > 0);
        assertTrue(ice.containsKey("fmaxRatioToReference"));
        reports.writeBlock("reps", List.of(row));
        assertTrue(Files.readString(tmp.resolve("reps.json")).contains("\"ops N=2\""));
        String md = reports.summary(Map.of("reps", List.of(row)));
        assertTrue(md.contains("| ops N=2 |"), md);
        assertTrue(md.contains("DS923"), "the delay model with its sources: " + md);
        assertTrue(md.contains("Vivado-packed"), "both packings in the summary: " + md);
    }
}
