// SPDX-License-Identifier: Apache-2.0
package uehw.bench;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Function;

import spinal.core.Component;
import uehw.bench.facade.Sim;

/**
 * A second simulation in the same run: SpinalSim ties a simulation to the thread that runs it, so
 * this one runs in a thread of its own and does what it is asked, one call at a time, while the
 * caller waits (the network's loop drives one design directly and this one through
 * {@link #proxy}). A call that fails throws in the caller; the simulation ends at {@link #close}.
 */
public final class SimWorker<T extends Component> implements AutoCloseable {
    private final LinkedBlockingQueue<FutureTask<?>> tasks = new LinkedBlockingQueue<>();
    private final FutureTask<Void> stop = new FutureTask<>(() -> null);
    private final Thread thread;
    private volatile Sim<T> sim;
    private volatile Throwable failure;

    public SimWorker(Simulation<T> simulation, String testName, long seed) {
        thread = new Thread(() -> {
            try {
                simulation.run(testName, seed, s -> {
                    sim = s;
                    while (true) {
                        FutureTask<?> t = tasks.take();
                        if (t == stop) {
                            return;
                        }
                        t.run();
                    }
                });
            } catch (Throwable e) {
                failure = e;
                FutureTask<?> t;
                while ((t = tasks.poll()) != null) {
                    t.cancel(false);
                }
            }
        }, "sim-" + testName);
        thread.setDaemon(true);
        thread.start();
    }

    /** Runs {@code f} on the simulation, in its thread; returns its result. */
    public <R> R call(Function<Sim<T>, R> f) {
        FutureTask<R> task = new FutureTask<>(() -> f.apply(sim));
        tasks.add(task);
        try {
            return task.get();
        } catch (ExecutionException e) {
            throw unchecked(e.getCause());
        } catch (InterruptedException | java.util.concurrent.CancellationException e) {
            throw new IllegalStateException("the simulation thread ended: " + failure, e);
        }
    }

    /** {@code target} seen through {@code iface}, every call of it made in the simulation's thread. */
    public <I> I proxy(Class<I> iface, I target) {
        return iface.cast(Proxy.newProxyInstance(iface.getClassLoader(), new Class<?>[] {iface}, (p, m, args) -> call(s -> {
            try {
                return m.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw unchecked(e.getCause());
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        })));
    }

    /** {@code t} as it was if unchecked; a checked exception wrapped. */
    private static RuntimeException unchecked(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }

    @Override
    public void close() {
        tasks.add(stop);
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (failure != null) {
            throw new AssertionError("the second simulation failed", failure);
        }
    }
}
