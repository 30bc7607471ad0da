// SPDX-License-Identifier: Apache-2.0
package uehw.tb.mutation;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.ArrayList;
import java.util.List;

import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * One mutant's test run, in its own JVM (forked by {@link MutationRun} with the mutated classes first
 * on the class path): runs the given test classes and stops at the first failure. Prints
 * {@code KILLED <test>: <first line of the failure>} and exits 1, or {@code SURVIVED <n> tests} and exits 0.
 */
public final class KillRun {
    private KillRun() {
    }

    public static void main(String[] args) throws ClassNotFoundException {
        List<org.junit.platform.engine.DiscoverySelector> selectors = new ArrayList<>();
        for (String name : args) {
            selectors.add(selectClass(Class.forName(name.contains(".") ? name : "uehw.tb." + name)));
        }
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request().selectors(selectors).build();
        Launcher launcher = LauncherFactory.create();
        int[] passed = {0};
        launcher.execute(request, new TestExecutionListener() {
            @Override
            public void executionStarted(TestIdentifier id) {
                if (id.isTest()) {
                    System.out.println("RUN " + id.getDisplayName() + " (" + id.getUniqueId() + ")");
                    System.out.flush();
                }
            }

            @Override
            public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                if (result.getStatus() == TestExecutionResult.Status.SUCCESSFUL) {
                    if (id.isTest()) {
                        passed[0]++;
                    }
                    return;
                }
                String why = result.getThrowable().map(t -> String.valueOf(t.getMessage()).lines().findFirst().orElse(t.toString()))
                        .orElse(result.getStatus().toString());
                String test = id.getSource().filter(src -> src instanceof MethodSource).map(src -> (MethodSource) src)
                        .map(src -> src.getClassName().replaceFirst("^uehw\\.tb\\.", "") + "." + src.getMethodName())
                        .orElse(id.getDisplayName());
                System.out.println("KILLED " + test + ": " + why);
                result.getThrowable().ifPresent(t -> t.printStackTrace(System.out));
                System.out.flush();
                Runtime.getRuntime().halt(1);
            }
        });
        System.out.println("SURVIVED " + passed[0] + " tests");
        System.out.flush();
        Runtime.getRuntime().halt(passed[0] > 0 ? 0 : 3);
    }
}
