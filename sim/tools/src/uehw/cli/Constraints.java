// SPDX-License-Identifier: Apache-2.0
package uehw.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.OptionalDouble;

/**
 * Constraints for a generated top (constraints/README.md). Every top has one clock port `clk`, a
 * synchronous active-high `reset`, and every register on clk. Inside a design the clock comes from
 * the design's own clock constraint, so the Vivado file is scoped to the block (`read_xdc -ref`) and
 * creates no clock; the out-of-context files create the clock on the block's port for synthesising
 * the block alone.
 */
public final class Constraints {
    private Constraints() {
    }

    public static String scopedXdc(String fileBase) {
        return fileBase + ".xdc";
    }

    public static String outOfContextXdc(String fileBase) {
        return fileBase + "_ooc.xdc";
    }

    public static void write(String fileBase, String top, double clockMhz, Path dir) throws IOException {
        String period = String.format(Locale.ROOT, "%.3f", 1000.0 / clockMhz);
        String mhz = String.format(Locale.ROOT, "%.3f", clockMhz);
        String clock = "create_clock -name clk -period " + period + " [get_ports clk]\n";
        Files.writeString(dir.resolve(scopedXdc(fileBase)), "# SPDX-License-Identifier: Apache-2.0\n"
                + "# " + top + ": Vivado constraints scoped to the block, for use inside your design:\n"
                + "#   read_xdc -ref " + top + " " + scopedXdc(fileBase) + "\n"
                + "#   (or: set_property SCOPED_TO_REF " + top + " [get_files " + scopedXdc(fileBase) + "])\n"
                + "#\n"
                + "# Clock: the block's only clock is its port clk, driven by a clock your design already\n"
                + "# constrains (create_clock on a board pin, or an MMCM/PLL output Vivado derives). It reaches\n"
                + "# clk through the hierarchy, so nothing is created here. Generated for " + mhz + " MHz: check\n"
                + "# that the clock at the instance's pin is not faster, e.g. for an instance u_block:\n"
                + "#   get_property PERIOD [get_clocks -of_objects [get_pins u_block/clk]]   ;# >= " + period + "\n"
                + "# Paths that need no constraint: every register of the block is on clk (no clock crossing,\n"
                + "# no false path, no multicycle path inside it). reset is synchronous to clk and timed like any\n"
                + "# data input: drive it from a register on clk (through a reset synchroniser when its source is\n"
                + "# asynchronous). The CSR port (ctrl_*, AXI4-Lite) and the streams are on clk as well: put a\n"
                + "# clock-domain crossing in your design, outside the block, when a master runs on another clock.\n");
        Files.writeString(dir.resolve(outOfContextXdc(fileBase)), "# SPDX-License-Identifier: Apache-2.0\n"
                + "# " + top + " synthesised alone (out of context): the clock on the block's port, " + mhz + " MHz.\n"
                + "#   read_xdc -mode out_of_context " + outOfContextXdc(fileBase) + "\n"
                + clock);
        Files.writeString(dir.resolve(fileBase + ".sdc"), "# SPDX-License-Identifier: Apache-2.0\n"
                + "# " + top + " synthesised alone (out of context): " + mhz + " MHz. Inside a design, your design's\n"
                + "# clock reaches clk; see " + scopedXdc(fileBase) + " for the paths that need no constraint.\n"
                + clock);
        Files.writeString(dir.resolve(fileBase + ".ice40.py"),
                "# SPDX-License-Identifier: Apache-2.0\n# nextpnr-ice40 --pre-pack " + fileBase + ".ice40.py\nctx.addClock(\"clk\", " + mhz + ")\n");
    }

    /**
     * The critical path docs/resources.md reports for the block at its default parameters, at the
     * 0.40 ns LUT delay: the larger of "as mapped" and "Vivado-packed". Empty when the page has no row.
     */
    public static OptionalDouble reportedDefaultNs(String block) {
        try (InputStream in = Constraints.class.getResourceAsStream("/docs/resources.md")) {
            if (in == null) {
                return OptionalDouble.empty();
            }
            String page = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            int section = page.indexOf("\n## " + block + "\n");
            if (section < 0) {
                return OptionalDouble.empty();
            }
            int end = page.indexOf("\n## ", section + 4);
            for (String line : page.substring(section, end < 0 ? page.length() : end).split("\n")) {
                if (!line.startsWith("| ") || !line.contains("(default)")) {
                    continue;
                }
                String[] cells = line.split("\\|");
                double worst = -1;
                for (String cell : cells) {
                    String[] triple = cell.trim().split(" / ");
                    if (triple.length == 3 && triple[1].matches("\\d+\\.\\d+")) {
                        worst = Math.max(worst, Double.parseDouble(triple[1]));
                    }
                }
                return worst < 0 ? OptionalDouble.empty() : OptionalDouble.of(worst);
            }
            return OptionalDouble.empty();
        } catch (IOException e) {
            return OptionalDouble.empty();
        }
    }

    /**
     * A warning when the clock asked for is faster than the block's reported critical path (or
     * leaves it less than the 0.4 ns margin), or null when it fits.
     */
    public static String clockWarning(String block, double clockMhz, boolean defaultParameters) {
        OptionalDouble ns = reportedDefaultNs(block);
        if (ns.isEmpty()) {
            return null;
        }
        double period = 1000.0 / clockMhz;
        double path = ns.getAsDouble();
        String at = String.format(Locale.ROOT, "docs/resources.md reports %s%s at %.2f ns (0.40 ns LUT delay, the larger of "
                + "as mapped and Vivado-packed)", block, defaultParameters ? "" : " at its default parameters", path);
        String check = "run `hwgen report " + block + " ...` with these parameters for their figure";
        if (path > period) {
            return String.format(Locale.ROOT, "hwgen: warning: --clock-mhz %s asks for %.3f ns, but %s: it does not fit; %s",
                    trim(clockMhz), period, at, check);
        }
        if (path > period - 0.4) {
            return String.format(Locale.ROOT, "hwgen: warning: --clock-mhz %s asks for %.3f ns and %s: it fits without the "
                    + "0.4 ns margin the project asks against mapping noise; %s", trim(clockMhz), period, at, check);
        }
        return null;
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
    }
}
