// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import java.util.ArrayList;
import java.util.List;

import uehw.netsim.Flow;
import uehw.netsim.Network;

/** A run's window updates, entropies, PULLs and completions, a line each with its ps, in order: two runs compared line for line. */
final class TraceLines implements Network.Trace {
    final List<String> lines = new ArrayList<>();

    @Override
    public void window(long timePs, Flow f, long cwnd) {
        lines.add(timePs + " window " + f.id + " " + cwnd);
    }

    @Override
    public void entropy(long timePs, Flow f, int entropy) {
        lines.add(timePs + " entropy " + f.id + " " + entropy);
    }

    @Override
    public void pull(long timePs, Flow f, long number, boolean slow) {
        lines.add(timePs + " pull " + f.id + " " + number + (slow ? " slow" : ""));
    }

    @Override
    public void finished(Flow f) {
        lines.add(f.finishedPs + " finished " + f.id);
    }
}
