// SPDX-License-Identifier: Apache-2.0
package uehw.bench.trim;

import java.util.ArrayDeque;

import uehw.model.trim.TrimQueueModel;

/**
 * The trimming queue's clocks after the admission, as docs/trimming-queue.md ("Output, RED and
 * ECN", "Latency and throughput") describes them: when each packet is dequeued, when a trimmed
 * header leaves the trim queue, and on which clock each output beat is valid and taken, for any
 * m_axis ready pattern. {@link TrimQueueModel} says what happens to each frame (admission, RED,
 * marks, trimmed bytes) at the edges it is given; this class says at which edges, so that the two
 * together predict the RTL clock for clock without it (the network's ports run them in place of
 * the Verilated queue, uehw.netsim.rtl.TrimQueueEngine). TrimQueueTest checks every predicted edge
 * against the RTL under random traffic and backpressure.
 *
 * <p>The stages it follows, each a register or FIFO of the block (first-word-fall-through FIFOs
 * show a push from the next clock; the descriptor and trim FIFOs, which read a RAM, from the clock
 * after that):
 * <ul>
 *   <li>a descriptor is pushed the clock after its admission edge, and reaches the dequeue through
 *       its FIFO, a skid register and the head register;</li>
 *   <li>one dequeue a clock, control first; a data packet also needs a RED threshold (an 8-deep
 *       FIFO refilled through a three-clock draw pipeline) and each needs a place in its reader's
 *       two-entry command FIFO;</li>
 *   <li>each reader reads a beat a clock while its 8-beat prefetch FIFO has a place for every read
 *       in flight; a beat reaches the prefetch FIFO two clocks after its read; a packet dropped at
 *       dequeue is skipped in the clock its command is taken;</li>
 *   <li>a trimmed header leaves the trim queue when its snapshot (pushed one clock after the
 *       admission) and its checksum (four clocks after) are both there, through a skid register,
 *       into a serializer that writes a beat a clock into a two-beat FIFO;</li>
 *   <li>strict priority at packet boundaries (control, trimmed, data), the choice made when the
 *       output register takes a first beat; the output register holds its beat while m_axis is not
 *       ready.</li>
 * </ul>
 */
public final class TrimQueueTiming {
    /** A beat on its way to the output: its queue and whether it ends its packet. */
    private record Beat(int queue, boolean last) {
    }

    /** What one clock did: its dequeue edge events and the output during it. */
    public record Clock(boolean controlStart, boolean dataStart, boolean trimPop, boolean outputValid, boolean outputLast,
                        int outputQueue, boolean outputTaken) {
        /** The dequeue as TrimQueueModel takes it (null if none), for the model to decide RED itself. */
        public TrimQueueModel.Dequeue dequeue() {
            if (!controlStart && !dataStart && !trimPop) {
                return null;
            }
            return TrimQueueModel.Dequeue.predicted(controlStart || dataStart,
                    controlStart ? TrimQueueModel.QUEUE_CONTROL : TrimQueueModel.QUEUE_DATA, trimPop);
        }
    }

    public static final int QUEUE_TRIMMED = 1;
    private static final int COMMAND_DEPTH = 2;
    private static final int PREFETCH_DEPTH = 8;
    private static final int TRIM_PREFETCH_DEPTH = 2;
    private static final int THRESHOLD_DEPTH = 8;
    /** Clocks from a trimmed frame's admission edge to its checksum's push (TrimQueue.trimBuildClocks). */
    private static final int CHECKSUM_AFTER = uehw.hw.trim.TrimQueue.trimBuildClocks();

    /** A descriptor FIFO that reads a RAM (SpinalHDL StreamFifo, latency 2), then a skid and a head register. */
    private static final class DescriptorPath {
        final ArrayDeque<Integer> ram = new ArrayDeque<>();
        Integer fifoOut, skid, head;
        Integer pushNext; // admitted at the last edge: pushed at the next

        boolean headValid() {
            return head != null;
        }

        void edge(boolean start) {
            boolean headTakes = head == null || start;
            Integer skidOut = skid != null ? skid : fifoOut;
            boolean skidTakes = skid == null; // the FIFO's pop ready
            boolean ramRead = fifoOut == null || skidTakes;
            Integer nextSkid = headTakes ? null : skidOut;
            head = headTakes ? skidOut : head;
            skid = nextSkid;
            if (ramRead) {
                fifoOut = ram.poll();
            }
            if (pushNext != null) {
                ram.add(pushNext);
                pushNext = null;
            }
        }

        boolean idle() {
            return ram.isEmpty() && fifoOut == null && skid == null && head == null && pushNext == null;
        }
    }

    /** A packet reader: command FIFO, read pointer, two-clock read pipeline and prefetch FIFO with credits. */
    private static final class Reader {
        final int queue;
        final ArrayDeque<int[]> commands = new ArrayDeque<>(); // {beats, skip}
        boolean active;
        int remaining;
        int credits = PREFETCH_DEPTH;
        Beat read1, read2;
        final ArrayDeque<Beat> prefetch = new ArrayDeque<>();
        boolean issue;
        boolean commandTaken;

        Reader(int queue) {
            this.queue = queue;
        }

        boolean commandReady() {
            return commands.size() < COMMAND_DEPTH;
        }

        void combinational() {
            issue = active && credits > 0;
            boolean issueLast = issue && remaining == 0;
            commandTaken = !commands.isEmpty() && (!active || issueLast);
        }

        void edge(boolean popped, int[] pushed) {
            Beat readNow = issue ? new Beat(queue, remaining == 0) : null;
            if (issue) {
                remaining--;
                if (remaining < 0) {
                    active = false;
                }
            }
            if (commandTaken) {
                int[] c = commands.poll();
                if (c[1] == 0) {
                    active = true;
                    remaining = c[0] - 1;
                }
            }
            if (popped) {
                prefetch.poll();
            }
            if (read2 != null) {
                prefetch.add(read2);
            }
            read2 = read1;
            read1 = readNow;
            credits += (popped ? 1 : 0) - (issue ? 1 : 0);
            if (pushed != null) {
                commands.add(pushed);
            }
        }

        boolean idle() {
            return commands.isEmpty() && !active && read1 == null && read2 == null && prefetch.isEmpty();
        }
    }

    private final int bytesPerBeat;
    private final DescriptorPath dataPath = new DescriptorPath();
    private final DescriptorPath controlPath = new DescriptorPath();
    private final Reader dataReader = new Reader(TrimQueueModel.QUEUE_DATA);
    private final Reader controlReader = new Reader(TrimQueueModel.QUEUE_CONTROL);

    // RED thresholds drawn ahead
    private int thresholdCredits = THRESHOLD_DEPTH;
    private boolean draw1, draw2, draw3;
    private int thresholds;

    // the trim queue
    private final ArrayDeque<Integer> trimRam = new ArrayDeque<>();
    private Integer trimOut;
    private int checksumRam; // checksums in their RAM (their values do not matter here)
    private boolean checksumOut;
    private Integer trimSkid;
    private Integer trimPushNext;
    private final ArrayDeque<Long> checksumPipeline = new ArrayDeque<>(); // admission edges of headers being summed
    private boolean serializing, serialLast;
    private int serialBeat, serialLastBeat;
    private final ArrayDeque<Beat> trimPrefetch = new ArrayDeque<>();

    // the output
    private boolean busy;
    private int locked;
    private Beat output;

    private long edge;
    private Clock pending;
    // combinational values of the clock being decided
    private boolean outputReadyNow, beatFire, serialFire, headerReady, joinValid, trimJoin;
    private int select;

    public TrimQueueTiming(int bytesPerBeat) {
        this.bytesPerBeat = bytesPerBeat;
    }

    /** As the RTL is after reset plus a few idle clocks: the RED thresholds drawn. */
    public TrimQueueTiming settled() {
        for (int i = 0; i < 16; i++) {
            decide(false);
            edge(false, -1, 0);
        }
        return this;
    }

    private int beats(int length) {
        return (length + bytesPerBeat - 1) / bytesPerBeat;
    }

    /**
     * The clock before the next edge, with m_axis ready as given: what is dequeued and popped at
     * that edge and what the output shows during the clock. Call {@link #edge} next.
     */
    public Clock decide(boolean outputReady) {
        if (pending != null) {
            throw new IllegalStateException("decide twice without an edge");
        }
        // the dequeue, control first
        boolean controlStart = controlPath.headValid() && controlReader.commandReady();
        boolean dataStart = !controlStart && dataPath.headValid() && dataReader.commandReady() && thresholds > 0;
        // the trim queue: snapshot and checksum joined, through a skid register, into the serializer
        serialFire = serializing && trimPrefetch.size() < TRIM_PREFETCH_DEPTH;
        headerReady = !serializing || serialFire && serialLast;
        joinValid = trimOut != null && checksumOut;
        boolean trimPop = (joinValid || trimSkid != null) && headerReady;
        trimJoin = joinValid && trimSkid == null;
        dataReader.combinational();
        controlReader.combinational();
        // strict priority at packet boundaries
        boolean[] valid = {!controlReader.prefetch.isEmpty(), !trimPrefetch.isEmpty(), !dataReader.prefetch.isEmpty()};
        int choice = valid[0] ? 0 : valid[1] ? 1 : 2;
        select = busy ? locked : choice;
        outputReadyNow = output == null || outputReady;
        beatFire = valid[select] && outputReadyNow;
        pending = new Clock(controlStart, dataStart, trimPop, output != null, output != null && output.last(),
                output == null ? -1 : output.queue(), output != null && outputReady);
        return pending;
    }

    /**
     * The edge after {@link #decide}, with what {@code model} decided at it: the data dequeue's drop
     * and the frame admitted ({@code admitted}, the outcome its clock returned, or null).
     */
    public void edge(boolean dropped, TrimQueueModel model, TrimQueueModel.Outcome admitted) {
        if (admitted == TrimQueueModel.Outcome.DATA) {
            edge(dropped, TrimQueueModel.QUEUE_DATA, model.lastAdmittedData.length);
        } else if (admitted == TrimQueueModel.Outcome.CONTROL) {
            edge(dropped, TrimQueueModel.QUEUE_CONTROL, model.expectedControl.peekLast().length);
        } else if (admitted == TrimQueueModel.Outcome.TRIM) {
            edge(dropped, QUEUE_TRIMMED, model.expectedTrimmed.peekLast().length);
        } else {
            edge(dropped, -1, 0);
        }
    }

    /**
     * The edge after {@link #decide}: {@code dropped} is the data dequeue's RED drop (if any);
     * {@code admittedQueue} the queue a frame was admitted to at this edge (-1 for none, else
     * QUEUE_CONTROL, QUEUE_TRIMMED or QUEUE_DATA) with the bytes it will send.
     */
    public void edge(boolean dropped, int admittedQueue, int admittedBytes) {
        Clock c = pending;
        if (c == null) {
            throw new IllegalStateException("edge without decide");
        }
        pending = null;
        // the arbiter and the output register
        ArrayDeque<Beat> source = select == 0 ? controlReader.prefetch : select == 1 ? trimPrefetch : dataReader.prefetch;
        Beat beat = beatFire ? source.peek() : null;
        if (outputReadyNow) {
            output = beat;
        }
        if (beatFire) {
            busy = !beat.last();
            locked = select;
        }
        // readers (their prefetch FIFOs popped by the arbiter)
        int[] dataCommand = c.dataStart() ? new int[] {beats(dataPath.head), dropped ? 1 : 0} : null;
        int[] controlCommand = c.controlStart() ? new int[] {beats(controlPath.head), 0} : null;
        controlReader.edge(beatFire && select == 0, controlCommand);
        dataReader.edge(beatFire && select == 2, dataCommand);
        // descriptor paths
        controlPath.edge(c.controlStart());
        dataPath.edge(c.dataStart());
        // RED: a draw issued while a threshold place is free reaches the FIFO three edges later
        boolean drawIssue = thresholdCredits > 0;
        thresholds += (draw3 ? 1 : 0) - (c.dataStart() ? 1 : 0);
        draw3 = draw2;
        draw2 = draw1;
        draw1 = drawIssue;
        thresholdCredits += (c.dataStart() ? 1 : 0) - (drawIssue ? 1 : 0);
        // the trim queue: serializer, skid register, the two FIFOs' RAM reads, their pushes
        if (beatFire && select == 1) {
            trimPrefetch.poll();
        }
        Integer header = trimSkid != null ? trimSkid : trimOut;
        if (serialFire) {
            trimPrefetch.add(new Beat(QUEUE_TRIMMED, serialLast));
            if (serialLast) {
                serializing = false;
            }
            serialBeat++;
            serialLast = serialBeat == serialLastBeat;
        }
        if (c.trimPop()) {
            serializing = true;
            serialBeat = 0;
            serialLastBeat = (header - 1) / bytesPerBeat;
            serialLast = serialLastBeat == 0;
        }
        trimSkid = headerReady ? null : trimSkid != null ? trimSkid : joinValid ? trimOut : null;
        if (trimOut == null || trimJoin) {
            trimOut = trimRam.poll();
        }
        if (!checksumOut || trimJoin) {
            checksumOut = checksumRam > 0;
            if (checksumOut) {
                checksumRam--;
            }
        }
        if (trimPushNext != null) {
            trimRam.add(trimPushNext);
            trimPushNext = null;
        }
        while (!checksumPipeline.isEmpty() && checksumPipeline.peek() == edge - CHECKSUM_AFTER) {
            checksumPipeline.poll();
            checksumRam++;
        }
        // admissions at this edge: pushed at the next one (a trimmed header's checksum four edges later)
        if (admittedQueue == TrimQueueModel.QUEUE_DATA) {
            dataPath.pushNext = admittedBytes;
        } else if (admittedQueue == TrimQueueModel.QUEUE_CONTROL) {
            controlPath.pushNext = admittedBytes;
        } else if (admittedQueue == QUEUE_TRIMMED) {
            trimPushNext = admittedBytes;
            checksumPipeline.add(edge);
        }
        edge++;
    }

    /** Nothing admitted is still inside: the queue is empty and the output idle. */
    public boolean idle() {
        return dataPath.idle() && controlPath.idle() && dataReader.idle() && controlReader.idle() && trimRam.isEmpty()
                && trimOut == null && trimSkid == null && trimPushNext == null && checksumPipeline.isEmpty() && checksumRam == 0
                && !checksumOut && !serializing && trimPrefetch.isEmpty() && output == null;
    }
}
