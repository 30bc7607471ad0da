// SPDX-License-Identifier: Apache-2.0
package uehw.model.smartt;

import static uehw.model.smartt.SmarttFixedModel.F;

import uehw.model.smartt.SmarttFixedModel.Rule;
import uehw.model.smartt.SmarttFixedModel.State;

/** The paper's profile: smartt-reps.txt Alg. 1-3 as printed, in the RTL's rules. */
final class SmarttPaperProfile implements SmarttProfile {
    private final SmarttFixedModel m;

    SmarttPaperProfile(SmarttFixedModel m) {
        this.m = m;
    }

    @Override
    public Outcome ack(Event x) {
        State s = x.s();
        long size = x.size();
        boolean ecn = x.event().ecn();
        long acked1 = m.ackedWith(s, size);                                   // Alg. 1 line 4
        long ignore1 = SmarttFixedModel.ignoreLeft(s, size);                  // line 5
        if (ignore1 != 0) {                                                   // lines 8-9
            s.acked = acked1;
            s.ignoreBytes = ignore1;
            return new Outcome(SmarttRules.held(s.cwnd), Rule.IGNORED);
        }
        s.ignoreBytes = 0;
        boolean canDecrease = m.waitToDecrease(s, ecn);                       // Sec. 3.6.1, Alg. 1 line 12
        // QuickAdapt, Alg. 2 with acked including this ACK (line 4 runs first).
        boolean adapt = x.expired() && s.triggerQa && s.qaStarted;          // Alg. 2 lines 3-4
        long c1 = adapt ? m.rules.quickAdapt(acked1, m.rules.scalingCoefficient()) : s.cwnd; // Alg. 2 line 7
        if (adapt) {
            s.triggerQa = false;
            s.ignoreBytes = x.unacked();                                      // Alg. 2 line 8
        }
        if (x.expired()) {                                                    // Alg. 2 lines 11-12
            m.roll(s, x.now(), x.trtt());
        } else {
            s.acked = acked1;
        }
        // FastIncrease, Alg. 3.
        boolean clean = m.clean(x.rtt(), ecn);                                // line 2
        long count1 = clean ? Math.min(m.byteMaxValue(), s.fiCount + size) : 0; // lines 3, 10
        boolean fast = clean && (count1 > (c1 >>> F) || s.fiActive);          // line 4
        s.fiCount = count1;
        s.fiActive = fast;                                                    // lines 6, 11
        if (fast) {
            m.countFastIncrease();
        }
        if (adapt || fast) {                                                  // Alg. 1 lines 15-16
            return new Outcome(fast ? m.rules.fastIncrease(c1) : c1, adapt ? Rule.QUICK_ADAPT : Rule.FAST_INCREASE);
        }
        return m.rules.cases(s.cwnd, size, x.rtt(), x.trtt(), ecn, canDecrease, false);
    }

    @Override
    public Outcome loss(Event x) {
        State s = x.s();
        long qaValue = m.rules.quickAdapt(s.acked, m.rules.scalingCoefficient());        // Alg. 2 line 7, from the bytes before it
        long ignore1 = SmarttFixedModel.ignoreLeft(s, x.size());              // line 5
        long c1 = SmarttRules.loss(s.cwnd, x.size());                   // line 29
        s.triggerQa = true;                                                   // line 30
        boolean callQa = ignore1 == 0;                                        // line 32
        boolean adapt = callQa && x.expired() && s.qaStarted;
        s.ignoreBytes = ignore1;
        Outcome o = new Outcome(c1, Rule.LOSS);
        if (adapt) {
            s.triggerQa = false;
            s.ignoreBytes = x.unacked();
            o = new Outcome(qaValue, Rule.QUICK_ADAPT);
        }
        if (callQa && x.expired()) {
            m.roll(s, x.now(), x.trtt());
        }
        return o;
    }
}
