// SPDX-License-Identifier: Apache-2.0
package uehw.netsim;

import java.util.ArrayList;
import java.util.List;

import uehw.model.dart.DartDftModel;

/**
 * A switch: every packet leaves by the port its router picks. Up-ports are chosen by ECMP, a hash
 * of (flow, entropy, switch) over the candidates, so that the entropy a sender picks (REPS)
 * chooses the path; the way down is fixed.
 */
public final class Switch implements Node {
    /** Picks the output port of a packet at a switch. */
    public interface Router {
        Port route(Switch s, Packet p);
    }

    public final int id;
    private final String name;
    public final List<Port> ports = new ArrayList<>();
    Router router;
    /** Ports from this index on lead up the tree (ToR and aggregation switches); the rest lead down. */
    int firstUpPort = Integer.MAX_VALUE;

    /** The index of the first port up the tree (ports.size() or more: none, a spine or a star's switch). */
    public int firstUpPort() {
        return firstUpPort;
    }
    /** Dart's deflected flow table (dart.txt Sec. IV-A), or null: no deflection here. */
    DartDftModel dft;
    /** Data packets this switch deflected. */
    public long deflected;

    Switch(int id, String name) {
        this.id = id;
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void receive(Packet p, Port from) {
        if (p.kind == Packet.Kind.DATA) {
            p.hops++;
        }
        Port out = router.route(this, p);
        if (dft != null && p.kind == Packet.Kind.DATA) {
            out = deflect(p, out);
        }
        out.send(p);
    }

    /**
     * IOFD (dart.txt Sec. IV-A, Fig. 7): every data packet consults the DFT. A message's start
     * packet whose routed port's queue is above the threshold, with a token, takes a random other
     * up-port and its flow an entry, so that the rest of the message follows it in order; the end
     * packet frees the entry. Only packets routed up are deflected (the queue shown for a port
     * leading down is 0): an up-port is as short a way as the routed one, and a deflected message
     * never comes back through this switch.
     */
    private Port deflect(Packet p, Port routed) {
        int index = ports.indexOf(routed);
        long queue = index >= firstUpPort ? routed.dataBytes() : 0;
        DartDftModel.Decision d = dft.apply(new DartDftModel.Packet(p.flow, p.first, p.last, p.tokens, index, queue, 0));
        p.tokens = d.tokens();
        if (!d.deflected()) {
            return routed;
        }
        p.deflections++;
        deflected++;
        return ports.get(d.port());
    }

    /** Gives this switch a deflected flow table (its up-ports the only deflection candidates). */
    public void deflectWith(DartDftModel table) {
        if (firstUpPort >= ports.size()) {
            throw new IllegalStateException(name + " has no up-ports to deflect to");
        }
        if (table.ports != ports.size()) {
            throw new IllegalArgumentException(name + " has " + ports.size() + " ports, the table " + table.ports);
        }
        long up = 0;
        for (int i = firstUpPort; i < ports.size(); i++) {
            up |= 1L << i;
        }
        table.candidates = up;
        dft = table;
    }

    /** The deflected flow table, or null. */
    public DartDftModel dft() {
        return dft;
    }

    /** ECMP: one of the candidates by a hash of flow, entropy and this switch (splitmix64's finaliser). */
    public Port ecmp(Packet p, List<Port> candidates) {
        long z = ((long) p.flow << 32 | p.entropy & 0xFFFFFFFFL) ^ (long) id * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z ^= z >>> 31;
        return candidates.get((int) Long.remainderUnsigned(z, candidates.size()));
    }
}
