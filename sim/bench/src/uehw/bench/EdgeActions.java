// SPDX-License-Identifier: Apache-2.0
package uehw.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Model changes due at a clock edge: a bench runs the actions due at edge e right after that edge
 * and before it applies the events the DUT accepted there, so an action at edge e applies to the
 * events accepted at e and later. A test uses it to make its model follow a CSR write at the edge
 * the block's documentation gives (which may be before the write's handshake, when the test
 * chose that edge in advance).
 */
public final class EdgeActions {
    private final TreeMap<Long, List<Runnable>> due = new TreeMap<>();
    private final AxiLite4Master csr;
    private long ran = Long.MIN_VALUE;

    /** {@code csr}: the bench's CSR master, whose posted writes {@link #writeAt} places. */
    public EdgeActions(AxiLite4Master csr) {
        this.csr = csr;
    }

    /**
     * What a bench calls right after each edge, before it applies the events accepted there: the
     * CSR master's posted write is tracked, then the actions due run.
     */
    public void afterEdge(long edge) {
        csr.afterEdge();
        runUpTo(edge);
    }

    /**
     * A CSR write taken at edge {@code h} (AW and W presented right after edge h - 1; checked taken
     * at h), and the model change the block's documentation gives for it, run before the events
     * accepted at {@code effectEdge} are applied. Both edges must be ahead of the events applied.
     */
    public void writeAt(long h, long address, long data, long effectEdge, Runnable modelChange) {
        if (h - 1 == ran) {
            csr.postWrite(address, data); // edge h - 1 has passed its actions: present now
        } else {
            at(h - 1, () -> csr.postWrite(address, data));
        }
        at(effectEdge, modelChange);
        at(h + 1, () -> {
            if (csr.postedEdge() != h) {
                throw new AssertionError("the CSR write to 0x" + Long.toHexString(address) + " presented for edge " + h
                        + " was taken at edge " + csr.postedEdge() + " (-1: not yet)");
            }
        });
    }

    /** True when no posted write is under way (blocking CSR accesses may go). */
    public boolean csrIdle() {
        return csr.postedDone() && due.isEmpty();
    }

    /** Runs {@code action} before the events accepted at {@code edge} are applied. */
    public void at(long edge, Runnable action) {
        if (edge <= ran) {
            throw new IllegalStateException("edge " + edge + " is past: the events up to edge " + ran + " were applied");
        }
        due.computeIfAbsent(edge, k -> new ArrayList<>()).add(action);
    }

    /** Runs, in edge order, every action due at or before {@code edge}. */
    public void runUpTo(long edge) {
        while (!due.isEmpty() && due.firstKey() <= edge) {
            Map.Entry<Long, List<Runnable>> first = due.pollFirstEntry();
            first.getValue().forEach(Runnable::run);
        }
        ran = Math.max(ran, edge);
    }

    public boolean isEmpty() {
        return due.isEmpty();
    }
}
