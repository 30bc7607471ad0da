package uehw.cli;

import java.io.File;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import uehw.sim.net.FatTreeIncast;

/** hwgen experiment: the network experiments on the packet-level simulator (uehw.sim.net.Network). */
@Command(name = "experiment", mixinStandardHelpOptions = true,
        description = "Run a network experiment on the packet-level simulator; CSVs and PNG/SVG plots into --out.",
        subcommands = {ExperimentCommand.FatTreeIncastCommand.class})
final class ExperimentCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        picocli.CommandLine.usage(this, System.out);
        return 2;
    }

    @Command(name = "fat-tree-incast", mixinStandardHelpOptions = true,
            description = "The SMaRTT authors' N:1 incasts into host 127 of the k=8 fat tree at 800 Gb/s (docs/network-simulator.md).")
    static final class FatTreeIncastCommand implements Callable<Integer> {
        @Option(names = "--senders", split = ",", defaultValue = "2,8,32",
                description = "incast degrees, 1..127 [default: ${DEFAULT-VALUE}]")
        int[] senders;

        @Option(names = "--seed", defaultValue = "1", description = "seed of the REPS draws [default: ${DEFAULT-VALUE}]")
        long seed;

        @Option(names = {"--out", "-o"}, defaultValue = "build/experiments/fat-tree-incast",
                description = "output folder [default: ${DEFAULT-VALUE}]")
        File out;

        @Override
        public Integer call() throws Exception {
            for (int n : senders) {
                if (n < 1 || n > FatTreeIncast.RECEIVER) {
                    System.err.println("hwgen: parameter 'senders' = " + n + " is not allowed: must be in 1.." + FatTreeIncast.RECEIVER);
                    return Hwgen.EXIT_BAD_PARAMETER;
                }
            }
            for (FatTreeIncast.Result r : FatTreeIncast.experiment(senders, seed, out.toPath())) {
                System.out.print(r.table());
            }
            System.out.println("hwgen: CSVs and plots written to " + out);
            return 0;
        }
    }
}
