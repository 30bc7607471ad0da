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

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import uehw.hw.Blocks;
import uehw.report.Reports;
import uehw.report.ToolOutput;

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
    @Test
    void parsesNextpnrReport() throws IOException {
        ToolOutput.PnrResult r = ToolOutput.nextpnrReport(fixture("ref-acc32.nextpnr.report.json"), "clk");
        assertTrue(r.fits());
        assertEquals(157.48, r.fmaxMhz(), 0.01);
        assertEquals(273, r.utilisation().get("ICESTORM_LC")[0]);
        assertEquals(7680, r.utilisation().get("ICESTORM_LC")[1]);
    }

    /** nextpnr-ice40 0.4 log of REPS with 1024 connections, which needs more block RAM than an HX8K has. */
    @Test
    void parsesNextpnrLogOfADesignThatDoesNotFit() throws IOException {
        ToolOutput.PnrResult r = ToolOutput.nextpnrLog(fixture("reps-n1024.nextpnr.nofit.log"));
        assertFalse(r.fits());
        int[] ram = r.utilisation().get("ICESTORM_RAM");
        assertTrue(ram[0] > ram[1], "RAM used " + ram[0] + " of " + ram[1]);
    }

    /**
     * The deepest-path walk on a hand-made netlist: FF -> LUT a -> LUT b -> LUT c -> FF, with a
     * one-LUT side branch; the path is the three named nets in order, 3 levels.
     */
    @Test
    void deepestPathFollowsTheLongestChain() throws Exception {
        String lut = "{\"type\": \"LUT2\", \"port_directions\": {\"I0\": \"input\", \"I1\": \"input\", \"O\": \"output\"},"
                + " \"connections\": {\"I0\": [%d], \"I1\": [%d], \"O\": [%d]}}";
        String ff = "{\"type\": \"FDRE\", \"port_directions\": {\"D\": \"input\", \"Q\": \"output\"},"
                + " \"connections\": {\"D\": [%d], \"Q\": [%d]}}";
        String json = "{\"modules\": {\"top\": {\"cells\": {"
                + "\"q\": " + String.format(ff, 5, 2) + ", "
                + "\"la\": " + String.format(lut, 2, 2, 3) + ", "
                + "\"lb\": " + String.format(lut, 3, 2, 4) + ", "
                + "\"lc\": " + String.format(lut, 4, 3, 5) + ", "
                + "\"side\": " + String.format(lut, 2, 2, 6) + ", "
                + "\"q2\": " + String.format(ff, 6, 7)
                + "}, \"netnames\": {\"a\": {\"bits\": [3]}, \"b\": {\"bits\": [4]}, \"c\": {\"bits\": [5]},"
                + " \"$auto\": {\"bits\": [6]}}}}}";
        ToolOutput.DeepestPath p = ToolOutput.xilinxDeepestPath(json, "top");
        assertEquals(3, p.levels());
        assertEquals(java.util.List.of("a", "b", "c"), p.nets());
    }

    /** The reference and one small REPS configuration through Yosys and nextpnr, to JSON and Markdown. */
    @Test
    void smallReportEndToEnd() throws Exception {
        Reports.checkTools();
        Reports reports = new Reports(tmp, System.out);
        var values = Blocks.reps().check(Map.of("mode", "ops", "connections", "2"));
        Map<String, Object> row = reports.report(Blocks.reps(), "ops N=2", values);
        @SuppressWarnings("unchecked")
        Map<String, Object> ref = (Map<String, Object>) reports.reference().get("xcup");
        // 32-bit add: one LUT2 level feeding a chain of 8 CARRY4 (32 / 4 bits).
        assertEquals(9, ref.get("logicLevels"));
        assertTrue(ref.containsKey("deepestPath"));
        @SuppressWarnings("unchecked")
        Map<String, Object> ice = (Map<String, Object>) row.get("ice40");
        assertEquals(Boolean.TRUE, ice.get("fits"));
        assertTrue((double) ice.get("fmaxMhz") > 0);
        assertTrue(ice.containsKey("fmaxRatioToReference"));
        reports.writeBlock("reps", List.of(row));
        assertTrue(Files.readString(tmp.resolve("reps.json")).contains("\"ops N=2\""));
        String md = reports.summary(Map.of("reps", List.of(row)));
        assertTrue(md.contains("| ops N=2 |"), md);
    }
}
