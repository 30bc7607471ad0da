// SPDX-License-Identifier: Apache-2.0
package uehw.hw.dart

import spinal.core._
import spinal.lib._
import spinal.lib.bus.amba4.axilite._
import spinal.lib.bus.misc.SizeMapping
import spinal.lib.bus.regif._
import uehw.hw.common._

/** One packet from the route lookup: transport-header fields plus the routed port's queue state. */
case class DartPacket(cfg: DartDftConfig) extends Bundle {
  /** Flow / RDMA message id, the DFT key (dart.txt Sec. IV-A). */
  val flowId = UInt(cfg.flowIdWidth bits)
  /** First packet of the message: only it may allocate an entry. */
  val start = Bool()
  /** Last packet of the message: frees the flow's entry after it is used. */
  val end = Bool()
  /** Deflection tokens left (the header's token field); 0 for long flows (Sec. IV-B). */
  val tokens = UInt(cfg.tokenWidth bits)
  /** Output port chosen by the route lookup (ECMP). */
  val routedPort = UInt(cfg.portWidth bits)
  /** Bytes queued at the routed port (its egress queue occupancy, the "queue position" of Sec. IV-B). */
  val queueBytes = UInt(cfg.occupancyWidth bits)
  val meta = Bits(cfg.metaWidth bits)
}

/** The decision for one packet, in input order. */
case class DartDecision(cfg: DartDftConfig) extends Bundle {
  val flowId = UInt(cfg.flowIdWidth bits)
  val meta = Bits(cfg.metaWidth bits)
  /** Output port: the DFT entry's on a hit, the newly drawn one on an allocation, else the routed one. */
  val port = UInt(cfg.portWidth bits)
  /** Token count to write back into the header. */
  val tokens = UInt(cfg.tokenWidth bits)
  /** The packet leaves on a DFT port (tableHit || allocated). */
  val deflected = Bool()
  /** The flow was in the DFT. */
  val tableHit = Bool()
  /** This start packet allocated an entry (and was deflected). */
  val allocated = Bool()
  /** This end packet released its flow's entry. */
  val freed = Bool()
}

class DartDftIo(cfg: DartDftConfig) extends Bundle {
  val pkt = slave(Stream(DartPacket(cfg)))
  /** One decision per packet, in order, `DartDft.latency` clocks after it was accepted when not back-pressured. */
  val decision = master(Stream(DartDecision(cfg)))
  val ctrl = slave(AxiLite4(AxiLite4Config(addressWidth = 8, dataWidth = 32)))
}

/** The packet fields the decision needs, carried through the pipeline. */
case class DartCarried(cfg: DartDftConfig) extends Bundle {
  val flowId = UInt(cfg.flowIdWidth bits)
  val end = Bool()
  val tokens = UInt(cfg.tokenWidth bits)
  val routedPort = UInt(cfg.portWidth bits)
  val meta = Bits(cfg.metaWidth bits)
}

/** Stage 0's results about the packet, taken against the CSRs as they are in the clock before it leaves stage 0. */
case class DartChecks() extends Bundle {
  /** The routed port is >= P. */
  val badPort = Bool()
  /** ENABLE, a start packet, a good port, queueBytes > THRESHOLD (dart.txt Sec. IV-B). */
  val candidateStart = Bool()
  /** tokens >= MIN_TOKENS and tokens > 0. */
  val hasTokens = Bool()
  /** No allowed port other than the routed one. */
  val noCandidate = Bool()
}

/** A packet in stage 1: what the port draw needs. */
case class DartDraw(cfg: DartDftConfig) extends Bundle {
  val carried = DartCarried(cfg)
  val checks = DartChecks()
  /** The routed port is an allowed deflection port (it is skipped in the draw), and its rank among them. */
  val routedAllowed = Bool()
  val routedRank = UInt(cfg.portWidth bits)
  /** Allowed ports other than the routed one. */
  val candidates = UInt(cfg.portCountWidth bits)
  /** The top bits of the packet's PRNG draw. */
  val draw = UInt(32 - DartDft.drawDroppedBits bits)
}

/** A packet in stage 2: the draw scaled to [0, candidates). */
case class DartScaled(cfg: DartDftConfig) extends Bundle {
  val carried = DartCarried(cfg)
  val checks = DartChecks()
  val routedAllowed = Bool()
  val routedRank = UInt(cfg.portWidth bits)
  val index = UInt(cfg.portWidth bits)
}

/** A packet in stage 3: the CAM compare and the candidate port. */
case class DartLookup(cfg: DartDftConfig) extends Bundle {
  val carried = DartCarried(cfg)
  val checks = DartChecks()
  /** One-hot DFT hit vector against the table of the clock in stage 2, and whether it is not zero (registered in stage 2). */
  val liveHits = Bits(cfg.entries bits)
  val liveAny = Bool()
  /** The port of the entry liveHits points to (zero when none), registered in stage 2. */
  val livePort = UInt(cfg.portWidth bits)
  /** The port this packet would be deflected to, uniform over the allowed candidates. */
  val candidatePort = UInt(cfg.portWidth bits)
  /** candidateStart with tokens and a candidate port: it allocates unless it hits or the table is full. */
  val allocOk = Bool()
}

object DartDft {
  /**
   * Clock edges from a packet's acceptance (pkt valid && ready) to its decision's transfer
   * (decision valid && ready) when the output is ready: input register, draw (stage 1), scaled
   * draw (stage 2), lookup (stage 3), decision into the output FIFO, FIFO read.
   */
  val latency = 6
  /** Low PRNG bits the port draw ignores (the model's DRAW_DROPPED_BITS). */
  val drawDroppedBits = 7
  /** Decisions the output FIFO holds: enough credits for one packet per clock through the pipeline. */
  val outputDepth = 8

  // Kept(x) (uehw.hw.common.Kept) is a net synthesis keeps (Yosys `keep`): the logic is mapped up to
  // it, so a tree is not turned into a chain.

  /** The OR of the bits as a tree of kept 6-input ORs: 3 LUT levels for 64 bits. */
  def orTree(bits: scala.collection.Seq[Bool]): Bool =
    if (bits.size <= 6) bits.reduce(_ || _) else orTree(bits.grouped(6).map(g => Kept(g.reduce(_ || _))).toSeq)

  /** The AND of the bits as a tree of kept 6-input ANDs. */
  def andTree(bits: scala.collection.Seq[Bool]): Bool =
    if (bits.size <= 6) bits.reduce(_ && _) else andTree(bits.grouped(6).map(g => Kept(g.reduce(_ && _))).toSeq)

  /** a === b as a tree of kept LUTs (3 bit pairs, then 6-input ANDs): 2 LUT levels for 18 bits, 3 for 64. */
  def equal(a: Bits, b: Bits): Bool = {
    require(a.getWidth == b.getWidth)
    andTree((0 until a.getWidth).grouped(3).map(g => Kept(g.map(i => a(i) === b(i)).reduce(_ && _))).toSeq)
  }

  /** The OR of the values whose select bit is set, as a tree of kept LUTs (3 pairs, then 6-input ORs). */
  def andOrTree(selects: scala.collection.Seq[Bool], values: scala.collection.Seq[UInt]): UInt = {
    val w = values.head.getWidth
    Vec((0 until w).map { b =>
      val firstLevel = selects.zip(values).grouped(3).map(g => Kept(g.map { case (s, v) => s && v(b) }.reduce(_ || _))).toSeq
      if (firstLevel.size == 1) firstLevel.head else orTree(firstLevel)
    }).asBits.asUInt
  }
}

/**
 * Dart in-order flow deflection (dart.txt Sec. IV-A/B, Fig. 7): a deflected flow table CAM of E
 * entries {flow id -> deflected port} between route lookup and the egress queues. One packet per
 * clock through five registered steps: stage 0 (registered input) takes the routed port's rank
 * among the allowed ports and the packet's PRNG draw; stage 1 scales the draw to the candidate
 * count (a registered DSP multiply) and compares the flow id with every entry; stage 2 picks the
 * candidate port and makes the hit vector (the compare of stage 1, corrected for the entry stage
 * 3 wrote at the edge between), whether it hits and the hit entry's port; stage 3 decides,
 * updates the table and writes the decision into the output FIFO. The hit vector of stage 2
 * misses the update the packet ahead makes in stage 3 on the same clock; when that packet is of
 * the same flow, its update is applied in stage 3 from registers, so a message's next packet may
 * follow its start packet on the next clock. Stage 3's wide logic starts at registers prepared a
 * clock ahead (a free entry, "table full", "this packet sets / clears an entry" for each outcome
 * of the packet ahead), and its wide ORs and compares are kept LUT trees (`kept`).
 */
class DartDft(val cfg: DartDftConfig) extends Component with RegisterDocs {
  val io = new DartDftIo(cfg)
  setDefinitionName("uehw_dart_dft")
  AxiLite4SpecRenamer(io.ctrl)

  private val E = cfg.entries
  private val P = cfg.ports
  private val allPorts = (BigInt(1) << P) - 1

  // ---------------------------------------------------------------- CSRs
  val csr = new Area {
    // INFO (0x00) and VERSION (0xFC) from the shared prologue (CsrBank): the block id, then E, P
    // and the token field's width as INFO's fields. This block's registers follow at fixed
    // addresses.
    val busif = CsrBank(io.ctrl, "DART", 0x44, "Block id 0x44 ('D')",
      InfoField("ENTRIES", 8, E, "DFT entries E"),
      InfoField("PORTS", 8, P, "Output ports P"),
      InfoField("TOKEN_WIDTH", 4, cfg.tokenWidth, "Token field width"))
    private def reg(name: String, address: Int, doc: String) = CsrBank.reg(busif, name, address, doc)

    private val control = reg("CONTROL", 0x04, "Deflection policy switches")
    val enable = control.field(Bool(), AccessType.RW, 1, doc = "Allocate new entries (0: existing entries are still followed and freed)")(SymbolName("ENABLE"))
    val torMode = control.field(Bool(), AccessType.RW, 0, doc = "ToR switch: never deflect to a HOST_PORTS port (dart.txt Sec. IV-A)")(SymbolName("TOR_MODE"))
    val everyMisroute = control.field(Bool(), AccessType.RW, 1,
      doc = "1: every packet leaving on a DFT port loses a token (dart.txt Sec. IV-A); 0: only the allocating start packet")(SymbolName("EVERY_MISROUTE"))

    val threshold = reg("THRESHOLD", 0x08, "Deflection threshold (dart.txt Sec. IV-B): a start packet may allocate only if queueBytes > THRESHOLD")
      .field(UInt(cfg.occupancyWidth bits), AccessType.RW, BigInt(cfg.threshold), doc = "Bytes")(SymbolName("BYTES"))
    val minTokens = reg("MIN_TOKENS", 0x0C, "Tokens a start packet needs to be deflected; a packet without tokens never is (0 acts as 1)")
      .field(UInt(cfg.tokenWidth bits), AccessType.RW, BigInt(cfg.minTokens), doc = "Tokens")(SymbolName("VALUE"))

    /** A P-bit mask over two 32-bit registers (the high one only when P > 32). */
    private def portMask(name: String, address: Int, doc: String, reset: BigInt): Bits = {
      val lowBits = scala.math.min(P, 32)
      val low = reg(name + "_LO", address, doc + ", ports 0..31")
        .field(Bits(lowBits bits), AccessType.RW, reset & ((BigInt(1) << lowBits) - 1), doc = "One bit per port")(SymbolName("MASK"))
      if (P <= 32) low
      else {
        val high = reg(name + "_HI", address + 4, doc + s", ports 32..${P - 1}")
          .field(Bits(P - 32 bits), AccessType.RW, reset >> 32, doc = "One bit per port")(SymbolName("MASK"))
        high ## low
      }
    }
    val candidates = portMask("CANDIDATES", 0x10, "Ports a packet may be deflected to", allPorts)
    val hostPorts = portMask("HOST_PORTS", 0x18, "Host-facing ports, excluded in TOR_MODE", 0)

    private val seedReg = reg("SEED", 0x20, "PRNG seed: writing reloads the xorshift32 state (0 loads 1)")
    val seed = seedReg.field(UInt(32 bits), AccessType.RW, BigInt(cfg.prngSeed), doc = "Seed")(SymbolName("VALUE"))
    val reseed = RegNext(seedReg.hitDoWrite) init (False)

    val flush = reg("COMMAND", 0x24, "Commands")
      .field(Bool(), AccessType.W1P, 0,
        doc = "Write 1: hold new packets in stage 0, wait until stages 1 to 3 are empty, then free every entry (counted in FLUSHED)")(SymbolName("FLUSH"))

    private val status = reg("STATUS", 0x28, "Status")
    val occupancy = status.field(UInt(8 bits), AccessType.RO, doc = "Valid DFT entries")(SymbolName("OCCUPANCY"))
    val candidateCount = status.field(UInt(8 bits), AccessType.RO, doc = "Allowed deflection ports in the current mask")(SymbolName("CANDIDATES"))
    val rebuilding = status.field(Bool(), AccessType.RO, doc = "The candidate tables are being rebuilt, or wait to be, after a mask change (packets wait in stage 0)")(SymbolName("REBUILDING"))
    val flushPendingStatus = status.field(Bool(), AccessType.RO, doc = "A FLUSH waits for stages 1 to 3 to drain (packets wait in stage 0)")(SymbolName("FLUSH_PENDING"))

    private val counters = new CsrCounters(busif, 0x40, oneReadMux = true)
    import counters.counter
    val LOOKUPS = counter("Packets looked up (every packet)")
    val HITS = counter("Packets whose flow was in the DFT (left on the entry's port)")
    val ALLOCATIONS = counter("Entries allocated by start packets (a one-packet message allocates and frees at once)")
    val FREES = counter("Entries freed by end packets")
    val FLUSHED = counter("Entries freed by COMMAND.FLUSH")
    val REFUSED_FULL = counter("Start packets above the threshold with tokens that found no free entry")
    val REFUSED_NO_TOKENS = counter("Start packets above the threshold with no token or fewer than MIN_TOKENS")
    val REFUSED_NO_CANDIDATE = counter("Start packets that would be deflected but had no allowed port")
    val HITS_WITHOUT_TOKEN = counter("Hits with no token left: the packet follows its flow anyway, to stay in order")
    val BAD_PORT = counter("Packets with a routed port >= P (never deflected; a hit still follows the DFT)")
  }

  // ------------------------------------------------------------ the table
  /** The DFT: E CAM entries in flip-flops (dart.txt Fig. 7). */
  val table = new Area {
    val valid = Vec.fill(E)(RegInit(False))
    val flowId = Vec.fill(E)(Reg(UInt(cfg.flowIdWidth bits)))
    val port = Vec.fill(E)(Reg(UInt(cfg.portWidth bits)))
    val validBits = valid.asBits
  }
  /** Valid entries, counted as they are set and cleared (a popcount of E bits is a deep path). */
  val occupancy = Reg(UInt(log2Up(E + 1) bits)) init (0)
  csr.occupancy := occupancy.resize(8)

  // ------------------------------------------------ candidate-port tables
  /**
   * Uniform choice among the allowed ports in one clock: for the allowed-port mask A (CANDIDATES
   * and, in ToR mode, not HOST_PORTS) `nth(k)` is the k-th set bit of A and `rank(p)` the number
   * of set bits below p. Both are rebuilt, one port per clock, in P clocks after A changes, and
   * twice after reset (2P clocks: first for the empty built mask, then for the reset masks);
   * meanwhile packets wait in stage 0. The routed port is removed per packet by skipping its rank
   * (never deflect to it).
   *
   * Each packet sees one complete table: it reads `rank`, `count` and `builtMask` in stage 0 and
   * `nth` in stage 2, and a rebuild starts only at an edge where no packet leaves stage 0 and
   * stages 1 and 2 are empty. So no packet is past stage 0 and before stage 3 while the tables are
   * rewritten, and stage 0 holds from the mask change until the rebuild is done.
   */
  val choice = new Area {
    private val allowedNext = csr.candidates & ~(csr.hostPorts & (csr.torMode.asBits #* P))
    val allowed = RegNext(allowedNext) init (0)
    val builtMask = Reg(Bits(P bits)) init (0)
    /** The bits of builtMask not scanned yet, the one at `index` first (the scan reads no P-way mux). */
    val unscanned = Reg(Bits(P bits)) init (0)
    val building = RegInit(True)
    val index = Reg(UInt(cfg.portWidth bits)) init (0)
    val found = Reg(UInt(cfg.portCountWidth bits)) init (0)
    val count = Reg(UInt(cfg.portCountWidth bits)) init (0)
    /** count === 0 and count === 1, registered with it (stage 0's "no candidate" reads no compare). */
    val countIsZero = RegInit(True)
    val countIsOne = RegInit(False)
    val nth = Mem(UInt(cfg.portWidth bits), P)
    val rank = Mem(UInt(cfg.portWidth bits), P)
    /**
     * allowed =/= builtMask, from compares registered with the values both take at the next edge
     * (with and without a rebuild start then), selected by whether it started: no P-bit compare
     * on the path of the start.
     */
    val changed = Bool()
    // Registered: a mask change stops new packets one clock late, so a packet may still leave
    // stage 0 (with the old rank and count) at the edge the rebuild could start; `drained` waits for it.
    val ready = RegNext(!building && !changed) init (False)

    /**
     * No packet leaves stage 0 at this edge and stages 1 and 2 are empty: from this edge on, until
     * stage 0 lets packets go again, no packet is in stages 1-2 to read a table being rewritten (set below).
     */
    val drained = Bool()
    // A rebuild waits for the packets that already read the old rank and count, so each packet sees one table.
    val start = !building && changed && drained
    private val started = RegNext(start) init (False)
    private val changedIfStarted = RegNext(!DartDft.equal(allowedNext, allowed)) init (False)
    private val changedIfNot = RegNext(!DartDft.equal(allowedNext, builtMask)) init (False)
    changed := Mux(started, changedIfStarted, changedIfNot)
    when(start) {
      building := True
      builtMask := allowed
      unscanned := allowed
      index := 0
      found := 0
    }
    when(building) {
      val set = unscanned(0)
      rank.write(index, found.resize(cfg.portWidth))
      nth.write(found.resize(cfg.portWidth), index, enable = set)
      val foundNext = found + set.asUInt.resize(cfg.portCountWidth)
      found := foundNext
      unscanned := unscanned |>> 1
      index := index + 1
      when(index === P - 1) {
        building := False
        count := foundNext
        countIsZero := foundNext === 0
        countIsOne := foundNext === 1
      }
    }

    val prng = new Xorshift32(cfg.prngSeed)
    prng.reseed := csr.reseed
    prng.seedValue := csr.seed
  }
  csr.candidateCount := choice.count.resize(8)
  csr.rebuilding := !choice.ready

  // ----------------------------------------------------------- pipeline
  val flushPending = RegInit(False)
  csr.flushPendingStatus := flushPending

  val stage0 = io.pkt.m2sPipe()
  val stage3 = Flow(DartLookup(cfg))
  val stage3Effect = new Area { // what the packet in stage 3 does to its own flow's entry this clock
    /** It allocates an entry and keeps it (not an end packet); false when stage 3 is empty. */
    val keeps = Bool()
    /** It is an end packet that leaves on its entry's port and frees the entry. */
    val removes = Bool()
    /** The entry it allocates when it keeps one. */
    val entry = Bits(E bits)
    /** The entry whose flow id and port it writes this clock (one-hot, or zero). */
    val sets = Bits(E bits)
  }

  /**
   * Stages 1-3 never stall: a packet leaves stage 0 only with a credit, a slot of the output
   * FIFO reserved for its decision, returned when the decision leaves. No ready signal crosses
   * the pipeline, so the output's ready reaches only the FIFO.
   */
  val credits = new Area {
    val count = Reg(UInt(log2Up(DartDft.outputDepth + 1) bits)) init (DartDft.outputDepth)
    val available = count =/= 0
    val take = Bool()
    val give = Bool()
    count := count - take.asUInt.resize(count.getWidth) + give.asUInt.resize(count.getWidth)
  }

  /** Stage 0: the routed port's rank, the candidate count, the packet's draw, the CSR compares. */
  val rankStage = new Area {
    val p = stage0.payload
    val portOk = if (isPow2(P)) True else p.routedPort < U(P, cfg.portWidth bits)
    val out = DartDraw(cfg)
    out.carried.assignSomeByName(p)
    out.routedAllowed := portOk && choice.builtMask.resize(1 << cfg.portWidth)(p.routedPort)
    out.routedRank := choice.rank.readAsync(p.routedPort, writeFirst)
    out.candidates := choice.count - out.routedAllowed.asUInt.resize(cfg.portCountWidth)
    // dart.txt Sec. IV-A: "a randomly-selected output port". One PRNG draw per packet, used or not.
    out.draw := choice.prng.value(31 downto DartDft.drawDroppedBits)
    out.checks.badPort := !portOk
    // Sec. IV-B: deflect only when the routed queue is above the threshold; Sec. IV-A: only a start packet.
    out.checks.candidateStart := csr.enable && p.start && portOk && p.queueBytes > csr.threshold
    // dart.txt Sec. IV-B: long flows carry no tokens and are never deflected, whatever MIN_TOKENS says.
    out.checks.hasTokens := p.tokens >= csr.minTokens && p.tokens =/= 0
    out.checks.noCandidate := choice.countIsZero || (choice.countIsOne && out.routedAllowed) // candidates === 0
  }
  val toStage1 = stage0.translateWith(rankStage.out).continueWhen(choice.ready && !flushPending && credits.available).toFlow
  choice.prng.draw := toStage1.valid
  credits.take := toStage1.valid
  val stage1 = toStage1.stage()

  /** Stage 1: the draw scaled to [0, candidates) by multiply-high, into a register (and the CAM compare, `cam`). */
  val scaleStage = new Area {
    val d = stage1.payload
    // Multiply-high of the draw's top 25 bits by the candidate count: one 27 x 18 DSP, bias
    // below candidates / 2^25 (uehw.model.dart.DartDftModel.DRAW_DROPPED_BITS).
    val product = d.draw * d.candidates
    product.setName("draw_scaledProduct") // the lint waiver names it: the low word is dropped by design
    val out = DartScaled(cfg)
    out.carried := d.carried
    out.checks := d.checks
    out.routedAllowed := d.routedAllowed
    out.routedRank := d.routedRank
    out.index := product(d.draw.getWidth, cfg.portWidth bits) // < candidates <= P
  }
  val stage2 = stage1.translateWith(scaleStage.out).stage()
  // The flow compare with the packet one ahead, a stage early: the pipeline never stalls, so the
  // packet in stage 2 now is the one in stage 3 next clock.
  val sameFlowAsNext = RegNext(stage2.valid && DartDft.equal(stage2.payload.carried.flowId.asBits, stage1.payload.carried.flowId.asBits)) init (False)
  choice.drained := !toStage1.valid && !stage1.valid && !stage2.valid

  /**
   * The CAM compare, a clock early: stage 1 compares its flow id with every entry's, in two
   * registered halves. An entry's flow id changes only when stage 3 sets it, so in stage 2 the
   * compare is still right except for the entry set at the edge between: for it, stage 1 also
   * compared its flow id with the one stage 3 was writing.
   */
  val cam = new Area {
    private val key = stage1.payload.carried.flowId
    private val half = (cfg.flowIdWidth + 1) / 2
    private def halves(f: UInt): Seq[Bool] =
      Seq(DartDft.equal(f(0 until half).asBits, key(0 until half).asBits)) ++
        (if (half < cfg.flowIdWidth) Seq(DartDft.equal(f(half until cfg.flowIdWidth).asBits, key(half until cfg.flowIdWidth).asBits)) else Nil)
    val matches = table.flowId.map(f => halves(f).map(m => RegNext(m)))
    val sameAsWritten = RegNext(DartDft.equal(key.asBits, stage3.payload.carried.flowId.asBits))
    val written = RegNext(stage3Effect.sets) init (0)
  }

  /** Stage 2: the candidate port (skipping the routed one), the hit vector, whether it hits and the hit port. */
  val lookup = new Area {
    val d = stage2.payload
    val liveHits = Vec((0 until E).map { i =>
      table.valid(i) && Mux(cam.written(i), cam.sameAsWritten, cam.matches(i).reduce(_ && _))
    })
    val liveAny = DartDft.orTree(liveHits)
    val skip = d.routedAllowed && d.index >= d.routedRank
    val pick = d.index + skip.asUInt.resize(cfg.portWidth)

    val out = DartLookup(cfg)
    out.carried := d.carried
    out.checks := d.checks
    out.liveHits := liveHits.asBits
    out.liveAny := liveAny
    // The hit entry's port: AND-OR over the one-hot hits (MuxOH encodes the one-hot first, deeper).
    // A live entry's port does not change while it lives: stage 3 sets only a free entry, and
    // only a packet of the entry's own flow ends it.
    out.livePort := DartDft.andOrTree(liveHits, table.port)
    out.candidatePort := choice.nth.readAsync(pick, writeFirst)
    out.allocOk := d.checks.candidateStart && d.checks.hasTokens && !d.checks.noCandidate
  }
  stage3 << stage2.translateWith(lookup.out).stage()

  /**
   * What the packet in stage 3 did to its flow's entry last clock, registered for the packet
   * behind it: `keeps` and `removes` are set only when that packet is of the same flow
   * (`sameFlowAsNext`, which also says the packet ahead was there), so stage 3 needs no other
   * same-flow signal.
   */
  val lastEffect = new Area {
    val keeps = RegNext(sameFlowAsNext && stage3Effect.keeps) init (False)
    val removes = RegNext(sameFlowAsNext && stage3Effect.removes) init (False)
    val entry = RegNext(stage3Effect.entry)
    val port = RegNext(stage3.payload.candidatePort)
  }

  /**
   * "Stage 3 sets an entry" and "stage 3 clears one" drive every entry, so each is one LUT of
   * registers of its own, prepared in stage 2 and from the packet ahead (each register is its
   * condition and'ed with the packet's own, so synthesis keeps it apart from the shared ones):
   * setting = startKeeps && !tableFull && !hit and clearing = valid && end && hit, with hit =
   * !lastEffect.removes && (lastEffect.keeps || liveAny).
   */
  val early = new Area {
    /** The packet in stage 2 keeps the entry it would allocate (a start packet, not an end packet). */
    val startKeeps = stage2.valid && lookup.out.allocOk && !lookup.d.carried.end
    private val validEnd = stage2.valid && lookup.d.carried.end
    private val keepsAhead = sameFlowAsNext && stage3Effect.keeps
    private val removesAhead = sameFlowAsNext && stage3Effect.removes
    /** A start packet that keeps the entry it allocates and missed the CAM. */
    val setMissed = RegNext(startKeeps && !lookup.liveAny) init (False)
    /** ... of the flow the packet ahead allocated and keeps (it hits). */
    val setAhead = RegNext(startKeeps && keepsAhead) init (False)
    /** ... of the flow the packet ahead freed (it misses whatever the CAM said). */
    val setFreed = RegNext(startKeeps && removesAhead) init (False)
    /** A start packet that keeps the entry, with the table full. */
    val setFull = RegInit(False) // assigned in stage 3
    /** An end packet that hit the CAM. */
    val clearLive = RegNext(validEnd && lookup.liveAny) init (False)
    /** An end packet of the flow the packet ahead allocated and keeps. */
    val clearAhead = RegNext(validEnd && keepsAhead) init (False)
    /** An end packet of the flow the packet ahead freed. */
    val clearFreed = RegNext(validEnd && removesAhead) init (False)
  }

  /** Stage 3: the decision (dart.txt Sec. IV-A/B) and the table update. */
  val decide = new Area {
    val l = stage3.payload
    val p = l.carried
    // dart.txt Sec. IV-A: the table must not forget a deflected flow nor invent one. The hit vector
    // of stage 2 missed what the packet ahead did in stage 3 on that clock: when that packet was of
    // this flow, its allocation or release is applied here, from registers.
    val hit = !lastEffect.removes && (lastEffect.keeps || l.liveAny)
    /**
     * A free entry of the table as it is this clock (any when none is free) and "no entry is
     * free", both registers: prepared a clock ahead for the update then made (which free entry a
     * flow gets is not observable; the model takes the lowest). `tableFull` is occupancy === E,
     * kept without a compare on the path.
     */
    val entry = Reg(Bits(E bits)) init (1)
    val tableFull = RegInit(False)
    // Sec. IV-B: deflect only when the routed queue is above the threshold; Sec. IV-A: only the
    // start packet of a message allocates, never over a live entry, and only with tokens left.
    val wantsDeflection = l.checks.candidateStart && !hit
    val hasTokens = l.checks.hasTokens
    val allocate = l.allocOk && !hit && !tableFull
    /** stage3.valid && allocate && !p.end. */
    val setting = Kept(!early.setFull && (early.setFreed || (early.setMissed && !early.setAhead)))
    val deflected = hit || allocate
    // Sec. IV-A: "The switch removes a token from each misrouted packet" (saturating at zero).
    val loseToken = (allocate || (hit && csr.everyMisroute)) && p.tokens =/= 0
    val free = p.end && deflected

    stage3Effect.keeps := setting
    stage3Effect.removes := free
    stage3Effect.entry := entry

    val d = DartDecision(cfg)
    d.flowId := p.flowId
    d.meta := p.meta
    val hitPort = Mux(lastEffect.keeps, lastEffect.port, l.livePort)
    d.port := hit ? hitPort | (allocate ? l.candidatePort | p.routedPort)
    d.tokens := p.tokens - loseToken.asUInt.resize(cfg.tokenWidth)
    d.deflected := deflected
    d.tableHit := hit
    d.allocated := allocate
    d.freed := free

    val sets = Kept(entry & (setting #* E))
    stage3Effect.sets := sets
    // Sec. IV-A: de-allocated when the end packet of the message passes: stage3.valid && hit && p.end.
    val clearing = Kept(!early.clearFreed && (early.clearAhead || early.clearLive))
    /** The entries this flow holds (liveHits, or the one the packet ahead allocated), when clearing. */
    def clears(i: Int): Bool = clearing && (l.liveHits(i) || (early.clearAhead && lastEffect.entry(i)))
    val flushNow = Bool() // assigned below, by FLUSH
    for (i <- 0 until E) {
      val stays = Kept(!flushNow && table.valid(i) && !clears(i))
      table.valid(i) := stays || (!flushNow && sets(i))
      when(sets(i)) {
        table.flowId(i) := p.flowId
        table.port(i) := l.candidatePort
      }
    }
    // Next clock's free entries are (free & ~sets) | clears, where sets is 0 or `entry`, and
    // `entry` is free unless the table is full. Without the set some entry is free unless the
    // table is full; with it, unless occupancy = E - 1. A just-cleared entry serves when no other
    // is free. Both candidates are ready before `setting`, which only selects.
    private val freeNow = ~table.validBits
    private val lastFree = Kept(occupancy === E - 1)
    private val firstFree = Kept(OHMasking.first(freeNow))
    private val firstFreeOther = Kept(OHMasking.first(freeNow & ~entry))
    for (i <- 0 until E) {
      val ifSet = Kept(Mux(lastFree, clears(i), firstFreeOther(i)))
      val ifNoSet = Kept(Mux(tableFull, clears(i), firstFree(i)))
      entry(i) := Mux(flushNow, Bool(i == 0), Mux(setting, ifSet, ifNoSet))
    }
    val fullNext = !flushNow && !clearing && Mux(setting, lastFree, tableFull)
    tableFull := fullNext
    early.setFull := fullNext && early.startKeeps
  }
  /** The output FIFO (its write is the decision register) holds what the credits promised. */
  val output = StreamFifo(DartDecision(cfg), DartDft.outputDepth)
  output.io.push << stage3.translateWith(decide.d).toStream
  io.decision << output.io.pop
  credits.give := io.decision.fire
  // The credits reserve a FIFO slot for every packet past stage 0, so the push is never refused.
  assert(!output.io.push.valid || output.io.push.ready, "dart-dft: output FIFO full under credits")

  /** COMMAND.FLUSH: waits for stages 1-3 to drain (stage 0 is held), then frees every entry. */
  val flush = new Area {
    val now = flushPending && !stage1.valid && !stage2.valid && !stage3.valid
    when(csr.flush) { flushPending := True }
    decide.flushNow := now
    // A flow holds at most one entry, so sets and clears are each zero or one-hot.
    private val w = occupancy.getWidth
    occupancy := Mux(now, U(0, w bits), Mux(decide.setting === decide.clearing, occupancy,
      Mux(decide.setting, occupancy + 1, occupancy - 1)))
    when(now) {
      flushPending := False
    }
  }

  val stats = new Area {
    import CsrCounters._
    private val d = decide
    private val fired = stage3.valid
    count(csr.LOOKUPS, fired)
    count(csr.HITS, fired && d.hit)
    count(csr.ALLOCATIONS, fired && d.allocate)
    count(csr.FREES, fired && d.free)
    when(flush.now) { add(csr.FLUSHED, occupancy) }
    count(csr.REFUSED_NO_TOKENS, fired && d.wantsDeflection && !d.hasTokens)
    count(csr.REFUSED_FULL, fired && d.wantsDeflection && d.hasTokens && d.tableFull)
    count(csr.REFUSED_NO_CANDIDATE, fired && d.wantsDeflection && d.hasTokens && !d.tableFull && d.l.checks.noCandidate)
    count(csr.HITS_WITHOUT_TOKEN, fired && d.hit && d.p.tokens === 0)
    count(csr.BAD_PORT, fired && d.l.checks.badPort)
  }

  def emitRegisterDocs(): Unit = RegisterDocs.emit(csr.busif, "uehw_dart_dft_regs", "DART")
  def registerBus: BusIf = csr.busif
  def registerPrefix: String = "DART"
}
