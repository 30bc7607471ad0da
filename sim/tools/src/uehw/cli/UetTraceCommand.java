// SPDX-License-Identifier: Apache-2.0
package uehw.cli;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.zip.GZIPOutputStream;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import uehw.model.nscc.NsccReferenceTrace;

/**
 * Reads the UEC reference simulator's -debug output into the per-flow NSCC event CSV the replay
 * tests read (sim/tools/uet-htsim/make-nscc-traces.sh runs it on each scenario).
 */
@Command(name = "uet-trace", mixinStandardHelpOptions = true,
        description = "Extract each flow's NSCC events from a uet-htsim -debug log printed at full precision "
                + "(sim/tools/uet-htsim/full_precision.cpp) into a CSV (gzipped when OUT ends in .gz).")
final class UetTraceCommand implements Callable<Integer> {
    @Option(names = "--log", required = true, description = "htsim_uec -debug output")
    File log;

    @Option(names = "--out", required = true, description = "the CSV to write")
    File out;

    @Option(names = "--provenance", description = "a comment line for the CSV's head (repeatable): the command, the commit")
    List<String> provenance = List.of();

    @Override
    public Integer call() throws IOException {
        NsccReferenceTrace t;
        try (BufferedReader in = Files.newBufferedReader(log.toPath(), StandardCharsets.UTF_8)) {
            t = NsccReferenceTrace.fromDebugLog(in);
        }
        if (t.inFlightMismatches != 0) {
            System.err.println("uet-trace: " + t.inFlightMismatches + " sends printed bytes in flight the trace "
                    + "cannot account for (an unprinted change): the NACK events' in_flight would be wrong");
            return 1;
        }
        var stream = Files.newOutputStream(out.toPath());
        try (PrintWriter w = new PrintWriter(new OutputStreamWriter(
                out.getName().endsWith(".gz") ? new GZIPOutputStream(stream) : stream, StandardCharsets.UTF_8))) {
            t.write(w, provenance);
        }
        System.out.println("uet-trace: " + t.events.size() + " events of " + t.flows.size() + " flows -> " + out);
        return 0;
    }
}
