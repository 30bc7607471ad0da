// SPDX-License-Identifier: Apache-2.0
package uehw.model.smartt;

import static uehw.model.smartt.SmarttFixedModel.F;

import uehw.model.smartt.SmarttFixedModel.Kind;
import uehw.model.smartt.SmarttFixedModel.Rule;
import uehw.model.smartt.SmarttFixedModel.State;

/**
 * The reference-code profile (docs/smartt.md): the authors' simulator's rules where they differ
 * from the paper, in the RTL's rules. The deltas: FastIncrease's count first on every ACK; only
 * ECN-marked ACKs skipped inside the ignore window; rtt = trtt applies no case; QuickAdapt's bytes
 * normalised to one target RTT (a NACK's 64 B among them); MD without its cap at the size; the
 * window in whole bytes.
 */
final class SmarttReferenceProfile implements SmarttProfile {
    private final SmarttFixedModel m;

    SmarttReferenceProfile(SmarttFixedModel m) {
        this.m = m;
    }

    /** The authors' integer window. */
    @Override
    public long window(long clamped) {
        return clamped & ~((1L << F) - 1);
    }

    /**
     * The ACK: the FastIncrease count first, on every ACK; while QuickAdapt's ignore window lasts
     * only ECN-marked ACKs are skipped; after QuickAdapt an unmarked ACK still counts for WTD and may
     * FastIncrease; the measurement window rolls even while ignoring; rtt = trtt applies no case.
     */
    @Override
    public Outcome ack(Event x) {
        State s = x.s();
        long size = x.size();
        boolean ecn = x.event().ecn();
        long acked1 = m.ackedWith(s, size);                                   // Alg. 1 line 4
        long ignore1 = SmarttFixedModel.ignoreLeft(s, size);                  // line 5
        boolean ignoring = ignore1 != 0;
        // Alg. 3 as the authors' code keeps it: fiCount counts down the window recorded at the last
        // unclean ACK; FastIncrease once the clean bytes since then exceed it, and on until unclean.
        boolean clean = m.clean(x.rtt(), ecn);
        boolean fast = clean && (s.fiActive || size > s.fiCount);
        s.fiCount = !clean ? s.cwnd >>> F : fast ? 0 : s.fiCount - size;
        s.fiActive = fast;
        boolean adapt = !ignoring && x.windowExpired() && x.windowStarted() && s.triggerQa; // Alg. 2 lines 3-4
        long c1 = s.cwnd;
        s.ignoreBytes = ignore1;
        if (adapt) {
            c1 = m.rules.quickAdapt(acked1, m.rules.normalisedScaling(x.now(), x.windowEnd(), x.trtt())); // Alg. 2 line 7
            s.triggerQa = false;
            s.ignoreBytes = x.unacked();                                      // Alg. 2 line 8
        }
        if (x.windowExpired()) {
            m.roll(s, x.now(), x.trtt());
        } else {
            s.acked = acked1;
        }
        if (ecn && (ignoring || adapt)) {
            // Skipped: a marked ACK inside the ignore window (the one QuickAdapt opens included).
            return new Outcome(adapt ? c1 : SmarttRules.held(c1), adapt ? Rule.QUICK_ADAPT : Rule.IGNORED);
        }
        boolean canDecrease = m.waitToDecrease(s, ecn);                       // Sec. 3.6.1
        if (fast) {
            m.countFastIncrease();
            return new Outcome(m.rules.fastIncrease(c1), adapt ? Rule.QUICK_ADAPT : Rule.FAST_INCREASE); // Alg. 3 line 5
        }
        if (adapt) {
            // The authors' code goes on to the case from the QuickAdapt window; the five-clock loop
            // cannot (docs/smartt.md): the case's increase of this one ACK is dropped.
            return new Outcome(c1, Rule.QUICK_ADAPT);
        }
        if (x.rtt() == x.trtt()) {
            return new Outcome(SmarttRules.held(c1), Rule.AT_TARGET);
        }
        return m.rules.cases(s.cwnd, size, x.rtt(), x.trtt(), ecn, canDecrease, true);
    }

    /**
     * A NACK or timeout: inside the ignore window it changes nothing but the counts (a NACK's 64 B
     * still count for QuickAdapt); outside it, Alg. 1 lines 28-34, with the NACK's 64 B in
     * QuickAdapt's bytes and its normalisation.
     */
    @Override
    public Outcome loss(Event x) {
        State s = x.s();
        long ignore1 = SmarttFixedModel.ignoreLeft(s, x.size());              // Alg. 1 line 5
        long bytes = x.event().kind() == Kind.NACK
                ? Math.min(m.byteMaxValue(), s.acked + SmarttFixedModel.NACK_ACKED_BYTES) : s.acked;
        s.ignoreBytes = ignore1;
        Outcome o;
        if (ignore1 != 0) {
            o = new Outcome(SmarttRules.held(s.cwnd), Rule.IGNORED);
        } else {
            s.triggerQa = true;                                               // line 30
            o = new Outcome(SmarttRules.loss(s.cwnd, x.size()), Rule.LOSS); // line 29
            if (x.windowExpired() && x.windowStarted()) {                     // line 32, Alg. 2
                o = new Outcome(m.rules.quickAdapt(bytes, m.rules.normalisedScaling(x.now(), x.windowEnd(), x.trtt())), Rule.QUICK_ADAPT);
                s.triggerQa = false;
                s.ignoreBytes = x.unacked();
            }
        }
        if (x.windowExpired()) {
            m.roll(s, x.now(), x.trtt());
        } else {
            s.acked = bytes;
        }
        return o;
    }
}
