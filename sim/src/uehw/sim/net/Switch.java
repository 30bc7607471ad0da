package uehw.sim.net;

import java.util.ArrayList;
import java.util.List;

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
        router.route(this, p).send(p);
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
