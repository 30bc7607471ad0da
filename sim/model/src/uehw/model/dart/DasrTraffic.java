// SPDX-License-Identifier: Apache-2.0
package uehw.model.dart;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random receiver traffic for the DASR block: messages from many senders that overlap (a sender
 * with several messages at once, as in two incasts), senders that crash (their messages never
 * end), look-ahead notifications of incast groups (new, repeated, and stray entries), one-packet
 * messages, and bad input (ends of messages never started, ids out of range). ECN marks and packet
 * sizes come in phases, so that the receive throughput crosses the line rate both ways.
 */
public final class DasrTraffic {
    private final Random random;
    private final int[] pool;
    private final int senderIdBits;
    private final int groups;
    /** Messages in flight: a sender each (a sender may appear several times). */
    private final List<int[]> open = new ArrayList<>();
    private final ArrayDeque<DasrEvent> pending = new ArrayDeque<>();
    private final int targetOpen;
    private double ecnProbability;
    private int typicalBytes;
    private long events;

    /**
     * @param senders      distinct sender ids to draw from (about 2x the set's capacity makes it overflow)
     * @param targetOpen   messages kept in flight on average
     * @param groups       look-ahead group ids drawn from 0..groups-1 (few: repeats happen)
     */
    public DasrTraffic(Random random, int senderIdBits, int senders, int targetOpen, int groups) {
        this.random = random;
        this.senderIdBits = senderIdBits;
        this.targetOpen = targetOpen;
        this.groups = groups;
        long range = 1L << senderIdBits;
        pool = random.longs(senders, 0, range).mapToInt(v -> (int) v).toArray();
        newPhase();
    }

    private void newPhase() {
        ecnProbability = new double[] {0, 0.01, 0.3, 0.9}[random.nextInt(4)];
        typicalBytes = new int[] {64, 1500, 4160, 9000, 65535}[random.nextInt(5)];
    }

    private int anySender() {
        int r = random.nextInt(200);
        if (r == 0) {
            return (int) (random.nextLong(1L << senderIdBits, 1L << 32)); // out of range (negative ints included)
        }
        return pool[random.nextInt(pool.length)];
    }

    private int bytes() {
        return random.nextInt(8) == 0 ? random.nextInt(65536) : typicalBytes;
    }

    private boolean ecn() {
        return random.nextDouble() < ecnProbability;
    }

    public DasrEvent next() {
        if (++events % 5000 == 0) {
            newPhase();
        }
        if (!pending.isEmpty()) {
            return pending.removeFirst();
        }
        int r = random.nextInt(1000);
        if (r < 6) { // a look-ahead notification of 1-8 senders; their messages start announced
            int group = random.nextInt(groups);
            int k = 1 + random.nextInt(8);
            int[] named = new int[k];
            for (int i = 0; i < k; i++) {
                named[i] = anySender();
                pending.addLast(DasrEvent.lookAhead(group, named[i], i == 0));
                if (random.nextInt(4) != 0) {
                    open.add(new int[] {named[i], 1});   // announced: its first packet says so
                }
            }
            if (random.nextInt(3) == 0) { // the notification again at once (every message of a group carries it)
                for (int i = 0; i < k; i++) {
                    pending.addLast(DasrEvent.lookAhead(group, named[i], i == 0));
                }
            }
            return pending.removeFirst();
        }
        if (r < 8) {
            return DasrEvent.lookAhead(random.nextInt(groups), anySender(), false); // a stray entry
        }
        if (r < 12) {
            return DasrEvent.packet(anySender(), false, true, false, ecn(), bytes()); // an end nobody started (mostly)
        }
        if (r < 18) {
            return DasrEvent.packet(anySender(), true, true, false, ecn(), bytes()); // a one-packet message
        }
        if (r < 20 && !open.isEmpty()) {
            open.remove(random.nextInt(open.size())); // the sender crashes: this message never ends
            return next();
        }
        boolean start = open.isEmpty() || random.nextInt(Math.max(1, 2 * targetOpen)) >= open.size()
                && random.nextInt(4) == 0;
        if (start) {
            int s = random.nextInt(3) == 0 && !open.isEmpty() ? open.get(random.nextInt(open.size()))[0] : anySender();
            open.add(new int[] {s, 0});
            return DasrEvent.packet(s, true, false, false, ecn(), bytes());
        }
        int i = random.nextInt(open.size());
        int[] m = open.get(i);
        boolean announcedFirst = m[1] == 1;
        if (announcedFirst) {
            m[1] = 2;
            return DasrEvent.packet(m[0], true, false, true, ecn(), bytes());
        }
        boolean end = random.nextInt(8) == 0;
        if (end) {
            open.set(i, open.get(open.size() - 1));
            open.remove(open.size() - 1);
        }
        return DasrEvent.packet(m[0], false, end, false, ecn(), bytes());
    }
}
