// SPDX-License-Identifier: Apache-2.0
package uehw.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import uehw.hw.PortInfo;

/**
 * The port table of a block's doc page (`| port | dir | width | meaning |`), read so that a
 * generated folder can carry a table of the exact ports at its parameters. A row names its ports
 * in backticks with a shorthand: {@code a_{x,y}}, {@code a_x/y} (siblings of the last name part),
 * {@code _y} after {@code a_x} (a sibling), {@code a_*} and a name that stops where a port's name
 * goes on with {@code _} (a prefix of several ports).
 */
public final class PortTable {
    private PortTable() {
    }

    /** One row: the port names (or prefixes) it gives and its meaning. */
    public record Row(List<String> names, String meaning) {
    }

    private static final Map<String, String> PAGES = Map.of("reps", "reps.md", "smartt", "smartt.md",
            "trim-queue", "trimming-queue.md", "dart-dft", "dart-cam.md", "dart-dasr", "dart-dasr.md", "dasr-limiter", "dasr-limiter.md", "swift", "swift.md");

    /** The doc page (under docs/) of a block. */
    public static String page(String block) {
        String p = PAGES.get(block);
        if (p == null) {
            throw new IllegalArgumentException("no doc page for block " + block);
        }
        return p;
    }

    /** The rows of the page's port table. */
    public static List<Row> rows(String page) {
        int table = page.indexOf("| port | dir |");
        if (table < 0) {
            throw new IllegalArgumentException("the page has no port table");
        }
        List<Row> rows = new ArrayList<>();
        for (String line : page.substring(table).split("\n")) {
            if (!line.startsWith("|")) {
                break;
            }
            String[] cells = line.split("\\|");
            if (cells.length < 5 || cells[1].contains("---") || cells[1].trim().equals("port")) {
                continue;
            }
            List<String> names = new ArrayList<>();
            Matcher tick = Pattern.compile("`([^`]+)`").matcher(cells[1]);
            String previous = null;
            while (tick.find()) {
                for (String name : expand(tick.group(1), previous)) {
                    names.add(name);
                    previous = name;
                }
            }
            String meaning = String.join("|", java.util.Arrays.copyOfRange(cells, 4, cells.length)).trim();
            rows.add(new Row(names, meaning.replace("`", "")));
        }
        return rows;
    }

    static List<String> expand(String token, String previous) {
        if (token.startsWith("_") && previous != null) {
            token = previous.substring(0, previous.lastIndexOf('_')) + token;
        }
        List<String> r = new ArrayList<>();
        int brace = token.indexOf('{');
        if (brace >= 0) {
            for (String alt : token.substring(brace + 1, token.indexOf('}')).split(",")) {
                r.add(token.substring(0, brace) + alt.trim());
            }
            return r;
        }
        String[] slash = token.split("/");
        String base = slash[0].substring(0, slash[0].lastIndexOf('_') + 1);
        r.add(slash[0]);
        for (int i = 1; i < slash.length; i++) {
            r.add(base + slash[i]);
        }
        return r;
    }

    /** Whether a name of the table (a port, a prefix or a `*` pattern) gives the port. */
    public static boolean matches(String docName, String port) {
        if (docName.endsWith("*")) {
            return port.startsWith(docName.substring(0, docName.length() - 1));
        }
        return port.equals(docName) || port.startsWith(docName + "_");
    }

    /** Each port's meaning: that of the first row naming it, or null when no row does. */
    public static Map<String, String> meanings(List<Row> rows, List<PortInfo> ports) {
        Map<String, String> r = new LinkedHashMap<>();
        for (PortInfo p : ports) {
            r.put(p.name(), rows.stream().filter(row -> row.names().stream().anyMatch(n -> matches(n, p.name())))
                    .map(Row::meaning).findFirst().orElse(null));
        }
        return r;
    }

    /** CSV: name, direction, width, clock, meaning; one line a port, in the top's order. */
    public static String csv(List<Row> rows, List<PortInfo> ports) {
        Map<String, String> meaning = meanings(rows, ports);
        StringBuilder sb = new StringBuilder("name,direction,width,clock,meaning\n");
        for (PortInfo p : ports) {
            String m = p.name().equals("clk") ? "clock, rising edge" : p.name().equals("reset") ? "synchronous reset, active high"
                    : meaning.get(p.name());
            if (m == null) {
                throw new IllegalStateException("the doc page's port table lacks port " + p.name());
            }
            sb.append(p.name()).append(',').append(p.direction()).append(',').append(p.width()).append(',')
              .append(p.name().equals("clk") ? "" : "clk").append(",\"").append(m.replace("\"", "\"\"")).append("\"\n");
        }
        return sb.toString();
    }
}
