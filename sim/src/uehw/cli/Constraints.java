// SPDX-License-Identifier: Apache-2.0
package uehw.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Clock constraints for a generated top: Vivado XDC, generic SDC, and a nextpnr-ice40
 * pre-pack script. Every top has one clock port `clk` and a synchronous active-high `reset`.
 */
public final class Constraints {
    private Constraints() {
    }

    public static void write(String top, double clockMhz, Path dir) throws IOException {
        String period = String.format(Locale.ROOT, "%.3f", 1000.0 / clockMhz);
        String mhz = String.format(Locale.ROOT, "%.3f", clockMhz);
        String sdc = "# " + top + ": " + mhz + " MHz\n"
                + "create_clock -name clk -period " + period + " [get_ports clk]\n"
                + "# reset is synchronous to clk; its input is timed like any other input.\n";
        Files.writeString(dir.resolve(top + ".sdc"), sdc);
        Files.writeString(dir.resolve(top + ".xdc"), "# Vivado XDC\n" + sdc
                + "# Pin and I/O standard assignments are board-specific and belong in the board's XDC.\n");
        Files.writeString(dir.resolve(top + ".ice40.py"),
                "# nextpnr-ice40 --pre-pack " + top + ".ice40.py\nctx.addClock(\"clk\", " + mhz + ")\n");
    }
}
