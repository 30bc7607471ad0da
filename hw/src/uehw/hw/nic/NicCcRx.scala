// SPDX-License-Identifier: Apache-2.0
package uehw.hw.nic

import spinal.core._
import spinal.lib._
import spinal.lib.bus.amba4.axis.Axi4Stream.Axi4StreamBundle
import uehw.hw.common.{ParamCheck, PacketFormat => PF}
import uehw.hw.trim.{TrimIngress, TrimQueue, TrimQueueConfig}

/**
 * The NIC engine's control-frame receiver (docs/nic-engine.md, "Receiving control frames").
 *
 * @param dataBytes     bytes of the AXI4-Stream bus: 8, 16, 32 or 64 (64 to 512 bits)
 * @param flows         flows the engine keeps; frames for flow ids >= flows are dropped
 * @param maxFrameBytes longest control frame taken (Ethernet padding included); longer ones are dropped
 */
case class NicCcRxConfig(dataBytes: Int = 64, flows: Int = 1024, maxFrameBytes: Int = 128) {
  ParamCheck(Seq(8, 16, 32, 64).contains(dataBytes), "data-bytes", s"$dataBytes must be 8, 16, 32 or 64 (64 to 512 bits)")
  ParamCheck(flows >= 2 && flows <= 65536, "flows", s"$flows is outside 2..65536")
  ParamCheck(maxFrameBytes >= PF.Ipv6ControlFrameBytes && maxFrameBytes <= 1518, "max-frame-bytes",
    s"$maxFrameBytes must be in ${PF.Ipv6ControlFrameBytes}..1518 (an IPv6 control frame at least)")
  val flowIdWidth: Int = log2Up(flows)
  /**
   * The trimming queue's ingress does the Ethernet, IP, UDP and checksum work: configured with a
   * header window that holds an IPv6 control frame (trim-bytes = 84), and queue sizes at their
   * minimum (only its verdict and header window are used; the rest is removed by synthesis).
   */
  val ingress: TrimQueueConfig = TrimQueueConfig(dataBytes = dataBytes, capacityBytes = 2 * maxFrameBytes,
    controlBytes = 2 * maxFrameBytes, trimBytes = PF.Ipv6ControlFrameBytes, maxFrameBytes = maxFrameBytes,
    maxControlBytes = maxFrameBytes)
}

object NicCcRx {
  /**
   * Drives `to` from `from` field by field: Axi4StreamBundle's `<<` writes tuser bit by bit in an
   * always @(*) block, which Icarus never runs while tuser keeps its power-up value (its lanes
   * stay X, and every frame's reason with them).
   */
  def connectBeats(to: Flow[Axi4StreamBundle], from: Flow[Axi4StreamBundle]): Unit = {
    to.valid := from.valid
    to.payload.data := from.payload.data
    to.payload.keep := from.payload.keep
    to.payload.last := from.payload.last
    to.payload.user := from.payload.user
  }

  /** Edges from the edge that took a frame's last beat to the edge after which its result is valid. */
  val latency = 6

  /** Why a frame was dropped (0: taken), in priority order: the first that applies is the frame's. */
  object Reason {
    val Taken = 0
    val Bad = 1          // tuser set on a beat (the MAC's FCS or length error)
    val Malformed = 2    // tkeep not all ones before the last beat, or not contiguous from lane 0 on it
    val Oversize = 3     // longer than max-frame-bytes
    val Runt = 4         // shorter than its headers, or a transport frame shorter than the control frame (64 B IPv4, 84 B IPv6)
    val Checksum = 5     // an IPv4 header (IHL 5) whose checksum fails (RFC 791)
    val Foreign = 6      // not the transport: not IP, an IPv4 fragment, not UDP, another port, another version
    val NotControl = 7   // the transport but no ACK, NACK or PULL, or TRIMMED set (data and trimmed headers)
    val BadFlags = 8     // more than one of ACK, NACK, PULL
    val OutOfRange = 9   // flow id >= flows
  }

  /** The control kind: ACK, NACK, PULL. */
  object Kind {
    val Ack = 0
    val Nack = 1
    val Pull = 2
  }
}

/** What a control frame says (docs/packet-format.md, the transport header and the engine extension). */
case class NicCcControl(cfg: NicCcRxConfig) extends Bundle {
  val kind = UInt(2 bits)
  val flow = UInt(cfg.flowIdWidth bits)
  /** The sequence number the ACK or NACK acknowledges; a PULL's is carried too. */
  val psn = UInt(32 bits)
  val ecnEcho = Bool()
  /** The echoed entropy (REPS). */
  val entropy = UInt(16 bits)
  /** The echoed transmit time, ns mod 2^32. */
  val timestamp = UInt(32 bits)
  /** ACK: cumulative received bytes; PULL: cumulative pull number. */
  val number = UInt(32 bits)
  val rcvWndPen = UInt(8 bits)
  val lastHop = Bool()
  /** The extension's byte 9 whole: an ACK's DASR n (the receiver's active senders, 0: none); a NACK's bit 0 is lastHop. */
  val activeSenders = UInt(8 bits)
}

/** One result a frame: the reason it was dropped (Reason.Taken: the control is valid) and its bytes on the bus. */
case class NicCcRxResult(cfg: NicCcRxConfig) extends Bundle {
  val reason = UInt(4 bits)
  val wireBytes = UInt(32 bits)
  val control = NicCcControl(cfg)
}

class NicCcRxIo(cfg: NicCcRxConfig) extends Bundle {
  /** The frames from the MAC: never waits (one beat a clock). */
  val input = slave(Flow(Axi4StreamBundle(TrimQueue.axisConfig(cfg.ingress))))
  /** UDP_PORT: the transport's destination port. */
  val udpPort = in UInt (16 bits)
  /** One result a frame, NicCcRx.latency edges after its last beat was taken. */
  val result = master(Flow(NicCcRxResult(cfg)))
}

/**
 * Control frames in, one result per frame out: the trimming queue's ingress (TrimIngress) gives the
 * frame's class, length and header window; here the engine's fields are read from the window
 * (IPv4 or IPv6 offsets) while the frame's last beat is in the ingress's s1, carried beside its
 * verdict, tested one by one at the verdict (each test registered), and the first failing test
 * picks the reason in the next clock.
 */
class NicCcRx(val cfg: NicCcRxConfig) extends Component {
  import NicCcRx._
  val io = new NicCcRxIo(cfg)

  // Its RAM beats, queue rooms and CE checksum are not used here (hw/lint/spinal-waivers.vlt: sharedIngress).
  val sharedIngress = new TrimIngress(cfg.ingress)
  private val ingress = sharedIngress
  connectBeats(ingress.io.input, io.input)
  ingress.io.udpPort := io.udpPort

  /** The fields, from the header window as the last beat sits in s1, two clocks later beside the verdict. */
  val fields = new Area {
    private val h = ingress.io.tap.header
    private val v6 = ingress.io.tap.ipv6Now
    private def at(v4: Int, v6o: Int, bytes: Int): UInt =
      Mux(v6, (0 until bytes).map(i => h(v6o + i)).reduce(_ ## _), (0 until bytes).map(i => h(v4 + i)).reduce(_ ## _)).asUInt // big-endian
    private def tp(o: Int, bytes: Int): UInt = at(PF.Ipv4TransportOffset + o, PF.Ipv6TransportOffset + o, bytes)
    private def ext(o: Int, bytes: Int): UInt = at(PF.Ipv4ExtensionOffset + o, PF.Ipv6ExtensionOffset + o, bytes)
    private val flowFull = tp(PF.TpFlowId, 4)
    private val flagsNow = tp(PF.TpFlags, 1)
    case class Fields() extends Bundle {
      val flowFull = UInt(32 bits)
      val psn, timestamp, number = UInt(32 bits)
      val flags, rcvWndPen, hopFlags = UInt(8 bits)
      val versionOk = Bool()
      val entropy = UInt(16 bits)
    }
    private val now = Fields()
    now.flowFull := flowFull
    now.psn := tp(PF.TpSequence, 4)
    now.flags := flagsNow
    private val versionTokensFull = tp(PF.TpVersionTokens, 1) // bits 3:0 are Dart's tokens, not the engine's
    now.versionOk := versionTokensFull(7 downto 4) === PF.TransportVersion
    now.entropy := tp(PF.TpEchoedEntropy, 2)
    now.timestamp := ext(PF.ExtTimestamp, 4)
    now.number := ext(PF.ExtNumber, 4)
    now.rcvWndPen := ext(PF.ExtRcvWndPen, 1)
    now.hopFlags := ext(PF.ExtHopFlags, 1)
    private val atS2 = RegNext(now)
    val atVerdict = RegNext(atS2)
    /** The flow id is within the flows: compared from the first register (no header multiplexer in front). */
    val inRange = RegNext(atS2.flowFull < cfg.flows)
  }

  /** At the verdict (the last beat in s3): every test registered on its own. */
  val tests = new Area {
    private val v = ingress.io.verdict
    private val f = fields.atVerdict
    private def r(x: Bool): Bool = RegNext(x)
    val valid = RegNext(v.valid) init (False)
    val wireBytes = RegNext(v.wireBytes)
    val bad = r(v.bad)
    val malformed = r(v.malformed)
    val oversize = r(v.oversize)
    private val shortControl = v.length < Mux(v.ipv6, U(PF.Ipv6ControlFrameBytes), U(PF.Ipv4ControlFrameBytes))
    val runt = r(v.runt || (v.transport && shortControl))
    val checksum = r(v.ipv4 && v.ihl5 && !v.ipv4ChecksumOk)
    val foreign = r(!v.transport || !f.versionOk)
    private val ack = f.flags(0)
    private val nack = f.flags(1)
    private val pull = f.flags(6)
    private val trimmed = f.flags(2)
    val notControl = r(trimmed || !(ack || nack || pull))
    val badFlags = r((ack && nack) || (ack && pull) || (nack && pull))
    val outOfRange = r(!fields.inRange)
    val control = RegNext {
      val c = NicCcControl(cfg)
      c.kind := Mux(pull, U(Kind.Pull, 2 bits), Mux(nack, U(Kind.Nack, 2 bits), U(Kind.Ack, 2 bits)))
      c.flow := f.flowFull.resize(cfg.flowIdWidth)
      c.psn := f.psn
      c.ecnEcho := (f.flags & PF.FlagEcnEcho) =/= 0
      c.entropy := f.entropy
      c.timestamp := f.timestamp
      c.number := f.number
      c.rcvWndPen := f.rcvWndPen
      c.lastHop := (f.hopFlags & PF.ExtLastHop) =/= 0
      c.activeSenders := f.hopFlags
      c
    }
  }

  /** The first failing test names the reason; the result is registered. */
  val decide = new Area {
    private val t = tests
    private val order = Seq(t.bad -> Reason.Bad, t.malformed -> Reason.Malformed, t.oversize -> Reason.Oversize,
      t.runt -> Reason.Runt, t.checksum -> Reason.Checksum, t.foreign -> Reason.Foreign,
      t.notControl -> Reason.NotControl, t.badFlags -> Reason.BadFlags, t.outOfRange -> Reason.OutOfRange)
    private val reason = order.foldRight(U(Reason.Taken, 4 bits)) { case ((failed, code), rest) => Mux(failed, U(code, 4 bits), rest) }
    io.result.valid := RegNext(t.valid) init (False)
    io.result.reason := RegNext(reason)
    io.result.wireBytes := RegNext(t.wireBytes)
    io.result.control := RegNext(t.control)
  }
}
