// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import java.util.function.Function;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.opentest4j.TestAbortedException;
import spinal.core.Component;
import uehw.bench.Simulation;
import uehw.bench.facade.Sim;

/**
 * JUnit 5: gives each test of a class that extends with it its seed and its benches. The seed is
 * drawn once per test (-Duehw.seed=N fixes it: Seeds); {@link #bench} runs a body on a
 * fresh bench of the test's Verilator build with that seed (a failure re-runs with a waveform and
 * names seed, cycle and waveform: uehw.bench.Simulation); any other failure of the test gets the
 * seed added to its message, so every failure says how to rerun it.
 */
public final class BenchExtension implements BeforeEachCallback, AfterEachCallback, TestExecutionExceptionHandler {
    private record Current(long seed) {
    }

    private static final ThreadLocal<Current> CURRENT = new ThreadLocal<>();

    /** What a test does with its bench; {@code seed} is the test's, for its own random draws. */
    @FunctionalInterface
    public interface Body<B> {
        void run(B bench, long seed) throws Exception;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        CURRENT.set(new Current(Seeds.next()));
    }

    @Override
    public void afterEach(ExtensionContext context) {
        CURRENT.remove();
    }

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        Current c = CURRENT.get();
        // an aborted (assumption) test stays aborted; a message that names its seed is left alone
        if (c == null || failure instanceof TestAbortedException || String.valueOf(failure.getMessage()).contains("seed")) {
            throw failure;
        }
        AssertionError withSeed = new AssertionError(failure.getMessage() + " [seed " + c.seed() + "; rerun: -Duehw.seed="
                + c.seed() + "]", failure);
        withSeed.setStackTrace(failure.getStackTrace());
        throw withSeed;
    }

    /** The running test's seed. */
    public static long seed() {
        Current c = CURRENT.get();
        if (c == null) {
            throw new IllegalStateException("no seed: the test class needs @ExtendWith(BenchExtension.class)");
        }
        return c.seed();
    }

    /** Runs {@code body} on {@code bench} made over a fresh run of {@code build}, named {@code runName}, with the test's seed. */
    public static <T extends Component, B> void bench(Simulation<T> build, String runName, Function<Sim<T>, B> bench, Body<B> body) {
        long seed = seed();
        build.run(runName, seed, sim -> body.run(bench.apply(sim), seed));
    }
}
