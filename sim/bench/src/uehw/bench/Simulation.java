// SPDX-License-Identifier: Apache-2.0
package uehw.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.stream.Stream;

import spinal.core.Component;
import uehw.bench.facade.Compiled;
import uehw.bench.facade.Sim;
import uehw.bench.facade.SpinalSimFacade;

/**
 * A Verilator-compiled design, run from Java. Each test class has its own workspace under
 * build/sim/, and each configuration is compiled once per JVM (SpinalSim also caches the
 * Verilator build on disk across runs).
 *
 * Runs go without waves. When one fails, it is run again with the same seed, recording an FST
 * from {@link #WAVE_WINDOW} cycles before the failing cycle; the AssertionError then names the
 * seed, the cycle and the waveform.
 */
public final class Simulation<T extends Component> {
    public static final long WAVE_WINDOW = 2000;
    private static final Map<String, Compiled<?>> COMPILED = new ConcurrentHashMap<>();

    /** The body of a run: drive the design through {@code sim}, throw on a mismatch. */
    @FunctionalInterface
    public interface Body<T extends Component> {
        void run(Sim<T> sim) throws Exception;
    }

    private final Compiled<T> compiled;
    private final Path workspace;

    private Simulation(Compiled<T> compiled, Path workspace) {
        this.compiled = compiled;
        this.workspace = workspace;
    }

    public static Path projectRoot() {
        return Paths.get(System.getProperty("uehw.root", ".")).toAbsolutePath().normalize();
    }

    /** Where the Verilator workspaces go: build/sim/, or -Duehw.simDir (make mutants keeps its builds apart). */
    public static Path simRoot() {
        String dir = System.getProperty("uehw.simDir", "").trim();
        return dir.isEmpty() ? projectRoot().resolve("build/sim") : Paths.get(dir).toAbsolutePath().normalize();
    }

    @SuppressWarnings("unchecked")
    public static <T extends Component> Simulation<T> compile(Class<?> testClass, String configName, Supplier<T> top) {
        Path ws = simRoot().resolve(testClass.getSimpleName());
        String key = ws + "/" + configName;
        Compiled<T> c = (Compiled<T>) COMPILED.computeIfAbsent(key, k -> {
            try {
                Files.createDirectories(ws);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return SpinalSimFacade.compile(top::get, ws, configName);
        });
        return new Simulation<>(c, ws);
    }

    /** Runs {@code body}; on failure re-runs it with waves and throws an error naming seed and waveform. */
    public void run(String testName, long seed, Body<T> body) {
        long[] lastCycle = {0};
        Throwable failure = attempt(testName, seed, -1, body, lastCycle);
        if (failure == null) {
            return;
        }
        long failCycle = lastCycle[0];
        if (!Boolean.parseBoolean(System.getProperty("uehw.failWaves", "true"))) {
            // make mutants: a killed mutant needs no waveform, only the failure.
            throw new AssertionError(String.format("%s failed at cycle %d with seed %d (no waveform: -Duehw.failWaves=false)%n%s",
                    testName, failCycle, seed, failure), failure);
        }
        long from = Math.max(1, failCycle - WAVE_WINDOW);
        String waveName = testName + "_fail";
        attempt(waveName, seed, from, body, new long[1]);
        Path wave = newestWave(waveName);
        throw new AssertionError(String.format(
                "%s failed at cycle %d with seed %d (rerun: -Duehw.seed=%d). Waveform of cycles %d..%d: %s%n%s",
                testName, failCycle, seed, seed, from, failCycle, wave, failure), failure);
    }

    private Throwable attempt(String testName, long seed, long waveFrom, Body<T> body, long[] lastCycle) {
        try {
            compiled.run(testName, (int) (seed & 0x7FFFFFFF), waveFrom, sim -> {
                try {
                    body.run(sim);
                } catch (RuntimeException | Error e) {
                    lastCycle[0] = sim.cycle();
                    throw e;
                } catch (Exception e) {
                    lastCycle[0] = sim.cycle();
                    throw new RuntimeException(e);
                }
            });
            return null;
        } catch (Throwable t) {
            return t;
        }
    }

    private Path newestWave(String testName) {
        try (Stream<Path> files = Files.walk(workspace)) {
            return files.filter(p -> p.toString().endsWith(".fst") && p.toString().contains(testName))
                    .max(Comparator.comparingLong(p -> p.toFile().lastModified()))
                    .orElse(workspace.resolve("(no waveform written)"));
        } catch (IOException e) {
            return workspace.resolve("(waveform search failed: " + e + ")");
        }
    }
}
