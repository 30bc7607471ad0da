// SPDX-License-Identifier: Apache-2.0
package uehw.model.nscc;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Each flow's NSCC events as the UEC reference simulator ran them, read from its {@code -debug}
 * output (uet-htsim 40ccb05, htsim_uec), with what the reference printed after each: the window, the
 * delay the case decision used, the pending increase a fulfill applied. Times are read to the
 * picosecond, so the log must be printed with 17 significant digits (the reference prints 6; the
 * project's sim/tools/uet-htsim/full_precision.cpp, preloaded, sets cout's precision and nothing
 * else). The committed CSV form is {@link #write} / {@link #read}.
 *
 * <p>Where each field comes from (uec.cpp line of the print):
 * <ul>
 * <li>ACK: "processAck:" (:1062): time, newly received bytes, raw RTT (0 = no valid sample), ECN
 *     echo (skip), bytes in flight, the delay used, the window after; the pending increase from
 *     the "fulfill_adjustmentx" line before it (:1343), if any.
 * <li>NACK: "processNack nacked:" (:1535) names the packet, whose size is its last
 *     "createSendRecord" (:2207); the RTT is the first "Update delay with sample" after it (:1421,
 *     called from :1573: the sample plus the base RTT, after the NACK lowered it); the time is the
 *     "quickadapt called" line (:1151); bytes in flight are the flow's last printed value (sends
 *     :2095 and :2138 print it after adding the packet, ACKs after their bookkeeping) less the
 *     NACKs and timeouts since. The window after is the next one a send of the flow prints
 *     (-1 when the flow sends nothing before its next event).
 * <li>TIMEOUT: "rtx timer expired for seqno" (:2341), the packet's size as for a NACK.
 * </ul>
 * The NACK's last-hop flag is not printed; it matters only with RCCC on (uec.cpp:1380), and these
 * traces run NSCC alone (-sender_cc_only), so it is recorded as 0.
 */
public final class NsccReferenceTrace {
    public enum Kind { ACK, NACK, TIMEOUT }

    /** A flow as the reference initialised it (uec.cpp:177-183). */
    public record FlowInit(String name, int id, long baseRttPs, long cwnd, long maxwnd) {}

    /**
     * One event of one flow.
     *
     * @param bytes newly received bytes (ACK), the packet's wire size (NACK, TIMEOUT)
     * @param rttPs the RTT sample, 0 = none
     * @param delayPs the delay the ACK's case decision used, as printed (-1 for the others)
     * @param fulfillIncBytes the pending increase a fulfill applied during the ACK (-1: no fulfill)
     * @param cwndAfter the window the reference printed after the event (-1: not printed)
     */
    public record Event(String flow, Kind kind, long timePs, long bytes, long rttPs, boolean ecn, long inFlight,
            long delayPs, long fulfillIncBytes, long cwndAfter) {}

    public final Map<String, String> header = new LinkedHashMap<>();
    public final Map<String, FlowInit> flows = new LinkedHashMap<>();
    public final List<Event> events = new ArrayList<>();
    /** Sends whose printed bytes in flight did not follow from the flow's tracked value (must be 0). */
    public int inFlightMismatches;

    /** A time printed by timeAsUs at 17 digits, back to ps. */
    static long psOfUs(String us) {
        return Math.round(Double.parseDouble(us) * 1_000_000.0);
    }

    private static String after(String line, String key) {
        int i = line.indexOf(key);
        if (i < 0) {
            throw new IllegalArgumentException("no '" + key + "' in: " + line);
        }
        int s = i + key.length();
        while (s < line.length() && line.charAt(s) == ' ') {
            s++;
        }
        int e = s;
        while (e < line.length() && line.charAt(e) != ' ') {
            e++;
        }
        return line.substring(s, e);
    }

    private static long longAfter(String line, String key) {
        return Long.parseLong(after(line, key));
    }

    private static final class FlowTrack {
        final Map<Long, Long> sizeOfSeqno = new HashMap<>();
        long inFlight;
        long pendingFulfill = -1;
        int awaitingCwnd = -1; // index of the NACK/TIMEOUT event whose window the next send prints
    }

    /** Reads a -debug log printed at full precision. */
    public static NsccReferenceTrace fromDebugLog(BufferedReader in) throws IOException {
        NsccReferenceTrace t = new NsccReferenceTrace();
        Map<String, FlowTrack> track = new HashMap<>();
        Map<Integer, long[]> initById = new HashMap<>();
        Map<String, Integer> idOfName = new LinkedHashMap<>();
        String nackFlow = null;
        long nackSeqno = 0;
        long nackRtt = -1;
        String line;
        while ((line = in.readLine()) != null) {
            if (line.startsWith("network_max_unloaded_rtt ")) {
                t.header.put("network_rtt_ps", Long.toString(psOfUs(line.substring(25).trim())));
            } else if (line.startsWith("Initializing static NSCC parameters:")) {
                for (String kv : line.substring(line.indexOf(':') + 1).trim().split(" ")) {
                    int eq = kv.indexOf('=');
                    if (eq > 0) {
                        t.header.put(kv.substring(0, eq).replaceFirst("^_", ""), kv.substring(eq + 1));
                    }
                }
            } else if (line.startsWith("Initialize per-instance NSCC parameters:")) {
                initById.put((int) longAfter(line, "flowid"), new long[] {longAfter(line, "_base_rtt="),
                        longAfter(line, " _cwnd="), longAfter(line, " _maxwnd=")});
            } else if (line.contains(" createSendRecord seqno: ")) {
                String name = line.substring(0, line.indexOf(' '));
                track.computeIfAbsent(name, k -> new FlowTrack()).sizeOfSeqno.put(
                        longAfter(line, "seqno:"), longAfter(line, " size"));
            } else if (line.contains(" sending pkt ") || line.contains(" sending rtx pkt ")) {
                if (line.contains(" flowid ")) {
                    continue; // the _debug_flowid copy of the same send
                }
                String name = line.split(" ")[1];
                FlowTrack f = track.computeIfAbsent(name, k -> new FlowTrack());
                long printed = longAfter(line, " in_flight");
                if (printed != f.inFlight + longAfter(line, " size")) {
                    t.inFlightMismatches++;
                }
                f.inFlight = printed;
                if (f.awaitingCwnd >= 0) {
                    Event e = t.events.get(f.awaitingCwnd);
                    t.events.set(f.awaitingCwnd, new Event(e.flow, e.kind, e.timePs, e.bytes, e.rttPs, e.ecn,
                            e.inFlight, e.delayPs, e.fulfillIncBytes, longAfter(line, " cwnd")));
                    f.awaitingCwnd = -1;
                }
            } else if (line.contains(" fulfill_adjustmentx ")) {
                String[] w = line.split(" ");
                idOfName.putIfAbsent(w[3], Integer.parseInt(w[2]));
                track.computeIfAbsent(w[3], k -> new FlowTrack()).pendingFulfill = longAfter(line, "inc_bytes");
            } else if (line.contains(" flowid ") && line.matches("^[0-9.e+-]+ flowid [0-9]+ Uec_\\S+ .*")) {
                String[] w = line.split(" ");
                idOfName.putIfAbsent(w[3], Integer.parseInt(w[2]));
            } else if (line.startsWith("At ") && line.contains(" processAck: ")) {
                String name = line.split(" ")[2];
                FlowTrack f = track.computeIfAbsent(name, k -> new FlowTrack());
                f.awaitingCwnd = -1;
                long inFlight = longAfter(line, " flightsize");
                t.events.add(new Event(name, Kind.ACK, psOfUs(line.split(" ")[1]), longAfter(line, " newlyrecvd"),
                        longAfter(line, "raw rtt"), longAfter(line, " skip") != 0, inFlight,
                        psOfUs(after(line, " delay")), f.pendingFulfill, longAfter(line, " cwnd")));
                f.pendingFulfill = -1;
                f.inFlight = inFlight;
            } else if (line.contains(" processNack nacked: ")) {
                nackFlow = line.substring(0, line.indexOf(' '));
                nackSeqno = longAfter(line, "nacked:");
                nackRtt = -1;
            } else if (nackFlow != null && line.contains("Didn't find NACKed packet")) {
                nackFlow = null; // uec.cpp:1552: no send record, no window change
            } else if (nackFlow != null && nackRtt < 0 && line.startsWith("Update delay with sample ")) {
                nackRtt = psOfUs(after(line, "sample")) + longAfter(line, "base rtt is");
            } else if (nackFlow != null && line.startsWith("At ") && line.contains(" quickadapt called ")) {
                String name = line.split(" ")[2];
                if (!name.equals(nackFlow)) {
                    throw new IllegalStateException("NACK of " + nackFlow + " and QuickAdapt of " + name);
                }
                FlowTrack f = track.get(name);
                long size = f.sizeOfSeqno.get(nackSeqno);
                f.awaitingCwnd = t.events.size();
                t.events.add(new Event(name, Kind.NACK, psOfUs(line.split(" ")[1]), size,
                        Math.max(nackRtt, 0), false, f.inFlight, -1, -1, -1));
                f.inFlight -= size;
                nackFlow = null;
            } else if (line.contains(" rtx timer expired for seqno ") && !line.contains(" flowid ")) {
                String name = after(line, " flow");
                FlowTrack f = track.get(name);
                long size = f.sizeOfSeqno.get(longAfter(line, "seqno"));
                f.awaitingCwnd = t.events.size();
                t.events.add(new Event(name, Kind.TIMEOUT, psOfUs(after(line, "now time is")), size, 0, false,
                        f.inFlight, -1, -1, -1));
                f.inFlight -= size;
            }
        }
        for (String name : track.keySet()) {
            if (t.events.stream().noneMatch(e -> e.flow.equals(name))) {
                continue;
            }
            Integer id = idOfName.get(name);
            long[] init = id == null ? null : initById.get(id);
            if (init == null) {
                throw new IllegalStateException("flow " + name + ": no flowid line names it, or no init line");
            }
            t.flows.put(name, new FlowInit(name, id, init[0], init[1], init[2]));
        }
        return t;
    }

    private static final String COLUMNS = "flow,kind,time_ps,bytes,rtt_ps,ecn,in_flight,delay_ps,fulfill_inc_bytes,cwnd_after";

    /** The CSV: '#' comment lines (the given provenance, the header, the flows), then one row an event. */
    public void write(PrintWriter out, List<String> provenance) {
        for (String p : provenance) {
            out.println("# " + p);
        }
        header.forEach((k, v) -> out.println("#header " + k + "=" + v));
        for (FlowInit f : flows.values()) {
            out.println("#flow " + f.name + " id=" + f.id + " base_rtt_ps=" + f.baseRttPs + " cwnd=" + f.cwnd
                    + " maxwnd=" + f.maxwnd);
        }
        out.println(COLUMNS);
        for (Event e : events) {
            out.println(e.flow + "," + e.kind + "," + e.timePs + "," + e.bytes + "," + e.rttPs + "," + (e.ecn ? 1 : 0)
                    + "," + e.inFlight + "," + e.delayPs + "," + e.fulfillIncBytes + "," + e.cwndAfter);
        }
    }

    public static NsccReferenceTrace read(BufferedReader in) throws IOException {
        NsccReferenceTrace t = new NsccReferenceTrace();
        String line;
        while ((line = in.readLine()) != null) {
            if (line.startsWith("#header ")) {
                String kv = line.substring(8);
                t.header.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
            } else if (line.startsWith("#flow ")) {
                String name = line.split(" ")[1];
                t.flows.put(name, new FlowInit(name, (int) longAfter(line, "id="), longAfter(line, "base_rtt_ps="),
                        longAfter(line, " cwnd="), longAfter(line, " maxwnd=")));
            } else if (!line.startsWith("#") && !line.equals(COLUMNS) && !line.isEmpty()) {
                String[] c = line.split(",");
                t.events.add(new Event(c[0], Kind.valueOf(c[1]), Long.parseLong(c[2]), Long.parseLong(c[3]),
                        Long.parseLong(c[4]), c[5].equals("1"), Long.parseLong(c[6]), Long.parseLong(c[7]),
                        Long.parseLong(c[8]), Long.parseLong(c[9])));
            }
        }
        return t;
    }

    public long headerLong(String key) {
        String v = header.get(key);
        if (v == null) {
            throw new IllegalStateException("trace header has no " + key);
        }
        return Long.parseLong(v);
    }
}
