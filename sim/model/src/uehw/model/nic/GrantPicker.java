// SPDX-License-Identifier: Apache-2.0
package uehw.model.nic;

import java.util.ArrayList;
import java.util.List;

/**
 * The NIC engine's grant picker, clock by clock (docs/nic-engine.md, "Picking the next flow"):
 * eligibility bits in 32-bit words, a summary bit a word, a scanner that picks the next word whose
 * summary bit is set after the last one it picked (while the queue has room), the picked word read
 * into a staged snapshot a clock later and queued the clock after, and the queue: a head that
 * offers its lowest bit and a ring of snapshots behind it. The taken grant and the updates reach
 * the bits one edge late; the snapshots get the clears as the page's "Behaviour, edge by edge" says.
 */
public final class GrantPicker {
    /** One update port's value at an edge. */
    public record Update(int flow, boolean eligible) {
    }

    /** more: two or more bits were set, ignoring later clears by updates and late grants (it may say true of one bit). */
    private record Snapshot(int word, int mask, boolean more) {
    }

    private final int words;
    private final int depth;
    private final int[] word;
    private final boolean[] summary;
    private int last;
    private boolean picked;
    private int scanWord;
    private boolean stagedValid;
    private int stagedWord;
    private int stagedMask;
    private boolean stagedLive;
    /** The head was zero at the last edge and stayed: it leaves at the next (the RTL's head.zeroSeen). */
    private boolean zeroSeen;
    private Snapshot head;
    private List<Snapshot> ring = new ArrayList<>();
    private int lateGrant = -1;
    private List<Update> lateUpdates = List.of();

    public GrantPicker(int flows, int depth) {
        if (flows % 32 != 0 || flows < 64 || depth < 3) {
            throw new IllegalArgumentException("flows " + flows + ", depth " + depth);
        }
        this.words = flows / 32;
        this.depth = depth;
        this.word = new int[words];
        this.summary = new boolean[words];
        this.last = words - 1;
    }

    /** The flow offered before the next edge, or -1: the head's lowest bit. */
    public int offer() {
        return head != null && head.mask() != 0 ? head.word() * 32 + Integer.numberOfTrailingZeros(head.mask()) : -1;
    }

    /**
     * One clock edge: the grant output's ready (the offer, if any, is taken) and the updates of
     * the ports in port order.
     */
    public void edge(boolean ready, List<Update> updates) {
        boolean taken = ready && offer() >= 0;
        int grant = taken ? offer() : -1;
        int take = taken ? Integer.lowestOneBit(head.mask()) : 0;
        // a head that was zero at the last edge and stayed leaves (the RTL's zeroSeen register)
        boolean headLeaves = head != null && zeroSeen;
        boolean headZero = head != null && head.mask() == 0;
        // the scanner, from the registers before the edge (a zero head leaves: it does not count)
        int held = (head != null ? 1 : 0) + ring.size() + (picked ? 1 : 0) + (stagedValid ? 1 : 0);
        boolean room = held < depth + (headLeaves ? 1 : 0);
        int next = -1;
        for (int i = 1; i <= words && next < 0; i++) {
            int w = (last + i) % words;
            if (summary[w]) {
                next = w;
            }
        }
        // the word picked at the previous edge is read into the staged snapshot; the staged one joins the ring
        // the bit granted at the read's edge leaves the snapshot at its push (the late grant there)
        int read = word[scanWord] & ~lateClears(scanWord) & ~updateClears(scanWord, updates);
        boolean push = stagedValid && stagedLive;
        Snapshot pushed = new Snapshot(stagedWord, stagedMask & ~updateClears(stagedWord, updates) & ~grantBy(stagedWord, take)
                & ~lateGrantClear(stagedWord), Integer.bitCount(stagedMask) >= 2);
        stagedValid = picked;
        stagedWord = scanWord;
        stagedMask = read;
        stagedLive = summary[scanWord]; // the summary bit: a snapshot the clears empty is queued, and leaves as a zero head
        // the queue
        List<Snapshot> ringCleared = new ArrayList<>();
        for (Snapshot r : ring) {
            ringCleared.add(new Snapshot(r.word(), r.mask() & ~updateClears(r.word(), updates) & ~lateGrantClear(r.word()), r.more()));
        }
        // ready with a one-bit flag pops the head even when its bits are zero (the RTL's lastTaken)
        boolean pop = headLeaves || head != null && ready && !head.more();
        zeroSeen = headZero && !pop;
        boolean refill = (pop || head == null) && !ring.isEmpty();
        if (refill) {
            Snapshot first = ringCleared.remove(0);
            int own = head != null && first.word() == head.word() ? take : 0;
            head = new Snapshot(first.word(), first.mask() & ~own, first.more());
        } else if (pop) {
            head = null;
        } else if (head != null) {
            // after a take, two or more left when three or more were set
            head = new Snapshot(head.word(), head.mask() & ~take & ~updateClears(head.word(), updates),
                    Integer.bitCount(head.mask()) >= (taken ? 3 : 2));
        }
        if (push) {
            ringCleared.add(pushed);
        }
        ring = ringCleared;
        // the summary from the words before the edge; the words take the previous edge's grant, then its updates
        for (int w = 0; w < words; w++) {
            summary[w] = word[w] != 0;
        }
        if (lateGrant >= 0) {
            word[lateGrant / 32] &= ~(1 << lateGrant % 32);
        }
        for (Update u : lateUpdates) {
            if (u.eligible()) {
                word[u.flow() / 32] |= 1 << u.flow() % 32;
            } else {
                word[u.flow() / 32] &= ~(1 << u.flow() % 32);
            }
        }
        lateGrant = grant;
        lateUpdates = List.copyOf(updates);
        picked = room && next >= 0;
        if (picked) {
            scanWord = next;
            last = next;
        }
    }

    private int grantBy(int w, int take) {
        return head != null && head.word() == w ? take : 0;
    }

    private int lateGrantClear(int w) {
        return lateGrant >= 0 && lateGrant / 32 == w ? 1 << lateGrant % 32 : 0;
    }

    private int lateClears(int w) {
        return lateGrantClear(w) | updateClears(w, lateUpdates);
    }

    private static int updateClears(int w, List<Update> updates) {
        int c = 0;
        for (Update u : updates) {
            if (!u.eligible() && u.flow() / 32 == w) {
                c |= 1 << u.flow() % 32;
            }
        }
        return c;
    }
}
