// SPDX-License-Identifier: Apache-2.0
package uehw.tb.mutation;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import uehw.tb.mutation.Catalogue.Mutant;

/**
 * {@code make mutants}: applies each mutant of the catalogues ({@link Catalogue}) to a copy of hw/,
 * compiles that copy with scalac into a class folder put first on the class path, runs the block's
 * test classes in a forked JVM ({@link KillRun}: stops at the first failure, Verilator builds kept
 * apart under the output folder) and prints the kill score per block. Before the mutants, each
 * block's tests run once unmutated: they must pass, and their time sets the mutants' timeout (a
 * mutant that hangs the simulation counts as killed, "timeout"). Declared-equivalent mutants are
 * not run unless {@code --check-equivalent}, and are left out of the score.
 *
 * <p>Usage: {@code MutationRun [--only block[/id],...] [--seed N] [--check-equivalent] [--no-baseline] [--out DIR]}
 * ({@code --no-baseline}: skip the unmutated runs, for a rerun right after the tests passed).
 * Exits 1 when a block scores under 95 %.
 */
public final class MutationRun {
    static final double REQUIRED_SCORE = 0.95;

    record Outcome(Mutant mutant, String status, String detail, double seconds) {
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(System.getProperty("uehw.root", ".")).toAbsolutePath().normalize();
        Path out = root.resolve("build/mutants");
        List<String> only = List.of();
        long seed = 1;
        boolean checkEquivalent = false;
        boolean baselines = true;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--only" -> only = List.of(args[++i].split(","));
                case "--seed" -> seed = Long.parseLong(args[++i]);
                case "--out" -> out = Path.of(args[++i]).toAbsolutePath();
                case "--check-equivalent" -> checkEquivalent = true;
                case "--no-baseline" -> baselines = false;
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        List<Mutant> all = Catalogue.load(root.resolve("hw/src"));
        List<String> filter = only;
        List<Mutant> chosen = all.stream()
                .filter(m -> filter.isEmpty() || filter.stream().anyMatch(f -> f.equals(m.block()) || f.equals(m.name())))
                .toList();
        System.out.printf("mutants: %d in the catalogues, %d chosen, seed %d, output %s%n", all.size(), chosen.size(), seed, out);
        Files.createDirectories(out);

        // The unmutated tests of each block: they must pass; their time sets the timeout.
        Map<List<String>, Double> baseline = new LinkedHashMap<>();
        for (Mutant m : chosen) {
            if (!baselines) {
                baseline.put(m.tests(), 150.0);   // the tests are known to pass: a 600 s timeout
            } else if (!baseline.containsKey(m.tests())) {
                Run r = runTests(root, out, null, m.tests(), seed, TimeUnit.HOURS.toSeconds(2), out.resolve("log/baseline-" + String.join("+", m.tests()) + ".log"));
                if (!r.status.equals("survived")) {
                    throw new IllegalStateException("the unmutated tests " + m.tests() + " do not pass (" + r.detail + "): see " + r.log);
                }
                System.out.printf("baseline %s: pass in %.0f s%n", m.tests(), r.seconds);
                baseline.put(m.tests(), r.seconds);
            }
        }

        List<Outcome> outcomes = new ArrayList<>();
        for (Mutant m : chosen) {
            if (m.equivalent() != null && !checkEquivalent) {
                outcomes.add(new Outcome(m, "equivalent", m.equivalent(), 0));
                System.out.printf("%-40s equivalent (not run): %s%n", m.name(), m.equivalent());
                continue;
            }
            Path classes = out.resolve("classes").resolve(m.block() + "-" + m.id());
            try {
                compileMutated(root, m, classes);
            } catch (IllegalStateException e) {
                outcomes.add(new Outcome(m, "stillborn", e.getMessage(), 0));
                System.out.printf("%-40s stillborn: %s%n", m.name(), e.getMessage());
                continue;
            }
            long timeout = Math.max(300, (long) (4 * baseline.get(m.tests())));
            Run r = runTests(root, out, classes, m.tests(), seed, timeout, out.resolve("log/" + m.block() + "-" + m.id() + ".log"));
            String status = r.status;
            if (m.equivalent() != null) {
                status = r.status.equals("survived") ? "equivalent" : "equivalent-but-" + r.status;
            }
            outcomes.add(new Outcome(m, status, r.detail, r.seconds));
            System.out.printf("%-40s %s in %.0f s: %s%n", m.name(), status, r.seconds, r.detail);
            deleteTree(classes);
        }
        boolean ok = report(out, outcomes, seed);
        System.exit(ok ? 0 : 1);
    }

    record Run(String status, String detail, double seconds, Path log) {
    }

    /** Forks a JVM running {@link KillRun} on {@code tests}; {@code mutated} (may be null) first on the class path. */
    static Run runTests(Path root, Path out, Path mutated, List<String> tests, long seed, long timeoutSeconds, Path log)
            throws IOException, InterruptedException {
        Files.createDirectories(log.getParent());
        String cp = (mutated == null ? "" : mutated + File.pathSeparator) + System.getProperty("java.class.path");
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xss16m", "-Xmx6g", "-cp", cp,
                "-Duehw.root=" + root, "-Duehw.simDir=" + out.resolve("sim"), "-Duehw.failWaves=false",
                "-Duehw.seed=" + seed, KillRun.class.getName()));
        cmd.addAll(tests);
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(cmd).directory(root.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean done = p.waitFor(timeoutSeconds, TimeUnit.SECONDS);
        double seconds = (System.nanoTime() - t0) / 1e9;
        if (!done) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly().waitFor();
            return new Run("killed", "timeout after " + timeoutSeconds + " s (the simulation hangs)", seconds, log);
        }
        String text = Files.readString(log, StandardCharsets.UTF_8);
        String killed = text.lines().filter(l -> l.startsWith("KILLED ")).findFirst().orElse(null);
        if (p.exitValue() == 1 && killed != null) {
            return new Run("killed", killed.substring(7), seconds, log);
        }
        if (p.exitValue() == 0) {
            return new Run("survived", text.lines().filter(l -> l.startsWith("SURVIVED ")).findFirst().orElse("SURVIVED").substring(9), seconds, log);
        }
        return new Run("error", "exit " + p.exitValue() + ", see " + log, seconds, log);
    }

    /** hw/src copied with the mutant applied, compiled by scalac (in this JVM) into {@code classes}. */
    static void compileMutated(Path root, Mutant m, Path classes) throws IOException {
        Path src = classes.resolveSibling(classes.getFileName() + "-src");
        deleteTree(src);
        deleteTree(classes);
        Files.createDirectories(classes);
        Path hw = root.resolve("hw/src");
        List<String> sources = new ArrayList<>();
        boolean applied = false;
        try (Stream<Path> s = Files.walk(hw)) {
            for (Path f : s.filter(p -> p.toString().endsWith(".scala")).toList()) {
                Path copy = src.resolve(hw.relativize(f).toString());
                Files.createDirectories(copy.getParent());
                String text = Files.readString(f);
                boolean mutated = f.normalize().equals(m.file().normalize());
                applied |= mutated;
                Files.writeString(copy, mutated ? m.apply(text) : text);
                sources.add(copy.toString());
            }
        }
        if (!applied) {
            throw new IllegalStateException(m.name() + ": its file " + m.file() + " is not among hw/src's sources (fix the catalogue)");
        }
        String plugin = Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> e.contains("spinalhdl-idsl-plugin")).findFirst()
                .orElseThrow(() -> new IllegalStateException("spinalhdl-idsl-plugin is not on the class path"));
        List<String> args = new ArrayList<>(List.of("-usejavacp", "-nowarn", "-Xplugin:" + plugin, "-Xplugin-require:idsl-plugin",
                "-d", classes.toString()));
        args.addAll(sources);
        if (!scala.tools.nsc.Main.process(args.toArray(String[]::new))) {
            throw new IllegalStateException(m.name() + ": the mutated hw/ does not compile (fix the catalogue); sources in " + src);
        }
        deleteTree(src);
    }

    static boolean report(Path out, List<Outcome> outcomes, long seed) throws IOException {
        Map<String, List<Outcome>> byBlock = new LinkedHashMap<>();
        for (Outcome o : outcomes) {
            byBlock.computeIfAbsent(o.mutant.block(), b -> new ArrayList<>()).add(o);
        }
        StringBuilder md = new StringBuilder("# Mutation score (make mutants, seed " + seed + ")\n\n"
                + "| block | mutants | equivalent | killed | survived | score |\n| --- | --- | --- | --- | --- | --- |\n");
        boolean ok = true;
        int tk = 0, tn = 0;
        for (var e : byBlock.entrySet()) {
            long eq = e.getValue().stream().filter(o -> o.status.startsWith("equivalent")).count();
            long killed = e.getValue().stream().filter(o -> o.status.equals("killed")).count();
            long stillborn = e.getValue().stream().filter(o -> o.status.equals("stillborn")).count();
            ok &= stillborn == 0;
            long survived = e.getValue().size() - eq - killed - stillborn;
            long counted = e.getValue().size() - eq - stillborn;
            double score = counted == 0 ? 1 : (double) killed / counted;
            ok &= score >= REQUIRED_SCORE;
            tk += killed;
            tn += counted;
            md.append(String.format(Locale.ROOT, "| %s | %d | %d | %d | %d | %.1f %% |%n", e.getKey(), e.getValue().size(), eq, killed, survived, 100 * score));
        }
        md.append(String.format(Locale.ROOT, "| all | %d | | %d | %d | %.1f %% |%n%n", outcomes.size(), tk, tn - tk, tn == 0 ? 100.0 : 100.0 * tk / tn));
        md.append("| mutant | kind | what | outcome | by / why |\n| --- | --- | --- | --- | --- |\n");
        for (Outcome o : outcomes) {
            md.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s |%n", o.mutant.name(), o.mutant.kind(), o.mutant.what(),
                    o.status, o.detail == null ? "" : o.detail.replace("|", "\\|")));
        }
        Files.writeString(out.resolve("report.md"), md);
        System.out.println();
        System.out.print(md.substring(0, md.indexOf("| mutant |")));
        outcomes.stream().filter(o -> !o.status.equals("killed") && !o.status.equals("equivalent"))
                .forEach(o -> System.out.println("not killed: " + o.mutant.name() + " (" + o.mutant.what() + "): " + o.status + " " + o.detail));
        System.out.println("mutants: report in " + out.resolve("report.md") + (ok ? "" : "; a block is under " + (int) (100 * REQUIRED_SCORE) + " %"));
        return ok;
    }

    static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> s = Files.walk(p)) {
            for (Path f : s.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
                Files.delete(f);
            }
        }
    }
}
