// SPDX-License-Identifier: Apache-2.0
package uehw.cli;

import java.io.File;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.function.ToIntBiFunction;
import java.util.function.ToIntFunction;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;
import uehw.hw.BlockSpec;
import uehw.hw.Blocks;
import uehw.hw.LintVariant;
import uehw.hw.common.ParamSpec;
import uehw.hw.common.ParamValues;
import uehw.hw.common.ParameterException;

/** hwgen: list the blocks, generate one with its parameters into a folder. */
@Command(name = "hwgen", mixinStandardHelpOptions = true, versionProvider = Hwgen.Version.class,
        description = "Generates parameterised Verilog, a JSON manifest and clock constraints for the uehw blocks.",
        subcommands = {Hwgen.ListBlocks.class, ExperimentCommand.class, UetTraceCommand.class})
public final class Hwgen implements Callable<Integer> {
    /** Exit code for a rejected parameter (nothing written). */
    public static final int EXIT_BAD_PARAMETER = 2;

    @Override
    public Integer call() {
        CommandLine.usage(this, System.out);
        return 0;
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    public static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new Hwgen());
        // Block commands are built from their ParamSpecs, so they are run here rather than by annotation.
        Map<CommandSpec, ToIntFunction<ParseResult>> actions = new java.util.HashMap<>();
        Set<CommandSpec> groups = new java.util.HashSet<>();
        addGroup(cli, "generate", "Generate one block: hwgen generate <block> [--param value ...] --out DIR",
                Hwgen::generateCommand, Hwgen::runGenerate, actions, groups);
        addGroup(cli, "report",
                "Resource and timing report of one configuration: hwgen report <block> [--param value ...] [--out DIR]",
                Hwgen::reportCommand, Hwgen::runReport, actions, groups);
        cli.setExecutionStrategy(parsed -> {
            ParseResult last = parsed;
            while (last.hasSubcommand()) {
                last = last.subcommand();
            }
            ToIntFunction<ParseResult> action = actions.get(last.commandSpec());
            if (action != null) {
                return action.applyAsInt(last);
            }
            if (groups.contains(last.commandSpec())) {
                CommandLine.usage(last.commandSpec(), System.out);
                return CommandLine.printHelpIfRequested(last) ? 0 : 2;
            }
            return new CommandLine.RunLast().execute(parsed);
        });
        return cli;
    }

    /** A command `name` with one subcommand per block, each running {@code run} on its parse result. */
    private static void addGroup(CommandLine cli, String name, String description,
                                 Function<BlockSpec, CommandLine> command, ToIntBiFunction<BlockSpec, ParseResult> run,
                                 Map<CommandSpec, ToIntFunction<ParseResult>> actions, Set<CommandSpec> groups) {
        CommandLine group = new CommandLine(CommandSpec.create().name(name).mixinStandardHelpOptions(true));
        group.getCommandSpec().usageMessage().description(description);
        for (BlockSpec block : Blocks.allJava()) {
            CommandLine cmd = command.apply(block);
            actions.put(cmd.getCommandSpec(), parsed -> run.applyAsInt(block, parsed));
            group.addSubcommand(block.name(), cmd);
        }
        groups.add(group.getCommandSpec());
        cli.addSubcommand(name, group);
    }

    static class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"hwgen " + Manifest.generatorVersion() + " (" + Manifest.gitHash() + ")"};
        }
    }

    @Command(name = "list", description = "List every block the generator knows (the registry, uehw.hw.Blocks).")
    static final class ListBlocks implements Callable<Integer> {
        @CommandLine.Spec
        CommandSpec spec;

        @CommandLine.Option(names = "--names", description = "only the blocks' names, one a line (the Makefile's list)")
        boolean names;

        @CommandLine.Option(names = "--variants", description = "the generations `make rtl` lints beside the defaults, "
                + "one a line: the variant's name, its block and its parameters as hwgen generate takes them")
        boolean variants;

        @CommandLine.Option(names = "--param-table", paramLabel = "BLOCK", description = "the block's parameter table "
                + "(Markdown), as its doc page has it")
        String paramTable;

        @Override
        public Integer call() {
            java.io.PrintWriter out = spec.commandLine().getOut();
            if (paramTable != null) {
                BlockSpec b = Blocks.find(paramTable);
                if (b == null) {
                    System.err.println("hwgen: no block '" + paramTable + "'");
                    return EXIT_BAD_PARAMETER;
                }
                out.print(ParamTable.markdown(b));
                return 0;
            }
            for (BlockSpec b : Blocks.allJava()) {
                if (names) {
                    out.println(b.name());
                } else if (variants) {
                    for (LintVariant v : b.lintVariantsJava()) {
                        StringBuilder line = new StringBuilder(v.name() + " " + b.name());
                        v.paramsJava().forEach((k, val) -> line.append(" --").append(k).append(' ').append(val));
                        out.println(line);
                    }
                } else {
                    out.printf("%-12s %s%n", b.name(), b.description());
                }
            }
            out.flush();
            return 0;
        }
    }

    private static CommandLine generateCommand(BlockSpec block) {
        CommandSpec spec = paramOptions(block);
        spec.addOption(OptionSpec.builder("--out", "-o").paramLabel("DIR").type(File.class).required(true)
                .description("output folder (created)").build());
        spec.addOption(OptionSpec.builder("--clock-mhz").paramLabel("MHZ").type(Double.class)
                .defaultValue("250").description("clock for the constraint files [default: 250]").build());
        spec.addOption(OptionSpec.builder("--prefix").paramLabel("NAME").type(String.class)
                .description("the top module's name, which every other generated module's name begins with "
                        + "(a Verilog identifier) [default: uehw_<block>_ and 6 hex digits of the parameters' SHA-256]").build());
        spec.addOption(OptionSpec.builder("--rom-files").arity("0")
                .description("write ROM contents as $readmemb files beside the Verilog instead of inline").build());
        return new CommandLine(spec);
    }

    private static CommandSpec paramOptions(BlockSpec block) {
        CommandSpec spec = CommandSpec.create().name(block.name()).mixinStandardHelpOptions(true);
        spec.usageMessage().description(block.description());
        for (ParamSpec p : block.paramsJava()) {
            spec.addOption(OptionSpec.builder("--" + p.name())
                    .paramLabel(p.isChoice() ? "MODE" : "N")
                    .type(String.class)
                    .description(p.description() + " [default: " + p.defaultValue() + "; allowed: " + p.allowed() + "]")
                    .build());
        }
        return spec;
    }

    private static CommandLine reportCommand(BlockSpec block) {
        CommandSpec spec = paramOptions(block);
        spec.addOption(OptionSpec.builder("--out", "-o").paramLabel("DIR").type(File.class)
                .defaultValue("build/reports").description("report folder [default: build/reports]").build());
        spec.addOption(OptionSpec.builder("--clock-mhz").paramLabel("MHZ").type(Double.class)
                .description("also say whether the critical path fits this clock, and with the 0.4 ns margin").build());
        spec.addOption(OptionSpec.builder("--install-yowasp").arity("0")
                .description("install the pinned YoWASP Yosys into the user cache (npm ci) when it is not found").build());
        return new CommandLine(spec);
    }

    private static Map<String, String> given(BlockSpec block, ParseResult parsed) {
        Map<String, String> given = new LinkedHashMap<>();
        for (ParamSpec p : block.paramsJava()) {
            if (parsed.hasMatchedOption("--" + p.name())) {
                given.put(p.name(), parsed.matchedOptionValue("--" + p.name(), ""));
            }
        }
        return given;
    }

    /** Checks the block's parameters, or prints the message naming the bad one and returns null. */
    private static ParamValues checked(BlockSpec block, ParseResult parsed) {
        try {
            return block.check(given(block, parsed));
        } catch (ParameterException e) {
            System.err.println("hwgen: " + e.getMessage());
            return null;
        }
    }

    private static int runReport(BlockSpec block, ParseResult parsed) {
        if (CommandLine.printHelpIfRequested(parsed)) {
            return 0;
        }
        ParamValues values = checked(block, parsed);
        if (values == null) {
            return EXIT_BAD_PARAMETER;
        }
        File out = parsed.matchedOptionValue("--out", new File("build/reports"));
        Double clockMhz = parsed.matchedOptionValue("--clock-mhz", null);
        if (clockMhz != null && !(clockMhz > 0 && clockMhz <= 1000)) {
            System.err.println("hwgen: parameter 'clock-mhz' = " + clockMhz + " is not allowed: must be in (0, 1000]");
            return EXIT_BAD_PARAMETER;
        }
        try {
            if (uehw.report.YowaspTool.find() == null && parsed.hasMatchedOption("--install-yowasp")) {
                uehw.report.YowaspTool.install(System.out);
            }
            uehw.report.Reports.checkTools();
            uehw.report.Reports reports = new uehw.report.Reports(out.toPath(), System.out);
            String label = given(block, parsed).isEmpty() ? block.name() + " (default)"
                    : block.name() + " " + given(block, parsed);
            var row = reports.report(block, label, values);
            reports.writeBlock(block.name() + "-single", java.util.List.of(row));
            System.out.print(reports.summary(Map.of(block.name(), java.util.List.of(row))));
            if (clockMhz != null) {
                System.out.println(uehw.report.Reports.clockVerdict(label, row, clockMhz));
            }
            return 0;
        } catch (IllegalStateException e) {
            System.err.println("hwgen: " + e.getMessage());
            return 1;
        } catch (Exception e) {
            System.err.println("hwgen: report of " + block.name() + " failed: " + e);
            return 1;
        }
    }

    private static int runGenerate(BlockSpec block, ParseResult parsed) {
        if (CommandLine.printHelpIfRequested(parsed)) {
            return 0;
        }
        ParamValues values = checked(block, parsed);
        if (values == null) {
            return EXIT_BAD_PARAMETER;
        }
        File out = parsed.matchedOptionValue("--out", null);
        double clockMhz = parsed.matchedOptionValue("--clock-mhz", 250.0);
        if (!(clockMhz > 0 && clockMhz <= 1000)) {
            System.err.println("hwgen: parameter 'clock-mhz' = " + clockMhz + " is not allowed: must be in (0, 1000]");
            return EXIT_BAD_PARAMETER;
        }
        String prefix = parsed.matchedOptionValue("--prefix", "");
        try {
            if (!prefix.isEmpty()) {
                uehw.hw.Generator.checkPrefix(prefix);
            }
        } catch (ParameterException e) {
            System.err.println("hwgen: " + e.getMessage());
            return EXIT_BAD_PARAMETER;
        }
        try {
            Manifest.generateInto(block, values, out, clockMhz,
                    new uehw.hw.GenerationOptions(prefix, parsed.hasMatchedOption("--rom-files")));
        } catch (Exception e) {
            System.err.println("hwgen: generation of " + block.name() + " failed: " + e);
            return 1;
        }
        System.out.println("hwgen: " + block.name() + " written to " + out);
        String warning = Constraints.clockWarning(block.name(), clockMhz, given(block, parsed).isEmpty());
        if (warning != null) {
            System.err.println(warning);
        }
        return 0;
    }
}
