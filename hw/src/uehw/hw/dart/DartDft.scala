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

/** A packet between the lookup stage and the decision stage. */
case class DartLookup(cfg: DartDftConfig) extends Bundle {
  val pkt = DartPacket(cfg)
  /** One-hot DFT hit vector, already updated by the packet ahead (forwarded). */
  val hits = Bits(cfg.entries bits)
  /** The port this packet would be deflected to, uniform over the allowed candidates. */
  val candidatePort = UInt(cfg.portWidth bits)
  val noCandidate = Bool()
  val badPort = Bool()
}

object DartDft {
  /**
   * Clock edges from a packet's acceptance (pkt valid && ready) to its decision's transfer
   * (decision valid && ready) when the output is ready: input register, lookup, decision register.
   */
  val latency = 3
}

/**
 * Dart in-order flow deflection (dart.txt Sec. IV-A/B, Fig. 7): a deflected flow table CAM of E
 * entries {flow id -> deflected port} between route lookup and the egress queues. One packet per
 * clock: stage 0 (registered input) compares the flow id with every entry and draws the
 * candidate port; stage 1 decides, updates the table and registers the decision. A packet that
 * enters stage 1 while the packet ahead updates the table sees that update (forwarded), so a
 * message's next packet may follow its start packet on the next clock.
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
    val busif = AxiLite4BusInterface(io.ctrl, SizeMapping(0, 256), "DART")
    private def reg(name: String, address: Int, doc: String) = busif.newRegAt(address, doc = doc)(SymbolName(name))
    private val info = reg("INFO", 0x00, "Generation parameters (read-only)")
    info.field(Bits(8 bits), AccessType.ROV, BigInt(0x44), doc = "Block id 0x44 ('D')")(SymbolName("ID"))
    info.field(Bits(8 bits), AccessType.ROV, BigInt(E), doc = "DFT entries E")(SymbolName("ENTRIES"))
    info.field(Bits(8 bits), AccessType.ROV, BigInt(P), doc = "Output ports P")(SymbolName("PORTS"))
    info.field(Bits(4 bits), AccessType.ROV, BigInt(cfg.tokenWidth), doc = "Token field width")(SymbolName("TOKEN_WIDTH"))

    private val control = reg("CONTROL", 0x04, "Deflection policy switches")
    val enable = control.field(Bool(), AccessType.RW, 1, doc = "Allocate new entries (0: existing entries are still followed and freed)")(SymbolName("ENABLE"))
    val torMode = control.field(Bool(), AccessType.RW, 0, doc = "ToR switch: never deflect to a HOST_PORTS port (dart.txt Sec. IV-A)")(SymbolName("TOR_MODE"))
    val everyMisroute = control.field(Bool(), AccessType.RW, 1,
      doc = "1: every packet leaving on a DFT port loses a token (dart.txt Sec. IV-A); 0: only the allocating start packet")(SymbolName("EVERY_MISROUTE"))

    val threshold = reg("THRESHOLD", 0x08, "Deflection threshold (dart.txt Sec. IV-B): a start packet may allocate only if queueBytes > THRESHOLD")
      .field(UInt(cfg.occupancyWidth bits), AccessType.RW, BigInt(cfg.threshold), doc = "Bytes")(SymbolName("BYTES"))
    val minTokens = reg("MIN_TOKENS", 0x0C, "Tokens a start packet needs to be deflected (0 turns the livelock guard off)")
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
      .field(Bool(), AccessType.W1P, 0, doc = "Write 1: free every entry once the packet in stage 1 has left (counted in FLUSHED)")(SymbolName("FLUSH"))

    private val status = reg("STATUS", 0x28, "Status")
    val occupancy = status.field(UInt(8 bits), AccessType.RO, doc = "Valid DFT entries")(SymbolName("OCCUPANCY"))
    val candidateCount = status.field(UInt(8 bits), AccessType.RO, doc = "Allowed deflection ports in the current mask")(SymbolName("CANDIDATES"))
    val rebuilding = status.field(Bool(), AccessType.RO, doc = "The candidate tables are being rebuilt after a mask change (packets wait)")(SymbolName("REBUILDING"))
    val flushPendingStatus = status.field(Bool(), AccessType.RO, doc = "A FLUSH waits for stage 1 to drain")(SymbolName("FLUSH_PENDING"))

    private val counters = new CsrCounters(busif, 0x40)
    import counters.counter
    val LOOKUPS = counter("Packets looked up (every packet)")
    val HITS = counter("Packets whose flow was in the DFT (left on the entry's port)")
    val ALLOCATIONS = counter("Entries allocated by start packets (a one-packet message allocates and frees at once)")
    val FREES = counter("Entries freed by end packets")
    val FLUSHED = counter("Entries freed by COMMAND.FLUSH")
    val REFUSED_FULL = counter("Start packets above the threshold with tokens that found no free entry")
    val REFUSED_NO_TOKENS = counter("Start packets above the threshold with fewer than MIN_TOKENS tokens")
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
  csr.occupancy := CountOne(table.valid).resize(8)

  // ------------------------------------------------ candidate-port tables
  /**
   * Uniform choice among the allowed ports in one clock: for the allowed-port mask A (CANDIDATES
   * and, in ToR mode, not HOST_PORTS) `nth(k)` is the k-th set bit of A and `rank(p)` the number
   * of set bits below p. Both are rebuilt in P clocks after A changes; meanwhile packets wait in
   * stage 0. The routed port is removed per packet by skipping its rank (never deflect to it).
   */
  val choice = new Area {
    val allowed = RegNext(csr.candidates & ~(csr.hostPorts & (csr.torMode.asBits #* P))) init (0)
    val builtMask = Reg(Bits(P bits)) init (0)
    val building = RegInit(True)
    val index = Reg(UInt(cfg.portWidth bits)) init (0)
    val found = Reg(UInt(cfg.portCountWidth bits)) init (0)
    val count = Reg(UInt(cfg.portCountWidth bits)) init (0)
    val nth = Mem(UInt(cfg.portWidth bits), P)
    val rank = Mem(UInt(cfg.portWidth bits), P)
    val ready = !building && allowed === builtMask

    when(!building && allowed =/= builtMask) {
      building := True
      builtMask := allowed
      index := 0
      found := 0
    }
    when(building) {
      val set = builtMask(index)
      rank.write(index, found.resize(cfg.portWidth))
      nth.write(found.resize(cfg.portWidth), index, enable = set)
      found := found + set.asUInt.resize(cfg.portCountWidth)
      index := index + 1
      when(index === P - 1) {
        building := False
        count := found + set.asUInt.resize(cfg.portCountWidth)
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
  val stage1 = Stream(DartLookup(cfg))
  val stage1Fire = Bool()
  val stage1Effect = new Area { // what stage 1 does to its own flow's entry this clock
    val keepsOneHot = Bits(E bits)
    val removes = Bool()
  }

  /** Stage 0: CAM compare against the live table, forwarding stage 1's update, and the port draw. */
  val lookup = new Area {
    val p = stage0.payload
    val liveHits = Vec(table.valid.zip(table.flowId).map { case (v, f) => v && f === p.flowId }).asBits
    // dart.txt Sec. IV-A: the table must not forget a deflected flow nor invent one, so a packet
    // right behind its start packet must see the entry the start packet is allocating this clock.
    val sameFlowAhead = stage1Fire && stage1.payload.pkt.flowId === p.flowId
    val hits = Bits(E bits)
    hits := liveHits
    when(sameFlowAhead) {
      hits := Mux(stage1Effect.removes, B(0, E bits), stage1Effect.keepsOneHot | liveHits)
    }

    // Uniform draw among the allowed ports except the routed one (dart.txt Sec. IV-A: "a
    // randomly-selected output port"). One PRNG draw per packet, used or not.
    val portOk = if (isPow2(P)) True else p.routedPort < U(P, cfg.portWidth bits)
    val routedAllowed = portOk && choice.builtMask.resize(1 << cfg.portWidth)(p.routedPort)
    val candidates = choice.count - routedAllowed.asUInt.resize(cfg.portCountWidth)
    val draw = choice.prng.scaled(candidates, cfg.portWidth) // < candidates <= P, so it fits
    val skip = routedAllowed && draw >= choice.rank.readAsync(p.routedPort, writeFirst)
    val pick = draw + skip.asUInt.resize(cfg.portWidth)

    val out = DartLookup(cfg)
    out.pkt := p
    out.hits := hits
    out.candidatePort := choice.nth.readAsync(pick, writeFirst)
    out.noCandidate := candidates === 0
    out.badPort := !portOk
  }
  val toStage1 = stage0.translateWith(lookup.out).continueWhen(choice.ready && !flushPending)
  choice.prng.draw := toStage1.fire
  stage1 << toStage1.m2sPipe()

  /** Stage 1: the decision (dart.txt Sec. IV-A/B) and the table update. */
  val decide = new Area {
    val l = stage1.payload
    val p = l.pkt
    val hit = l.hits.orR
    val freeEntries = ~table.validBits
    val allocOneHot = OHMasking.first(freeEntries)
    // Sec. IV-B: deflect only when the routed queue is above the threshold; Sec. IV-A: only the
    // start packet of a message allocates, never over a live entry, and only with tokens left.
    val wantsDeflection = csr.enable && p.start && !hit && !l.badPort && p.queueBytes > csr.threshold
    val hasTokens = p.tokens >= csr.minTokens
    val tableFull = !freeEntries.orR
    val allocate = wantsDeflection && hasTokens && !tableFull && !l.noCandidate
    val deflected = hit || allocate
    // Sec. IV-A: "The switch removes a token from each misrouted packet" (saturating at zero).
    val loseToken = (allocate || (hit && csr.everyMisroute)) && p.tokens =/= 0
    val free = p.end && deflected

    stage1Fire := stage1.fire
    stage1Effect.keepsOneHot := Mux(allocate && !p.end, allocOneHot, B(0, E bits))
    stage1Effect.removes := free

    val d = DartDecision(cfg)
    d.flowId := p.flowId
    d.meta := p.meta
    d.port := hit ? MuxOH(l.hits, table.port) | (allocate ? l.candidatePort | p.routedPort)
    d.tokens := p.tokens - loseToken.asUInt.resize(cfg.tokenWidth)
    d.deflected := deflected
    d.tableHit := hit
    d.allocated := allocate
    d.freed := free

    when(stage1.fire) {
      for (i <- 0 until E) {
        when(allocate && !p.end && allocOneHot(i)) {
          table.valid(i) := True
          table.flowId(i) := p.flowId
          table.port(i) := l.candidatePort
        }
        // Sec. IV-A: de-allocated when the end packet of the message passes.
        when(hit && p.end && l.hits(i)) {
          table.valid(i) := False
        }
      }
    }
  }
  io.decision << stage1.translateWith(decide.d).m2sPipe()

  /** COMMAND.FLUSH: waits for stage 1 to drain (stage 0 is held), then frees every entry. */
  val flush = new Area {
    val now = flushPending && !stage1.valid
    when(csr.flush) { flushPending := True }
    when(now) {
      table.valid.foreach(_ := False)
      flushPending := False
    }
  }

  val stats = new Area {
    import CsrCounters._
    private val d = decide
    private val fired = stage1.fire
    count(csr.LOOKUPS, fired)
    count(csr.HITS, fired && d.hit)
    count(csr.ALLOCATIONS, fired && d.allocate)
    count(csr.FREES, fired && d.free)
    when(flush.now) { add(csr.FLUSHED, CountOne(table.valid)) }
    count(csr.REFUSED_NO_TOKENS, fired && d.wantsDeflection && !d.hasTokens)
    count(csr.REFUSED_FULL, fired && d.wantsDeflection && d.hasTokens && d.tableFull)
    count(csr.REFUSED_NO_CANDIDATE, fired && d.wantsDeflection && d.hasTokens && !d.tableFull && d.l.noCandidate)
    count(csr.HITS_WITHOUT_TOKEN, fired && d.hit && d.p.tokens === 0)
    count(csr.BAD_PORT, fired && d.l.badPort)
  }

  def emitRegisterDocs(): Unit = RegisterDocs.emit(csr.busif, "uehw_dart_dft_regs", "DART")
}
