// SPDX-License-Identifier: Apache-2.0
package uehw.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import uehw.hw.BlockSpec;
import uehw.hw.Blocks;
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

    /** The doc page (under docs/) of a block, from its descriptor. */
    public static String page(String block) {
        BlockSpec b = Blocks.find(block);
        if (b == null) {
            throw new IllegalArgumentException("no block " + block);
        }
        return b.docPage();
    }

    /**
     * The Markdown table of a page that starts at the line beginning with {@code header}, up to the
     * first line that is no table row (each line with its newline), or null.
     */
    public static String table(String page, String header) {
        int at = page.startsWith(header) ? 0 : page.indexOf("\n" + header) + 1;
        if (at == 0 && !page.startsWith(header)) {
            return null;
        }
        int end = at;
        while (end < page.length() && page.startsWith("|", end)) {
            int next = page.indexOf('\n', end);
            end = next < 0 ? page.length() : next + 1;
        }
        return page.substring(at, end);
    }

    /** The rows of the page's port table. */
    public static List<Row> rows(String page) {
        String table = table(page, "| port | dir |");
        if (table == null) {
            throw new IllegalArgumentException("the page has no port table");
        }
        List<Row> rows = new ArrayList<>();
        for (String line : table.split("\n")) {
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

    /** The AXI4-Lite CSR port's signals (AMBA AXI4-Lite names), by the suffix after `ctrl_`. */
    private static final Map<String, String> AXI_LITE = Map.ofEntries(
            Map.entry("awvalid", "AWVALID: write address valid"), Map.entry("awready", "AWREADY: write address ready"),
            Map.entry("awaddr", "AWADDR: write byte address (8 bits; registers at multiples of 4, bits 1:0 ignored)"),
            Map.entry("awprot", "AWPROT: protection type, ignored"), Map.entry("wvalid", "WVALID: write data valid"),
            Map.entry("wready", "WREADY: write data ready"), Map.entry("wdata", "WDATA: write data (32 bits)"),
            Map.entry("wstrb", "WSTRB: write byte strobes"), Map.entry("bvalid", "BVALID: write response valid"),
            Map.entry("bready", "BREADY: write response ready"), Map.entry("bresp", "BRESP: write response"),
            Map.entry("arvalid", "ARVALID: read address valid"), Map.entry("arready", "ARREADY: read address ready"),
            Map.entry("araddr", "ARADDR: read byte address (8 bits; registers at multiples of 4, bits 1:0 ignored)"),
            Map.entry("arprot", "ARPROT: protection type, ignored"), Map.entry("rvalid", "RVALID: read data valid"),
            Map.entry("rready", "RREADY: read data ready"), Map.entry("rdata", "RDATA: read data (32 bits)"),
            Map.entry("rresp", "RRESP: read response"));

    /** The AXI4-Stream signals (AMBA AXI4-Stream names), by the suffix after `s_axis_` / `m_axis_`. */
    private static final Map<String, String> AXI_STREAM = Map.of("tdata", "TDATA: the beat's bytes",
            "tkeep", "TKEEP: which bytes of the beat are valid", "tvalid", "TVALID: a beat is valid",
            "tready", "TREADY: the receiver takes the beat", "tlast", "TLAST: the frame's last beat",
            "tuser", "TUSER: per-lane side band");

    /**
     * The field tables of a page: a paragraph that starts with the group in bold and backticks-free
     * (`**io_dequeue**`) followed by a `| field | meaning |` table; group -> field -> meaning.
     */
    public static Map<String, Map<String, String>> fieldTables(String page) {
        Map<String, Map<String, String>> r = new LinkedHashMap<>();
        Matcher m = Pattern.compile("\\n\\*\\*(\\w+)\\*\\*[^\\n]*\\n\\n\\| field \\| meaning \\|\\n").matcher(page);
        while (m.find()) {
            Map<String, String> fields = new LinkedHashMap<>();
            for (String line : page.substring(m.end()).split("\n")) {
                if (!line.startsWith("|")) {
                    break;
                }
                String[] cells = line.split("\\|", 3);
                if (cells.length < 3 || cells[1].contains("---")) {
                    continue;
                }
                Matcher tick = Pattern.compile("`([^`]+)`").matcher(cells[1]);
                String meaning = cells[2].substring(0, cells[2].lastIndexOf('|') < 0 ? cells[2].length() : cells[2].lastIndexOf('|'))
                        .trim().replace("`", "");
                while (tick.find()) {
                    fields.put(tick.group(1), meaning);
                }
            }
            r.put(m.group(1), fields);
        }
        return r;
    }

    /**
     * A port's own meaning: the AXI4-Lite and AXI4-Stream signals by their AMBA names, a field of a
     * group with a field table by its row, and the valid, ready or payload field of a row that
     * names several ports by its role before the row's meaning.
     */
    static String portMeaning(String port, String rowMeaning, Map<String, Map<String, String>> fieldTables) {
        if (port.startsWith("ctrl_") && AXI_LITE.containsKey(port.substring(5))) {
            return "CSR port, AXI4-Lite " + AXI_LITE.get(port.substring(5));
        }
        for (String axis : new String[] {"s_axis_", "m_axis_"}) {
            if (port.startsWith(axis) && AXI_STREAM.containsKey(port.substring(axis.length()))) {
                return "AXI4-Stream " + AXI_STREAM.get(port.substring(axis.length())) + "; " + rowMeaning;
            }
        }
        Matcher m = Pattern.compile("(\\w+?)_(valid|ready|payload_(\\w+))").matcher(port);
        if (m.matches()) {
            Map<String, String> fields = fieldTables.get(m.group(1));
            String field = m.group(3);
            if (fields != null && field != null && fields.containsKey(field)) {
                return field + ": " + fields.get(field);
            }
            return (field != null ? field : m.group(2)) + ": " + rowMeaning;
        }
        return rowMeaning;
    }

    /** CSV: name, direction, width, clock, meaning; one line a port, in the top's order. */
    public static String csv(List<Row> rows, List<PortInfo> ports) {
        return csv(rows, ports, Map.of());
    }

    /** The same, with the page's field tables for the ports of groups that have one. */
    public static String csv(List<Row> rows, List<PortInfo> ports, Map<String, Map<String, String>> fieldTables) {
        Map<String, String> meaning = meanings(rows, ports);
        StringBuilder sb = new StringBuilder("name,direction,width,clock,meaning\n");
        for (PortInfo p : ports) {
            String m = p.name().equals("clk") ? "clock, rising edge" : p.name().equals("reset") ? "synchronous reset, active high"
                    : meaning.get(p.name());
            if (m == null) {
                throw new IllegalStateException("the doc page's port table lacks port " + p.name());
            }
            if (!p.name().equals("clk") && !p.name().equals("reset")) {
                m = portMeaning(p.name(), m, fieldTables);
            }
            sb.append(p.name()).append(',').append(p.direction()).append(',').append(p.width()).append(',')
              .append(p.name().equals("clk") ? "" : "clk").append(",\"").append(m.replace("\"", "\"\"")).append("\"\n");
        }
        return sb.toString();
    }
}
