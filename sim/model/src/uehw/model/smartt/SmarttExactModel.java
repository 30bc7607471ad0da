// SPDX-License-Identifier: Apache-2.0
package uehw.model.smartt;

import uehw.model.smartt.SmarttFixedModel.Event;
import uehw.model.smartt.SmarttFixedModel.Kind;
import uehw.model.smartt.SmarttFixedModel.Rule;

/**
 * The exact reference of one SMaRTT window update (smartt-reps.txt Alg. 1-3) in double precision:
 * the paper's formulas with real division, the gains as the real numbers the CSRs hold, no
 * truncation. The same choices as the hardware where the paper leaves one open (docs/smartt.md).
 * It is used to bound the fixed-point error of one update from the same state.
 */
public final class SmarttExactModel {
    /** A flow's state in real numbers. */
    public static final class State {
        public double cwnd;
        public double acked;
        public long qaEnd;
        public boolean qaStarted;
        public boolean triggerQa;
        public double ignoreBytes;
        public double fiCount;
        public boolean fiActive;
        public double wtd;
        public long windowEnd;
        public boolean windowStarted;

        /** The real value of a fixed-point state. */
        public static State of(SmarttFixedModel.State s) {
            State r = new State();
            r.cwnd = s.cwnd / (double) (1 << SmarttFixedModel.F);
            r.acked = s.acked;
            r.qaEnd = s.qaEnd;
            r.qaStarted = s.qaStarted;
            r.triggerQa = s.triggerQa;
            r.ignoreBytes = s.ignoreBytes;
            r.fiCount = s.fiCount;
            r.fiActive = s.fiActive;
            r.wtd = s.wtd / (double) (1 << SmarttParams.WTD_STATE_FRAC);
            r.windowEnd = s.windowEnd;
            r.windowStarted = s.windowStarted;
            return r;
        }
    }

    /** The new window (bytes) and the rule that made it. */
    public record Result(double cwnd, Rule rule) {
    }

    private final SmarttParams p;
    private final int timeWidth;

    public SmarttExactModel(SmarttParams params, int timeWidth) {
        this.p = params;
        this.timeWidth = timeWidth;
    }

    private double clamp(double c) {
        return Math.max(Math.min(c, p.maxCwnd), p.mtuEff()); // Alg. 1 line 36
    }

    /** Applies one event to s (changed in place). */
    public Result apply(State s, Event e) {
        double mtu = p.mtuEff();
        double size = Math.min(e.size(), mtu);
        double brtt = p.baseRttEff();
        double trtt = p.targetRtt(); // the CSR product; the window rules below are exact
        long mask = (1L << timeWidth) - 1;
        boolean expired = !s.qaStarted || ((e.now() - s.qaEnd) & mask) < (1L << (timeWidth - 1));
        double qa = SmarttParams.real(p.qaScaling);
        double before = s.cwnd;
        if (e.kind() == Kind.INIT) {
            throw new IllegalArgumentException("INIT has no window rule");
        }
        if (p.referenceProfile) {
            // the reference profile's measurement window (SmarttFixedModel.State.windowEnd)
            boolean windowExpired = !s.windowStarted || ((e.now() - s.windowEnd) & mask) < (1L << (timeWidth - 1));
            boolean started = s.windowStarted;
            long end = s.windowEnd;
            if (windowExpired) {
                s.windowEnd = (e.now() + p.targetRtt()) & mask;
                s.windowStarted = true;
            }
            return e.kind() == Kind.ACK ? ackReference(s, e, windowExpired, started, end)
                    : lossReference(s, e, windowExpired, started, end);
        }
        if (e.kind() != Kind.ACK) {
            // Alg. 1 lines 28-34
            double ignore1 = Math.max(0, s.ignoreBytes - size);
            double c = Math.max(0, s.cwnd - size);
            s.triggerQa = true;
            Rule rule = Rule.LOSS;
            s.ignoreBytes = ignore1;
            if (ignore1 == 0 && expired) {
                if (s.qaStarted) {
                    c = Math.max(s.acked, mtu) * qa;
                    s.triggerQa = false;
                    s.ignoreBytes = p.unackedFromWindow ? Math.floor(before) : e.unacked(); // Alg. 2 line 8
                    rule = Rule.QUICK_ADAPT;
                }
                s.qaEnd = (e.now() + p.targetRtt()) & mask;
                s.qaStarted = true;
                s.acked = 0;
            }
            s.cwnd = clamp(c);
            return new Result(s.cwnd, rule);
        }
        double rtt = Math.max(e.rtt(), brtt);
        double acked1 = s.acked + size;
        double ignore1 = Math.max(0, s.ignoreBytes - size);
        if (ignore1 > 0) {
            s.acked = acked1;
            s.ignoreBytes = ignore1;
            s.cwnd = clamp(s.cwnd);
            return new Result(s.cwnd, Rule.IGNORED);
        }
        s.ignoreBytes = 0;
        double alpha = Math.scalb(1.0, -p.wtdAlphaShift);
        s.wtd = alpha * (e.ecn() ? 1 : 0) + (1 - alpha) * s.wtd;               // Sec. 3.6.1
        boolean canDecrease = !p.wtdEnable || s.wtd >= p.wtdThreshold / (double) (1 << SmarttParams.WTD_FRAC);
        boolean adapt = expired && s.triggerQa && s.qaStarted;                 // Alg. 2
        double c1 = adapt ? Math.max(acked1, mtu) * qa : s.cwnd;
        if (adapt) {
            s.triggerQa = false;
            s.ignoreBytes = p.unackedFromWindow ? Math.floor(before) : e.unacked(); // Alg. 2 line 8
        }
        if (expired) {
            s.qaEnd = (e.now() + p.targetRtt()) & mask;
            s.qaStarted = true;
            s.acked = 0;
        } else {
            s.acked = acked1;
        }
        boolean clean = rtt <= brtt + p.fastIncreaseCloseness && !e.ecn();   // Alg. 3
        s.fiCount = clean ? s.fiCount + size : 0;
        boolean fast = clean && (s.fiCount > c1 || s.fiActive);
        s.fiActive = fast;
        if (fast) {
            c1 += SmarttParams.real(p.fastIncreaseK) * mtu;
        }
        if (adapt || fast) {
            s.cwnd = clamp(c1);
            return new Result(s.cwnd, adapt ? Rule.QUICK_ADAPT : Rule.FAST_INCREASE);
        }
        double c = s.cwnd;
        Rule rule;
        if (e.ecn()) {
            if (!canDecrease) {
                rule = Rule.HELD;
            } else {
                double fair = c / p.bdpEff() * SmarttParams.real(p.fd) * size;                 // Eq. 1
                if (rtt <= trtt) {
                    c -= fair;
                    rule = Rule.FAIR_DECREASE;
                } else {
                    double md = Math.min(size, (rtt - trtt) / rtt * p.mdEff() / (1 << SmarttParams.GAIN_FRAC) * size); // Eq. 2
                    c -= Math.min(mtu, md + fair);
                    rule = Rule.MULTIPLICATIVE_DECREASE;
                }
            }
        } else {
            double fair = size / c * mtu * SmarttParams.real(p.fi);                          // Eq. 3
            if (rtt > trtt) {
                c += fair;
                rule = Rule.FAIR_INCREASE;
            } else {
                double g = Math.min(1.0, (trtt - rtt) / rtt);
                c += Math.min(size, g * size / c * mtu * SmarttParams.real(p.mi)) + fair;    // Eq. 4
                rule = Rule.MULTIPLICATIVE_INCREASE;
            }
        }
        s.cwnd = clamp(Math.max(0, c));
        return new Result(s.cwnd, rule);
    }

    /** Reference profile: QuickAdapt's window from bytes normalised to one target RTT. */
    private double quickAdaptWindow(long end, double bytes, long now) {
        long mask = (1L << timeWidth) - 1;
        double trtt = p.targetRtt();
        double d = Math.max(1, ((now - end) & mask) + trtt);
        return Math.max(bytes * trtt / d, p.mtuEff()) * SmarttParams.real(p.qaScaling);
    }

    private void roll(State s, long now) {
        s.qaEnd = (now + p.targetRtt()) & ((1L << timeWidth) - 1);
        s.qaStarted = true;
        s.acked = 0;
    }

    /** The reference profile's ACK (docs/smartt.md), exact: whole bytes as the authors' window. */
    private Result ackReference(State s, Event e, boolean expired, boolean started, long end) {
        double mtu = p.mtuEff();
        double size = Math.min(e.size(), mtu);
        double brtt = p.baseRttEff();
        double rtt = Math.max(e.rtt(), brtt);
        double trtt = p.targetRtt();
        double acked1 = s.acked + size;
        double ignore1 = Math.max(0, s.ignoreBytes - size);
        boolean ignoring = ignore1 > 0;
        boolean clean = rtt <= brtt + p.fastIncreaseCloseness && !e.ecn();
        boolean fast = clean && (s.fiActive || size > s.fiCount);
        s.fiCount = !clean ? Math.floor(s.cwnd) : fast ? 0 : s.fiCount - size;
        s.fiActive = fast;
        boolean adapt = !ignoring && expired && started && s.triggerQa;
        double before = s.cwnd;
        double c1 = s.cwnd;
        s.ignoreBytes = ignore1;
        if (adapt) {
            c1 = quickAdaptWindow(end, acked1, e.now());
            s.triggerQa = false;
            s.ignoreBytes = p.unackedFromWindow ? Math.floor(before) : e.unacked();
        }
        if (expired) {
            roll(s, e.now());
        } else {
            s.acked = acked1;
        }
        Rule rule;
        double c = c1;
        if (e.ecn() && (ignoring || adapt)) {
            rule = adapt ? Rule.QUICK_ADAPT : Rule.IGNORED;
        } else {
            double alpha = Math.scalb(1.0, -p.wtdAlphaShift);
            s.wtd = alpha * (e.ecn() ? 1 : 0) + (1 - alpha) * s.wtd;
            boolean canDecrease = !p.wtdEnable || s.wtd >= p.wtdThreshold / (double) (1 << SmarttParams.WTD_FRAC);
            if (fast) {
                c = c1 + SmarttParams.real(p.fastIncreaseK) * mtu;
                rule = adapt ? Rule.QUICK_ADAPT : Rule.FAST_INCREASE;
            } else if (adapt && p.hardwareLag) {
                rule = Rule.QUICK_ADAPT; // the fixed law drops the case after QuickAdapt
            } else if (rtt == trtt) {
                rule = adapt ? Rule.QUICK_ADAPT : Rule.AT_TARGET;
            } else {
                double divisor = c1;
                Rule r;
                if (e.ecn()) {
                    if (!canDecrease) {
                        r = Rule.HELD;
                    } else {
                        double fair = c1 / p.bdpEff() * SmarttParams.real(p.fd) * size;
                        if (rtt < trtt) {
                            c -= fair;
                            r = Rule.FAIR_DECREASE;
                        } else {
                            double md = (rtt - trtt) / rtt * p.mdEff() / (1 << SmarttParams.GAIN_FRAC) * size;
                            c -= Math.min(mtu, md + fair);
                            r = Rule.MULTIPLICATIVE_DECREASE;
                        }
                    }
                } else if (rtt > trtt) {
                    c += size / divisor * mtu * SmarttParams.real(p.fi);
                    r = Rule.FAIR_INCREASE;
                } else {
                    double g = Math.min(1.0, (trtt - rtt) / rtt);
                    c += Math.min(size, g * size / divisor * mtu * SmarttParams.real(p.mi));
                    // the authors' code: the Fair Increase from the window MI made
                    c += size / (p.hardwareLag ? divisor : c) * mtu * SmarttParams.real(p.fi);
                    r = Rule.MULTIPLICATIVE_INCREASE;
                }
                rule = adapt ? Rule.QUICK_ADAPT : r;
            }
        }
        s.cwnd = Math.floor(clamp(Math.max(0, c)));
        return new Result(s.cwnd, rule);
    }

    /** The reference profile's NACK or timeout, exact. */
    private Result lossReference(State s, Event e, boolean expired, boolean started, long end) {
        double size = Math.min(e.size(), p.mtuEff());
        double ignore1 = Math.max(0, s.ignoreBytes - size);
        double bytes = s.acked + (e.kind() == Kind.NACK ? SmarttFixedModel.NACK_ACKED_BYTES : 0);
        s.ignoreBytes = ignore1;
        double c = s.cwnd;
        Rule rule = Rule.IGNORED;
        if (ignore1 == 0) {
            c = Math.max(0, s.cwnd - size);
            s.triggerQa = true;
            rule = Rule.LOSS;
            if (expired && started) {
                c = quickAdaptWindow(end, bytes, e.now());
                s.triggerQa = false;
                s.ignoreBytes = p.unackedFromWindow ? Math.floor(s.cwnd) : e.unacked();
                rule = Rule.QUICK_ADAPT;
            }
        }
        if (expired) {
            roll(s, e.now());
        } else {
            s.acked = bytes;
        }
        s.cwnd = Math.floor(clamp(c));
        return new Result(s.cwnd, rule);
    }
}
