// SPDX-License-Identifier: Apache-2.0
package uehw.report;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** Parsers of real tool output: Yosys `stat`, nextpnr-ice40 `--report` JSON and log. */
public final class ToolOutput {
    private ToolOutput() {
    }

    private static final Pattern STAT_CELL = Pattern.compile("^\\s+(\\S+)\\s+(\\d+)\\s*$");
    private static final Pattern UTIL_LINE = Pattern.compile("Info:\\s+(\\w+):\\s+(\\d+)/\\s*(\\d+)\\s+(\\d+)%");
    private static final Pattern FMAX_LINE = Pattern.compile("Max frequency for clock\\s+'([^']+)': ([0-9.]+) MHz");

    /** Cell type -> count from the last "Number of cells" block of Yosys `stat`. */
    public static Map<String, Long> yosysCells(String stat) {
        Map<String, Long> cells = new TreeMap<>();
        boolean inCells = false;
        for (String line : stat.split("\\R")) {
            if (line.contains("Number of cells:")) {
                cells.clear();
                inCells = true;
                continue;
            }
            if (inCells) {
                Matcher m = STAT_CELL.matcher(line);
                if (m.matches()) {
                    cells.merge(m.group(1), Long.parseLong(m.group(2)), Long::sum);
                } else if (!line.isBlank()) {
                    inCells = false;
                }
            }
        }
        return cells;
    }

    /** UltraScale+ resource classes from Yosys synth_xilinx cell counts. */
    public static Map<String, Double> xilinxResources(Map<String, Long> cells) {
        Map<String, Double> r = new LinkedHashMap<>();
        r.put("LUT", sum(cells, "LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6", "LUT6_2"));
        r.put("LUTRAM", sumPrefix(cells, "RAM32", "RAM64", "RAM128", "RAM256", "SRL"));
        r.put("FF", sumPrefix(cells, "FDRE", "FDSE", "FDCE", "FDPE"));
        r.put("BRAM36", sum(cells, "RAMB36E2") + 0.5 * sum(cells, "RAMB18E2"));
        r.put("URAM", sum(cells, "URAM288"));
        r.put("DSP", sum(cells, "DSP48E2"));
        r.put("CARRY", sum(cells, "CARRY4", "CARRY8"));
        return r;
    }

    private static double sum(Map<String, Long> cells, String... names) {
        double s = 0;
        for (String n : names) {
            s += cells.getOrDefault(n, 0L);
        }
        return s;
    }

    private static double sumPrefix(Map<String, Long> cells, String... prefixes) {
        double s = 0;
        for (Map.Entry<String, Long> e : cells.entrySet()) {
            for (String p : prefixes) {
                if (e.getKey().startsWith(p)) {
                    s += e.getValue();
                }
            }
        }
        return s;
    }

    /** Result of an iCE40 place and route. */
    public record PnrResult(boolean fits, double fmaxMhz, Map<String, int[]> utilisation) {
    }

    /** From nextpnr-ice40's --report JSON (present when it routed). */
    public static PnrResult nextpnrReport(String json, String clock) throws java.io.IOException {
        JsonNode root = new ObjectMapper().readTree(json);
        Map<String, int[]> util = new LinkedHashMap<>();
        root.path("utilization").fields().forEachRemaining(e ->
                util.put(e.getKey(), new int[] {e.getValue().path("used").asInt(), e.getValue().path("available").asInt()}));
        double fmax = -1;
        var it = root.path("fmax").fields();
        while (it.hasNext()) {
            var e = it.next();
            if (e.getKey().contains(clock)) {
                fmax = e.getValue().path("achieved").asDouble();
            }
        }
        return new PnrResult(true, fmax, util);
    }

    /** From the nextpnr-ice40 log, for a run that failed (e.g. did not fit) and wrote no report. */
    public static PnrResult nextpnrLog(String log) {
        Map<String, int[]> util = new LinkedHashMap<>();
        Matcher m = UTIL_LINE.matcher(log);
        while (m.find()) {
            util.put(m.group(1), new int[] {Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3))});
        }
        double fmax = -1;
        Matcher f = FMAX_LINE.matcher(log);
        while (f.find()) {
            fmax = Double.parseDouble(f.group(2));
        }
        boolean fits = util.values().stream().allMatch(u -> u[0] <= u[1]) && !log.contains("ERROR");
        return new PnrResult(fits, fmax, util);
    }
}
